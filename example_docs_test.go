package toolexec_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"time"

	"github.com/toolexec/toolexec"
)

// adder returns a handler of Calculator.Add that says which version ran.
func adder(version string) toolexec.BasicToolCallHandlerFunc {
	return func(_ string, args map[string]any) ([]toolexec.Content, bool, string, error) {
		a, _ := args["a"].(float64)
		b, _ := args["b"].(float64)
		return []toolexec.Content{toolexec.Text(fmt.Sprintf("%g (v%s)", a+b, version))}, false, "", nil
	}
}

// One name, several versions: a call without a version gets the highest
// release; a pre-release only when asked for.
func ExampleRegistry_versions() {
	addV1, addV2, addV3 := adder("1"), adder("2"), adder("3-rc.1")
	reg := &toolexec.Registry{}
	reg.MustAdd(toolexec.Tool{Name: "Calculator.Add", Version: "1.0.0"}, addV1)
	reg.MustAdd(toolexec.Tool{Name: "Calculator.Add", Version: "2.0.0"}, addV2)
	reg.MustAdd(toolexec.Tool{Name: "Calculator.Add", Version: "3.0.0-rc.1"}, addV3)
	x := toolexec.New(reg, reg, toolexec.WithAllowExecute(true))

	for _, version := range []string{"", "1.0.0", "3.0.0-rc.1"} {
		res, err := x.Call(context.Background(), toolexec.CallRequest{Name: "Calculator.Add", Version: version, Arguments: json.RawMessage(`{"a":1,"b":2}`)})
		if err != nil {
			panic(err)
		}
		fmt.Printf("%q: %s\n", version, res.Text())
	}
	// Output:
	// "": 3 (v2)
	// "1.0.0": 3 (v1)
	// "3.0.0-rc.1": 3 (v3-rc.1)
}

// WithOpenAPI sets what the REST handler's OpenAPI document says of the
// service.
func ExampleWithOpenAPI() {
	reg := toolexec.NewRegistry()
	hook := requireBearerToken
	x := toolexec.New(reg, reg,
		toolexec.WithAuthHook(hook),
		toolexec.WithOpenAPI(toolexec.OpenAPI{
			Title:   "Acme tools",
			Version: "2.3.0",
			Contact: toolexec.OpenAPIContact{Name: "Platform team", Email: "platform@acme.example"},
			// Behind a proxy that sets X-Forwarded-*, or: ServerURL: "https://tools.acme.example/api".
			TrustForwardedHeaders: true,
		}))

	req := httptest.NewRequest(http.MethodGet, "/openapi.json", nil)
	req.Header.Set("X-Forwarded-Proto", "https")
	req.Header.Set("X-Forwarded-Host", "tools.acme.example")
	req.Header.Set("X-Forwarded-Prefix", "/api")
	rec := httptest.NewRecorder()
	toolexec.NewHandler(x).ServeHTTP(rec, req)
	var doc struct {
		Info struct {
			Title, Version string
		}
		Servers []struct{ URL string }
	}
	_ = json.Unmarshal(rec.Body.Bytes(), &doc)
	fmt.Println(doc.Info.Title, doc.Info.Version, doc.Servers[0].URL)
	// Output:
	// Acme tools 2.3.0 https://tools.acme.example/api
}

// A host bounds every call with the Executor's options, and every
// connection with its http.Server's timeouts (no WriteTimeout: MCP's
// streams set a deadline per write).
func ExampleWithConcurrencyLimit_server() {
	reg := toolexec.NewRegistry()
	auth := requireBearerToken
	mux := http.NewServeMux()
	x := toolexec.New(reg, reg,
		toolexec.WithAllowExecute(true),
		toolexec.WithAuthHook(auth),
		toolexec.WithTimeout(30*time.Second),                               // every call ends by then
		toolexec.WithConcurrencyLimit(toolexec.ConcurrencyLimit{Max: 256}), // bounds abandoned handlers too
	)

	srv := &http.Server{
		Addr:              "127.0.0.1:8080",
		Handler:           mux,
		ReadHeaderTimeout: 5 * time.Second,   // slow headers
		ReadTimeout:       30 * time.Second,  // headers and body together; lifted once the body is read
		IdleTimeout:       120 * time.Second, // idle keep-alive connections
		MaxHeaderBytes:    64 << 10,          // the default is 1 MiB
		// No WriteTimeout: see below.
	}
	mux.Handle("/api/", http.StripPrefix("/api", toolexec.NewHandler(x)))
	log.Fatal(srv.ListenAndServe())
}

// verify finds the user of an Authorization header, as a host's token
// store would.
func verify(authorization string) (User, bool) {
	user, err := lookUpToken(authorization)
	return user, err == nil
}

func auth(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		user, ok := verify(r.Header.Get("Authorization"))
		if !ok {
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		next.ServeHTTP(w, r.WithContext(toolexec.ContextWithIdentity(r.Context(), user.ID)))
	})
}

// QuotaStore counts each user's successful calls of each tool.
type QuotaStore interface {
	// Allow reports whether user may call the tool again today.
	Allow(user, tool string) bool
	// Count counts one successful call.
	Count(user, tool string)
}

// dailyQuota is a QuotaStore in memory, allowing max calls per user and
// tool.
type dailyQuota struct {
	max   int
	mu    sync.Mutex
	calls map[[2]string]int
}

func (q *dailyQuota) Allow(user, tool string) bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.calls[[2]string{user, tool}] < q.max
}

func (q *dailyQuota) Count(user, tool string) {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.calls[[2]string{user, tool}]++
}

// userFrom returns the caller's identity, as the auth hook named it.
func userFrom(ctx context.Context) string {
	id, _ := toolexec.IdentityFromContext(ctx)
	return id
}

// quota refuses callers over their daily quota, and counts successes.
func quota(store QuotaStore) toolexec.Interceptor {
	return func(next toolexec.CallFunc) toolexec.CallFunc {
		return func(ctx context.Context, call *toolexec.Call) (*toolexec.CallToolResult, error) {
			user := userFrom(ctx) // stored by your auth hook
			if !store.Allow(user, call.Tool.Name) {
				return nil, &toolexec.Error{
					Stage: toolexec.StageIntercept, Code: toolexec.CodeUnavailable,
					Message: "Daily quota reached.", RetryAfter: time.Hour,
				}
			}
			res, err := next(ctx, call)
			if err == nil && !res.IsError {
				store.Count(user, call.Tool.Name)
			}
			return res, err
		}
	}
}

// An interceptor that refuses a call answers in the surface's shape; here
// the second call of the day is over quota.
func ExampleWithInterceptors() {
	reg := toolexec.NewRegistry()
	reg.MustAdd(toolexec.Tool{Name: "ping"}, func(string, map[string]any) ([]toolexec.Content, bool, string, error) {
		return []toolexec.Content{toolexec.Text("pong")}, false, "", nil
	})
	store := &dailyQuota{max: 1, calls: map[[2]string]int{}}
	x := toolexec.New(reg, reg, toolexec.WithAllowExecute(true), toolexec.WithAuthHook(auth), toolexec.WithInterceptors(quota(store)))

	h := toolexec.NewHandler(x)
	for range 2 {
		req := httptest.NewRequest(http.MethodPost, "/tools/ping/call", strings.NewReader(`{}`))
		req.Header.Set("Authorization", "Bearer t0k3n")
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		fmt.Print(rec.Code, " ", rec.Body.String())
	}
	// Output:
	// 200 {"content":[{"type":"text","text":"pong"}],"isError":false}
	// 503 {"content":[{"type":"text","text":"Daily quota reached."}],"isError":true}
}
