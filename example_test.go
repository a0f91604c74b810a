package toolexec_test

import (
	"context"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"time"

	"github.com/go-chi/chi/v5"

	"github.com/toolexec/toolexec"
)

// The quick start: describe a tool, register its handler, turn execution on,
// and mount the REST surface under /api of an ordinary http.ServeMux.
func Example() {
	reg := toolexec.NewRegistry()
	reg.MustAdd(toolexec.Tool{
		Name:        "greet",
		Description: "Greets someone by name.",
		InputSchema: json.RawMessage(`{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}`),
	}, func(_ string, args map[string]any) ([]toolexec.Content, bool, string, error) {
		name, _ := args["name"].(string)
		return []toolexec.Content{toolexec.Text("Hello, " + name + "!")}, false, "", nil
	})

	x := toolexec.New(reg, reg, toolexec.WithAllowExecute(true))

	mux := http.NewServeMux()
	mux.Handle("/api/", http.StripPrefix("/api", toolexec.NewHandler(x)))

	srv := httptest.NewServer(mux)
	defer srv.Close()

	resp, err := http.Post(srv.URL+"/api/tools/greet/call", "application/json", strings.NewReader(`{"name":"Ada"}`))
	if err != nil {
		panic(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	fmt.Println(resp.Status)
	fmt.Print(string(body))
	// Output:
	// 200 OK
	// {"content":[{"type":"text","text":"Hello, Ada!"}],"isError":false}
}

// New takes a source of tools and one handler
// that executes all of them, told apart by name. Here the tools are a fixed
// list and the handler a plain function.
func ExampleNew() {
	tools := toolexec.StaticTools{
		{Name: "math_add", Description: "Adds a and b."},
		{Name: "math_mul", Description: "Multiplies a and b."},
	}
	handler := func(ctx context.Context, name string, args map[string]any) ([]toolexec.Content, bool, string, error) {
		a, _ := args["a"].(float64)
		b, _ := args["b"].(float64)
		switch name {
		case "math_add":
			return []toolexec.Content{toolexec.Text(fmt.Sprint(a + b))}, false, "", nil
		case "math_mul":
			return []toolexec.Content{toolexec.Text(fmt.Sprint(a * b))}, false, "", nil
		}
		return nil, false, "", fmt.Errorf("no tool %q", name)
	}

	x := toolexec.New(tools, handler, toolexec.WithAllowExecute(true))

	for _, name := range []string{"math_add", "math_mul"} {
		res, err := x.Call(context.Background(), toolexec.CallRequest{Name: name, Arguments: json.RawMessage(`{"a":6,"b":7}`)})
		if err != nil {
			panic(err)
		}
		fmt.Println(name, "=", res.Text())
	}
	// Output:
	// math_add = 13
	// math_mul = 42
}

// A Registry gives each tool its own handler, in either form: the context
// form (ToolCallHandlerFunc) or the basic form (BasicToolCallHandlerFunc).
// It is both the tool source and the handler of an Executor.
func ExampleRegistry() {
	reg := toolexec.NewRegistry()
	reg.MustAdd(toolexec.Tool{
		Name:        "text_upper",
		Description: "Upper-cases text.",
		Annotations: &toolexec.ToolAnnotations{ReadOnlyHint: toolexec.Bool(true)},
	}, toolexec.BasicToolCallHandlerFunc(func(_ string, args map[string]any) ([]toolexec.Content, bool, string, error) {
		s, _ := args["text"].(string)
		return []toolexec.Content{toolexec.Text(strings.ToUpper(s))}, false, "", nil
	}))
	reg.MustAdd(toolexec.Tool{
		Name:        "report_build",
		Description: "Builds a report; stops if the caller goes away.",
	}, toolexec.ToolCallHandlerFunc(func(ctx context.Context, _ string, _ map[string]any) ([]toolexec.Content, bool, string, error) {
		select {
		case <-time.After(2 * time.Second):
			return []toolexec.Content{toolexec.Text("report ready")}, false, "", nil
		case <-ctx.Done():
			return nil, false, "", ctx.Err()
		}
	}))

	x := toolexec.New(reg, reg) // discovery works with execution off

	rec := httptest.NewRecorder()
	toolexec.NewHandler(x).ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/tools", nil))
	fmt.Print(rec.Body.String())
	// Output:
	// [{"name":"text_upper","description":"Upper-cases text.","annotations":{"readOnlyHint":true}},{"name":"report_build","description":"Builds a report; stops if the caller goes away."}]
}

// The context form of a handler gets the call's context: it ends when the
// client goes away, and RequestFromContext returns the HTTP request. Here the
// caller's X-Request-Id header becomes the result's trace id, which the
// REST surface sends back as _meta._trace_id.
func ExampleToolCallHandlerFunc() {
	echo := toolexec.ToolCallHandlerFunc(func(ctx context.Context, _ string, args map[string]any) ([]toolexec.Content, bool, string, error) {
		var traceID string
		if r := toolexec.RequestFromContext(ctx); r != nil {
			traceID = r.Header.Get("X-Request-Id")
		}
		text, _ := args["text"].(string)
		return []toolexec.Content{toolexec.Text(text)}, false, traceID, nil
	})

	reg := toolexec.NewRegistry()
	reg.MustAdd(toolexec.Tool{Name: "echo"}, echo)
	h := toolexec.NewHandler(toolexec.New(reg, reg, toolexec.WithAllowExecute(true)))

	req := httptest.NewRequest(http.MethodPost, "/tools/echo/call", strings.NewReader(`{"text":"hi"}`))
	req.Header.Set("X-Request-Id", "req-42")
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	fmt.Print(rec.Body.String())
	// Output:
	// {"content":[{"type":"text","text":"hi"}],"isError":false,"_meta":{"_trace_id":"req-42"}}
}

// The basic form of a handler takes only the tool's name and arguments. A
// logical failure is a result with isError set (HTTP 500 on the REST
// surface, like a Go error, but the handler chose the message and content).
func ExampleBasicToolCallHandlerFunc() {
	divide := toolexec.BasicToolCallHandlerFunc(func(_ string, args map[string]any) ([]toolexec.Content, bool, string, error) {
		a, _ := args["a"].(float64)
		b, _ := args["b"].(float64)
		if b == 0 {
			return []toolexec.Content{toolexec.Text("cannot divide by zero")}, true, "", nil
		}
		return []toolexec.Content{toolexec.Text(fmt.Sprint(a / b))}, false, "", nil
	})

	reg := toolexec.NewRegistry()
	reg.MustAdd(toolexec.Tool{Name: "divide"}, divide)
	h := toolexec.NewHandler(toolexec.New(reg, reg, toolexec.WithAllowExecute(true)))

	for _, args := range []string{`{"a":1,"b":4}`, `{"a":1,"b":0}`} {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest(http.MethodPost, "/tools/divide/call", strings.NewReader(args)))
		fmt.Print(rec.Code, " ", rec.Body.String())
	}
	// Output:
	// 200 {"content":[{"type":"text","text":"0.25"}],"isError":false}
	// 500 {"content":[{"type":"text","text":"cannot divide by zero"}],"isError":true}
}

// userKey is where the auth hook below stores the caller's identity.
type userKey struct{}

// An auth hook is ordinary net/http middleware. It lets a call through by
// calling next, and may store who the caller is in the request's context:
// the handler finds it in its own context. When it does not call next, the
// caller gets exactly 401 {"error":"Unauthorized"}, whatever the hook wrote.
func ExampleWithAuthHook() {
	apiKeys := map[string]string{"k-123": "ada"}
	auth := func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			user, ok := apiKeys[r.Header.Get("X-API-Key")]
			if !ok {
				http.Error(w, "unknown API key", http.StatusUnauthorized) // logged, never sent
				return
			}
			next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), userKey{}, user)))
		})
	}

	reg := toolexec.NewRegistry()
	reg.MustAdd(toolexec.Tool{Name: "whoami"}, func(ctx context.Context, _ string, _ map[string]any) ([]toolexec.Content, bool, string, error) {
		user, _ := ctx.Value(userKey{}).(string)
		return []toolexec.Content{toolexec.Text("you are " + user)}, false, "", nil
	})
	h := toolexec.NewHandler(toolexec.New(reg, reg, toolexec.WithAllowExecute(true), toolexec.WithAuthHook(auth)))

	for _, key := range []string{"k-123", "wrong"} {
		req := httptest.NewRequest(http.MethodPost, "/tools/whoami/call", nil)
		req.Header.Set("X-API-Key", key)
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		fmt.Print(rec.Code, " ", rec.Body.String())
	}
	// Output:
	// 200 {"content":[{"type":"text","text":"you are ada"}],"isError":false}
	// 401 {"error":"Unauthorized"}
}

// requireBearerToken is an auth hook that lets a call through only with the
// service's bearer token.
func requireBearerToken(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if subtle.ConstantTimeCompare([]byte(r.Header.Get("Authorization")), []byte("Bearer s3cret")) != 1 {
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// Calls are guarded by the auth hook; the tool list stays public.
func ExampleWithAuthHook_bearerToken() {
	reg := toolexec.NewRegistry()
	reg.MustAdd(toolexec.Tool{Name: "ping", Description: "Answers pong."}, func(string, map[string]any) ([]toolexec.Content, bool, string, error) {
		return []toolexec.Content{toolexec.Text("pong")}, false, "", nil
	})
	x := toolexec.New(reg, reg,
		toolexec.WithAllowExecute(true),
		toolexec.WithAuthHook(requireBearerToken), // func(next http.Handler) http.Handler
	)
	h := toolexec.NewHandler(x)

	for _, auth := range []string{"Bearer s3cret", "Bearer guess"} {
		req := httptest.NewRequest(http.MethodPost, "/tools/ping/call", nil)
		req.Header.Set("Authorization", auth)
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		fmt.Print(rec.Code, " ", rec.Body.String())
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/tools", nil))
	fmt.Print(rec.Code, " ", rec.Body.String())
	// Output:
	// 200 {"content":[{"type":"text","text":"pong"}],"isError":false}
	// 401 {"error":"Unauthorized"}
	// 200 [{"name":"ping","description":"Answers pong."}]
}

// Executor.Call runs a tool in-process through the same pipeline as every
// HTTP surface. A logical tool error comes back as a result with IsError
// set; a failed call comes back as an *Error that names the failed stage.
func ExampleExecutor_Call() {
	reg := toolexec.NewRegistry()
	reg.MustAdd(toolexec.Tool{Name: "check"}, func(_ string, args map[string]any) ([]toolexec.Content, bool, string, error) {
		switch args["mode"] {
		case "ok":
			return []toolexec.Content{toolexec.Text("all good")}, false, "", nil
		case "refuse":
			return []toolexec.Content{toolexec.Text("not today")}, true, "", nil
		}
		return nil, false, "", errors.New("backend unreachable")
	})
	x := toolexec.New(reg, reg, toolexec.WithAllowExecute(true))
	ctx := context.Background()

	for _, req := range []toolexec.CallRequest{
		{Name: "check", Arguments: json.RawMessage(`{"mode":"ok"}`)},
		{Name: "check", Arguments: json.RawMessage(`{"mode":"refuse"}`)},
		{Name: "check", Arguments: json.RawMessage(`{"mode":"crash"}`)},
		{Name: "nope"},
	} {
		res, err := x.Call(ctx, req)
		if e, ok := toolexec.AsError(err); ok {
			fmt.Printf("failed at %s (%s): %s\n", e.Stage, e.Code, e.Message)
			continue
		}
		fmt.Printf("isError=%t: %s\n", res.IsError, res.Text())
	}
	// Output:
	// isError=false: all good
	// isError=true: not today
	// failed at execute (tool_error): backend unreachable
	// failed at resolve (not_found): Tool not found: nope
}

// At the root of a server, the REST handler can be the server's handler
// itself.
func ExampleNewHandler_root() {
	reg := toolexec.NewRegistry()
	reg.MustAdd(toolexec.Tool{Name: "ping", Description: "Answers pong."}, func(string, map[string]any) ([]toolexec.Content, bool, string, error) {
		return []toolexec.Content{toolexec.Text("pong")}, false, "", nil
	})
	x := toolexec.New(reg, reg, toolexec.WithAllowExecute(true))

	srv := &http.Server{Addr: "localhost:8080", Handler: toolexec.NewHandler(x), ReadHeaderTimeout: 5 * time.Second}

	rec := httptest.NewRecorder()
	srv.Handler.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/tools", nil))
	fmt.Print(rec.Code, " ", rec.Body.String())
	// Output:
	// 200 [{"name":"ping","description":"Answers pong."}]
}

// The REST handler mounts under any prefix of a chi router, beside the
// service's own routes and middleware.
func ExampleNewHandler() {
	reg := toolexec.NewRegistry()
	reg.MustAdd(toolexec.Tool{Name: "image_size", Description: "Reports an image's size."},
		func(string, map[string]any) ([]toolexec.Content, bool, string, error) {
			return []toolexec.Content{toolexec.Text("640x480")}, false, "", nil
		})
	x := toolexec.New(reg, reg, toolexec.WithAllowExecute(true))

	r := chi.NewRouter()
	r.Get("/healthz", func(w http.ResponseWriter, _ *http.Request) { fmt.Fprint(w, "ok") })
	r.Mount("/api", toolexec.NewHandler(x))

	for _, req := range []*http.Request{
		httptest.NewRequest(http.MethodGet, "/api/tools", nil),
		httptest.NewRequest(http.MethodPost, "/api/tools/image_size/call", strings.NewReader(`{}`)),
	} {
		rec := httptest.NewRecorder()
		r.ServeHTTP(rec, req)
		fmt.Print(rec.Code, " ", rec.Body.String())
	}
	// Output:
	// 200 [{"name":"image_size","description":"Reports an image's size."}]
	// 200 {"content":[{"type":"text","text":"640x480"}],"isError":false}
}
