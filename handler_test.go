package toolexec

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-chi/chi/v5"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// fixture is a registry of tools covering every outcome, with counters and
// channels the tests read.
type fixture struct {
	reg       *Registry
	calls     atomic.Int64 // calls that reached any handler
	lastArgs  chan map[string]any
	started   chan struct{}
	cancelled chan error
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	f := &fixture{
		reg:       NewRegistry(),
		lastArgs:  make(chan map[string]any, 64),
		started:   make(chan struct{}, 1),
		cancelled: make(chan error, 1),
	}
	echo := func(ctx context.Context, name string, args map[string]any) ([]Content, bool, string, error) {
		f.calls.Add(1)
		select {
		case f.lastArgs <- args:
		default:
		}
		b, _ := json.Marshal(args)
		return []Content{Text(string(b))}, false, "trace-1", nil
	}
	f.reg.MustAdd(Tool{Name: "echo", Description: "Echo the arguments",
		InputSchema: json.RawMessage(`{"type":"object","properties":{"msg":{"type":"string"}}}`),
		Annotations: &ToolAnnotations{ReadOnlyHint: Bool(true)}}, echo)
	f.reg.MustAdd(Tool{Name: "image/resize", Description: "Namespaced"}, echo)
	f.reg.MustAdd(Tool{Name: "math.add", Description: "Dotted"}, echo)
	f.reg.MustAdd(Tool{Name: "no trace"}, func(name string, args map[string]any) ([]Content, bool, string, error) {
		f.calls.Add(1)
		return []Content{Text("ok")}, false, "", nil
	})
	f.reg.MustAdd(Tool{Name: "logic-error"}, func(name string, args map[string]any) ([]Content, bool, string, error) {
		f.calls.Add(1)
		return []Content{Text("city not found")}, true, "trace-2", nil
	})
	f.reg.MustAdd(Tool{Name: "raise"}, func(name string, args map[string]any) ([]Content, bool, string, error) {
		f.calls.Add(1)
		return nil, false, "", errors.New("database exploded")
	})
	f.reg.MustAdd(Tool{Name: "panic"}, func(name string, args map[string]any) ([]Content, bool, string, error) {
		f.calls.Add(1)
		panic("boom")
	})
	f.reg.MustAdd(Tool{Name: "slow"}, func(ctx context.Context, name string, args map[string]any) ([]Content, bool, string, error) {
		f.calls.Add(1)
		f.started <- struct{}{}
		select {
		case <-ctx.Done():
			f.cancelled <- ctx.Err()
			return nil, false, "", ctx.Err()
		case <-time.After(time.Minute):
			return []Content{Text("finished")}, false, "", nil
		}
	})
	return f
}

func (f *fixture) handler(opts ...Option) http.Handler {
	opts = append([]Option{WithAllowExecute(true), WithLogger(discardLogger())}, opts...)
	return NewHandler(New(f.reg, f.reg, opts...))
}

func discardLogger() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

type response struct {
	status int
	header http.Header
	body   string
}

func (r response) json(t *testing.T) map[string]any {
	t.Helper()
	var m map[string]any
	require.NoError(t, json.Unmarshal([]byte(r.body), &m), "body: %s", r.body)
	return m
}

func do(t *testing.T, h http.Handler, method, target, body string, headers ...string) response {
	t.Helper()
	req := httptest.NewRequest(method, target, strings.NewReader(body))
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return response{status: rec.Code, header: rec.Header(), body: rec.Body.String()}
}

// Calls over REST: statuses and bodies of POST /tools/{name}/call.

func TestCallSuccessfulReturns200WithContentAndTraceID(t *testing.T) { // criterion 1
	f := newFixture(t)
	r := do(t, f.handler(), http.MethodPost, "/tools/echo/call", `{"msg":"hi"}`)
	assert.Equal(t, http.StatusOK, r.status)
	assert.JSONEq(t, `{"content":[{"type":"text","text":"{\"msg\":\"hi\"}"}],"isError":false,"_meta":{"_trace_id":"trace-1"}}`, r.body)
	assert.Equal(t, "application/json", r.header.Get("Content-Type"))
}

func TestCallHandlerIsErrorReturns500(t *testing.T) { // criterion 2
	f := newFixture(t)
	r := do(t, f.handler(), http.MethodPost, "/tools/logic-error/call", `{}`)
	assert.Equal(t, http.StatusInternalServerError, r.status)
	assert.JSONEq(t, `{"content":[{"type":"text","text":"city not found"}],"isError":true,"_meta":{"_trace_id":"trace-2"}}`, r.body)
}

func TestCallUnknownToolReturns404(t *testing.T) { // criterion 3
	f := newFixture(t)
	r := do(t, f.handler(), http.MethodPost, "/tools/nope/call", `{}`)
	assert.Equal(t, http.StatusNotFound, r.status)
	assert.JSONEq(t, `{"error":"Tool not found: nope"}`, r.body)
	assert.Zero(t, f.calls.Load())
}

func TestCallExecutionDisabledReturns403(t *testing.T) { // criterion 4
	f := newFixture(t)
	h := f.handler(WithAllowExecute(false))
	for _, name := range []string{"echo", "nope"} { // the gate is checked first, before the lookup
		r := do(t, h, http.MethodPost, "/tools/"+name+"/call", `{}`)
		assert.Equal(t, http.StatusForbidden, r.status, name)
		assert.JSONEq(t, `{"error":"Tool execution is disabled."}`, r.body, name)
	}
	assert.Zero(t, f.calls.Load())
}

func TestExecutionIsDisabledByDefault(t *testing.T) {
	f := newFixture(t)
	h := NewHandler(New(f.reg, f.reg, WithLogger(discardLogger())))
	assert.Equal(t, http.StatusForbidden, do(t, h, http.MethodPost, "/tools/echo/call", `{}`).status)
	assert.Equal(t, http.StatusOK, do(t, h, http.MethodGet, "/tools", "").status, "discovery still works")
}

func TestCallInvalidJSONBodyIsTreatedAsEmptyObject(t *testing.T) { // criterion 5
	for name, body := range map[string]string{
		"empty":         "",
		"not json":      "hello there",
		"truncated":     `{"msg":`,
		"array":         `[1,2,3]`,
		"string":        `"msg"`,
		"null":          `null`,
		"number":        `42`,
		"trailing junk": `{"msg":"hi"} x`,
	} {
		t.Run(name, func(t *testing.T) {
			f := newFixture(t)
			r := do(t, f.handler(), http.MethodPost, "/tools/echo/call", body)
			require.Equal(t, http.StatusOK, r.status, r.body)
			assert.Equal(t, map[string]any{}, <-f.lastArgs, "the tool runs with {}")
		})
	}
}

func TestCallHandlerErrorReturns500WithMessage(t *testing.T) { // criterion 6
	f := newFixture(t)
	h := f.handler()
	r := do(t, h, http.MethodPost, "/tools/raise/call", `{}`)
	assert.Equal(t, http.StatusInternalServerError, r.status)
	assert.JSONEq(t, `{"content":[{"type":"text","text":"database exploded"}],"isError":true}`, r.body)

	r = do(t, h, http.MethodPost, "/tools/panic/call", `{}`)
	assert.Equal(t, http.StatusInternalServerError, r.status)
	assert.JSONEq(t, `{"content":[{"type":"text","text":"The tool failed unexpectedly."}],"isError":true}`, r.body, "a panic's value is not sent by default")
	assert.NotContains(t, r.body, "goroutine", "no stack on the wire")
}

func TestCallEmptyTraceIDOmitsMeta(t *testing.T) { // criterion 7
	f := newFixture(t)
	r := do(t, f.handler(), http.MethodPost, "/tools/no%20trace/call", `{}`)
	require.Equal(t, http.StatusOK, r.status)
	assert.NotContains(t, r.json(t), "_meta")
	assert.NotContains(t, r.body, "null")
}

func TestPanicIsLoggedWithStackButNotSent(t *testing.T) {
	f := newFixture(t)
	var logs bytes.Buffer
	h := NewHandler(New(f.reg, f.reg, WithAllowExecute(true), WithLogger(slog.New(slog.NewJSONHandler(&logs, nil)))))
	r := do(t, h, http.MethodPost, "/tools/panic/call", `{}`)
	assert.Equal(t, http.StatusInternalServerError, r.status)
	assert.Contains(t, logs.String(), `"level":"ERROR"`)
	assert.Contains(t, logs.String(), "goroutine", "the stack is logged")
	assert.NotContains(t, r.body, "goroutine")
}

func TestPanickingToolDoesNotDisturbConcurrentCalls(t *testing.T) {
	f := newFixture(t)
	srv := httptest.NewServer(f.handler())
	defer srv.Close()

	var wg sync.WaitGroup
	statuses := make(chan [2]int, 200)
	for i := 0; i < 100; i++ {
		wg.Add(2)
		go func() {
			defer wg.Done()
			resp, err := http.Post(srv.URL+"/tools/panic/call", "application/json", strings.NewReader(`{}`))
			if assert.NoError(t, err) {
				_, _ = io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				statuses <- [2]int{0, resp.StatusCode}
			}
		}()
		go func() {
			defer wg.Done()
			resp, err := http.Post(srv.URL+"/tools/echo/call", "application/json", strings.NewReader(`{"msg":"x"}`))
			if assert.NoError(t, err) {
				_, _ = io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				statuses <- [2]int{1, resp.StatusCode}
			}
		}()
	}
	wg.Wait()
	close(statuses)
	for s := range statuses {
		if s[0] == 0 {
			assert.Equal(t, http.StatusInternalServerError, s[1], "panic tool")
		} else {
			assert.Equal(t, http.StatusOK, s[1], "echo tool")
		}
	}
	resp, err := http.Post(srv.URL+"/tools/echo/call", "application/json", strings.NewReader(`{}`))
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, http.StatusOK, resp.StatusCode, "the server keeps serving")
}

func TestClientDisconnectCancelsHandlerContext(t *testing.T) {
	f := newFixture(t)
	srv := httptest.NewServer(f.handler())
	defer srv.Close()

	ctx, cancel := context.WithCancel(context.Background())
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, srv.URL+"/tools/slow/call", strings.NewReader(`{}`))
	require.NoError(t, err)
	errc := make(chan error, 1)
	go func() {
		resp, err := http.DefaultClient.Do(req)
		if err == nil {
			resp.Body.Close()
		}
		errc <- err
	}()
	<-f.started
	cancel()
	select {
	case err := <-f.cancelled:
		assert.ErrorIs(t, err, context.Canceled)
	case <-time.After(10 * time.Second):
		t.Fatal("the handler's context was not cancelled after the client went away")
	}
	assert.Error(t, <-errc)
}

// Discovery: GET /tools and GET /tools/{name}.

func TestListToolsOmitsAbsentAnnotations(t *testing.T) {
	f := newFixture(t)
	r := do(t, f.handler(), http.MethodGet, "/tools", "")
	require.Equal(t, http.StatusOK, r.status)
	var list []map[string]any
	require.NoError(t, json.Unmarshal([]byte(r.body), &list))
	require.Len(t, list, 8)
	assert.Equal(t, map[string]any{"name": "echo", "description": "Echo the arguments", "annotations": map[string]any{"readOnlyHint": true}}, list[0])
	assert.Equal(t, map[string]any{"name": "image/resize", "description": "Namespaced"}, list[1], "annotations omitted, not null")
	assert.NotContains(t, r.body, "null")
}

func TestListToolsOfEmptyProviderIsEmptyArray(t *testing.T) {
	h := NewHandler(New(StaticTools(nil), func(string, map[string]any) ([]Content, bool, string, error) { return nil, false, "", nil }))
	r := do(t, h, http.MethodGet, "/tools", "")
	assert.Equal(t, http.StatusOK, r.status)
	assert.Equal(t, "[]\n", r.body)
}

func TestGetToolReturnsInputSchema(t *testing.T) {
	f := newFixture(t)
	h := f.handler()
	r := do(t, h, http.MethodGet, "/tools/echo", "")
	require.Equal(t, http.StatusOK, r.status)
	assert.JSONEq(t, `{"name":"echo","description":"Echo the arguments","inputSchema":{"type":"object","properties":{"msg":{"type":"string"}}},"annotations":{"readOnlyHint":true}}`, r.body)

	r = do(t, h, http.MethodGet, "/tools/math.add", "")
	require.Equal(t, http.StatusOK, r.status)
	assert.JSONEq(t, `{"name":"math.add","description":"Dotted","inputSchema":{"type":"object"}}`, r.body, "a tool without a schema accepts any object")
}

func TestGetUnknownToolReturns404(t *testing.T) {
	f := newFixture(t)
	r := do(t, f.handler(), http.MethodGet, "/tools/missing", "")
	assert.Equal(t, http.StatusNotFound, r.status)
	assert.JSONEq(t, `{"error":"Tool not found: missing"}`, r.body)
}

func TestDynamicProviderIsAskedOnEveryRequest(t *testing.T) {
	var asked atomic.Int64
	var current atomic.Value
	current.Store([]Tool{{Name: "a"}})
	provider := ToolProviderFunc(func() []Tool { asked.Add(1); return current.Load().([]Tool) })
	h := NewHandler(New(provider, func(name string, _ map[string]any) ([]Content, bool, string, error) {
		return []Content{Text("ran " + name)}, false, "", nil
	}, WithAllowExecute(true)))

	assert.JSONEq(t, `[{"name":"a","description":""}]`, do(t, h, http.MethodGet, "/tools", "").body)
	current.Store([]Tool{{Name: "b"}})
	assert.JSONEq(t, `[{"name":"b","description":""}]`, do(t, h, http.MethodGet, "/tools", "").body)
	assert.Equal(t, http.StatusNotFound, do(t, h, http.MethodGet, "/tools/a", "").status)
	assert.Equal(t, http.StatusOK, do(t, h, http.MethodPost, "/tools/b/call", "").status)
	assert.Equal(t, http.StatusNotFound, do(t, h, http.MethodPost, "/tools/a/call", "").status)
	assert.GreaterOrEqual(t, asked.Load(), int64(5), "no caching: asked at least once per request")
}

// The auth hook guards calls, never discovery.

type identityKey struct{}

// bearerAuth is an ordinary auth middleware: it answers 403 with details of
// its own when the token is wrong, and stores the caller's identity.
func bearerAuth(ran *atomic.Int64) AuthHook {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			ran.Add(1)
			if r.Header.Get("Authorization") != "Bearer s3cret" {
				w.WriteHeader(http.StatusForbidden)
				_, _ = io.WriteString(w, "token expired for user alice")
				return
			}
			next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), identityKey{}, "alice")))
		})
	}
}

func TestAuthHookAcceptsAndPassesIdentityToHandler(t *testing.T) {
	var ran atomic.Int64
	reg := NewRegistry()
	reg.MustAdd(Tool{Name: "whoami"}, func(ctx context.Context, _ string, _ map[string]any) ([]Content, bool, string, error) {
		id, _ := ctx.Value(identityKey{}).(string)
		fromReq, _ := RequestFromContext(ctx).Context().Value(identityKey{}).(string)
		return []Content{Text(id + "/" + fromReq)}, false, "", nil
	})
	h := NewHandler(New(reg, reg, WithAllowExecute(true), WithAuthHook(bearerAuth(&ran))))
	r := do(t, h, http.MethodPost, "/tools/whoami/call", `{}`, "Authorization", "Bearer s3cret")
	assert.Equal(t, http.StatusOK, r.status)
	assert.JSONEq(t, `{"content":[{"type":"text","text":"alice/alice"}],"isError":false}`, r.body)
	assert.EqualValues(t, 1, ran.Load())
}

func TestAuthHookRejectsWithExactBodyAndLogsReason(t *testing.T) {
	var ran atomic.Int64
	var logs bytes.Buffer
	f := newFixture(t)
	h := NewHandler(New(f.reg, f.reg, WithAllowExecute(true), WithAuthHook(bearerAuth(&ran)),
		WithLogger(slog.New(slog.NewJSONHandler(&logs, nil)))))
	r := do(t, h, http.MethodPost, "/tools/echo/call", `{}`, "Authorization", "Bearer wrong")
	assert.Equal(t, http.StatusUnauthorized, r.status)
	assert.Equal(t, `{"error":"Unauthorized"}`+"\n", r.body, "exactly this, whatever the hook wrote")
	assert.Zero(t, f.calls.Load(), "the handler never runs")
	assert.Contains(t, logs.String(), `"level":"WARN"`)
	assert.Contains(t, logs.String(), "token expired for user alice", "the reason is logged server-side")
}

func TestAuthHookRunsAfterTheGate(t *testing.T) {
	var ran atomic.Int64
	f := newFixture(t)
	h := f.handler(WithAuthHook(bearerAuth(&ran)), WithAllowExecute(false))
	assert.Equal(t, http.StatusForbidden, do(t, h, http.MethodPost, "/tools/echo/call", `{}`).status)
	assert.Equal(t, http.StatusForbidden, do(t, h, http.MethodPost, "/tools/nope/call", `{}`).status)
	assert.Zero(t, ran.Load())
}

func TestAnUnknownToolIs404BeforeTheHookByDefault(t *testing.T) {
	// The execution API's order: gate, lookup, then the hook. Without
	// per-caller lists nothing is hidden, so an unknown tool is 404 for
	// any caller, and the hook does not run for it.
	var ran atomic.Int64
	f := newFixture(t)
	h := f.handler(WithAuthHook(bearerAuth(&ran)))
	unknown := do(t, h, http.MethodPost, "/tools/nope/call", `{}`)
	assert.Equal(t, http.StatusNotFound, unknown.status)
	assert.JSONEq(t, `{"error":"Tool not found: nope"}`, unknown.body)
	assert.Zero(t, ran.Load(), "the hook never ran for an unknown tool")

	known := do(t, h, http.MethodPost, "/tools/echo/call", `{}`)
	assert.Equal(t, http.StatusUnauthorized, known.status)
	assert.JSONEq(t, `{"error":"Unauthorized"}`, known.body)
	assert.Equal(t, int64(1), ran.Load())
}

// hideAll is a ToolFilter that shows an anonymous caller nothing and a
// caller with the token everything.
func hideAll(r *http.Request, tools []Tool) []Tool {
	if r.Header.Get("Authorization") != "Bearer s3cret" {
		return nil
	}
	return tools
}

func TestWhereToolsAreHiddenOnlyAnAdmittedCallerLearnsWhetherAToolExists(t *testing.T) {
	// With per-caller lists, a caller the hook refuses gets the refusal for
	// a tool hidden from it exactly as for a tool that does not exist, and
	// before a body over the limit or arguments that are not an object
	// could tell the two apart.
	var ran atomic.Int64
	f := newFixture(t)
	h := f.handler(WithAuthHook(bearerAuth(&ran)), WithToolFilter(hideAll), WithMaxBodyBytes(64))
	big := `{"msg":"` + strings.Repeat("x", 100) + `"}`
	for _, body := range []string{`{}`, big, `[1,2]`, `not json`} {
		unknown := do(t, h, http.MethodPost, "/tools/nope/call", body)
		hidden := do(t, h, http.MethodPost, "/tools/echo/call", body)
		assert.Equal(t, http.StatusUnauthorized, unknown.status, body)
		assert.Equal(t, hidden.status, unknown.status, body)
		assert.Equal(t, hidden.body, unknown.body, body)
		assert.JSONEq(t, `{"error":"Unauthorized"}`, unknown.body, body)
	}
	assert.Zero(t, f.calls.Load())

	admitted := do(t, h, http.MethodPost, "/tools/nope/call", `{}`, "Authorization", "Bearer s3cret")
	assert.Equal(t, http.StatusNotFound, admitted.status)
	assert.JSONEq(t, `{"error":"Tool not found: nope"}`, admitted.body)
	tooLarge := do(t, h, http.MethodPost, "/tools/echo/call", big, "Authorization", "Bearer s3cret")
	assert.Equal(t, http.StatusRequestEntityTooLarge, tooLarge.status, "an admitted caller learns what was wrong")
	assert.Zero(t, f.calls.Load())
}

func TestTheHookSeesNoToolForAnUnknownNameWhereToolsAreHidden(t *testing.T) {
	var seen []*Call
	hook := func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			seen = append(seen, CallFromContext(r.Context()))
			next.ServeHTTP(w, r)
		})
	}
	f := newFixture(t)
	do(t, f.handler(WithAuthHook(hook), WithToolFilter(hideAll)), http.MethodPost, "/tools/nope/call", `{"a":1}`)
	require.Len(t, seen, 1)
	require.NotNil(t, seen[0])
	assert.Equal(t, Tool{}, seen[0].Tool)
	assert.Nil(t, seen[0].Arguments)
}

func TestAuthHookNeverRunsForDiscovery(t *testing.T) {
	var ran atomic.Int64
	f := newFixture(t)
	h := f.handler(WithAuthHook(bearerAuth(&ran)))
	assert.Equal(t, http.StatusOK, do(t, h, http.MethodGet, "/tools", "").status)
	assert.Equal(t, http.StatusOK, do(t, h, http.MethodGet, "/tools/echo", "").status)
	assert.Equal(t, http.StatusNotFound, do(t, h, http.MethodGet, "/tools/nope", "").status)
	assert.Zero(t, ran.Load())
}

func TestAuthHookSeesTheRequestBody(t *testing.T) {
	var seen string
	hook := func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			b, _ := io.ReadAll(r.Body)
			seen = string(b)
			next.ServeHTTP(w, r)
		})
	}
	f := newFixture(t)
	r := do(t, f.handler(WithAuthHook(hook)), http.MethodPost, "/tools/echo/call", `{"msg":"signed"}`)
	assert.Equal(t, http.StatusOK, r.status)
	assert.Equal(t, `{"msg":"signed"}`, seen)
	assert.Equal(t, map[string]any{"msg": "signed"}, <-f.lastArgs, "the tool still gets the arguments")
}

func TestAuthHookPanicIsARejection(t *testing.T) {
	hook := func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(http.ResponseWriter, *http.Request) { panic("auth bug") })
	}
	f := newFixture(t)
	r := do(t, f.handler(WithAuthHook(hook)), http.MethodPost, "/tools/echo/call", `{}`)
	assert.Equal(t, http.StatusUnauthorized, r.status)
	assert.JSONEq(t, `{"error":"Unauthorized"}`, r.body)
	assert.Zero(t, f.calls.Load())
}

// Mounting.

func TestMountUnderChiWithPrefix(t *testing.T) {
	f := newFixture(t)
	var mwRan atomic.Int64
	r := chi.NewRouter()
	r.Use(func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) { mwRan.Add(1); next.ServeHTTP(w, req) })
	})
	r.Get("/healthz", func(w http.ResponseWriter, _ *http.Request) { _, _ = io.WriteString(w, "ok") })
	r.Mount("/api/v1", f.handler())

	assert.Equal(t, "ok", do(t, r, http.MethodGet, "/healthz", "").body)
	assert.Equal(t, http.StatusOK, do(t, r, http.MethodGet, "/api/v1/tools", "").status)
	res := do(t, r, http.MethodPost, "/api/v1/tools/image%2Fresize/call", `{"w":1}`)
	assert.Equal(t, http.StatusOK, res.status, res.body)
	res = do(t, r, http.MethodPost, "/api/v1/tools/image/resize/call", `{"w":2}`)
	assert.Equal(t, http.StatusOK, res.status, res.body)
	assert.Equal(t, http.StatusNotFound, do(t, r, http.MethodGet, "/tools", "").status, "nothing outside the prefix")
	assert.EqualValues(t, 5, mwRan.Load())
}

func TestMountUnderServeMuxWithStripPrefix(t *testing.T) {
	f := newFixture(t)
	mux := http.NewServeMux()
	mux.Handle("/api/", http.StripPrefix("/api", f.handler()))
	assert.Equal(t, http.StatusOK, do(t, mux, http.MethodGet, "/api/tools", "").status)
	assert.Equal(t, http.StatusOK, do(t, mux, http.MethodGet, "/api/tools/image%2Fresize", "").status)
	res := do(t, mux, http.MethodPost, "/api/tools/math.add/call", `{"a":1}`)
	assert.Equal(t, http.StatusOK, res.status, res.body)
	assert.Equal(t, map[string]any{"a": 1.0}, <-f.lastArgs)
}

// Names.

func TestToolNamesWithSlashesDotsAndPercentEncoding(t *testing.T) {
	reg := NewRegistry()
	got := make(chan string, 1)
	handler := func(name string, _ map[string]any) ([]Content, bool, string, error) {
		got <- name
		return nil, false, "", nil
	}
	for _, name := range []string{"image/resize", "a.b.c", "with space", "100%", "x/call", "déjà vu", "a/b/c"} {
		reg.MustAdd(Tool{Name: name}, handler)
	}
	h := NewHandler(New(reg, reg, WithAllowExecute(true)))
	cases := []struct{ path, name string }{
		{"/tools/image/resize/call", "image/resize"},
		{"/tools/image%2Fresize/call", "image/resize"},
		{"/tools/image%2fresize/call", "image/resize"},
		{"/tools/a.b.c/call", "a.b.c"},
		{"/tools/with%20space/call", "with space"},
		{"/tools/100%25/call", "100%"},
		{"/tools/x%2Fcall/call", "x/call"},
		{"/tools/x/call/call", "x/call"},
		{"/tools/d%C3%A9j%C3%A0%20vu/call", "déjà vu"},
		{"/tools/a/b/c/call", "a/b/c"},
		{"/tools/a%2Fb/c/call", "a/b/c"},
	}
	for _, tc := range cases {
		t.Run(tc.path, func(t *testing.T) {
			r := do(t, h, http.MethodPost, tc.path, `{}`)
			require.Equal(t, http.StatusOK, r.status, r.body)
			assert.Equal(t, tc.name, <-got)
			d := do(t, h, http.MethodGet, strings.TrimSuffix(tc.path, "/call"), "")
			require.Equal(t, http.StatusOK, d.status, d.body)
			assert.Equal(t, tc.name, d.json(t)["name"])
		})
	}
}

func TestUnknownNamesAnswer404AndNothingRuns(t *testing.T) {
	f := newFixture(t)
	h := f.handler()
	for path, name := range map[string]string{
		"/tools/image%2Fresiz/call": "image/resiz",
		"/tools/../echo/call":       "../echo",
		"/tools/%2e%2e%2fecho/call": "../echo",
		"/tools//call":              "",
		"/tools/ECHO/call":          "ECHO",
		"/tools/echo%00/call":       "echo\x00",
		"/tools/%3Cscript%3E/call":  "<script>",
	} {
		r := do(t, h, http.MethodPost, path, `{}`)
		assert.Equal(t, http.StatusNotFound, r.status, path)
		assert.Equal(t, map[string]any{"error": "Tool not found: " + name}, r.json(t), path)
	}
	assert.Zero(t, f.calls.Load())
}

// Methods, sizes, headers.

func TestWrongMethodReturns405WithAllow(t *testing.T) {
	f := newFixture(t)
	h := f.handler()
	cases := []struct{ method, path, allow string }{
		{http.MethodPut, "/tools/echo/call", "POST"},
		{http.MethodDelete, "/tools/echo/call", "POST"},
		{http.MethodPatch, "/tools/echo", "GET, HEAD"},
		{http.MethodGet, "/tools/echo/call", "POST"},
		{http.MethodGet, "/tools/echo/validate", "POST"},
		{http.MethodPost, "/tools", "GET, HEAD"},
		{http.MethodDelete, "/tools", "GET, HEAD"},
		{http.MethodPost, "/tools/echo", "GET, HEAD"},
	}
	for _, tc := range cases {
		r := do(t, h, tc.method, tc.path, `{}`)
		assert.Equal(t, http.StatusMethodNotAllowed, r.status, "%s %s", tc.method, tc.path)
		assert.Equal(t, tc.allow, r.header.Get("Allow"), "%s %s", tc.method, tc.path)
		assert.JSONEq(t, `{"error":"Method not allowed"}`, r.body)
	}
	assert.Zero(t, f.calls.Load())
}

func TestOversizedBodyReturns413AndToolNeverRuns(t *testing.T) {
	f := newFixture(t)
	h := f.handler(WithMaxBodyBytes(64))
	big := `{"msg":"` + strings.Repeat("x", 100) + `"}`

	r := do(t, h, http.MethodPost, "/tools/echo/call", big) // with Content-Length
	assert.Equal(t, http.StatusRequestEntityTooLarge, r.status)
	assert.JSONEq(t, `{"error":"Request body too large: the limit is 64 bytes"}`, r.body)

	req := httptest.NewRequest(http.MethodPost, "/tools/echo/call", io.MultiReader(strings.NewReader(big))) // chunked: no length
	req.ContentLength = -1
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	assert.Equal(t, http.StatusRequestEntityTooLarge, rec.Code)

	assert.Zero(t, f.calls.Load())
	assert.Equal(t, http.StatusOK, do(t, h, http.MethodPost, "/tools/echo/call", `{"msg":"small"}`).status)
}

func TestGateAndLookupAnswerBeforeTheBodyIsRead(t *testing.T) {
	f := newFixture(t)
	big := `{"msg":"` + strings.Repeat("x", 100) + `"}`
	disabled := f.handler(WithMaxBodyBytes(16), WithAllowExecute(false))
	assert.Equal(t, http.StatusForbidden, do(t, disabled, http.MethodPost, "/tools/echo/call", big).status, "the gate answers first: 403")
	enabled := f.handler(WithMaxBodyBytes(16))
	assert.Equal(t, http.StatusNotFound, do(t, enabled, http.MethodPost, "/tools/nope/call", big).status, "then 404")
	assert.Equal(t, http.StatusRequestEntityTooLarge, do(t, enabled, http.MethodPost, "/tools/echo/call", big).status)
}

func TestHeadIsServedLikeGet(t *testing.T) {
	f := newFixture(t)
	srv := httptest.NewServer(f.handler())
	defer srv.Close()
	for _, path := range []string{"/tools", "/tools/echo"} {
		resp, err := http.Head(srv.URL + path)
		require.NoError(t, err)
		resp.Body.Close()
		assert.Equal(t, http.StatusOK, resp.StatusCode, path)
		assert.Equal(t, "application/json", resp.Header.Get("Content-Type"), path)
	}
}

func TestDefaultBodyLimitIsOneMiB(t *testing.T) {
	f := newFixture(t)
	h := f.handler()
	under := `{"msg":"` + strings.Repeat("x", (1<<20)-20) + `"}`
	assert.Equal(t, http.StatusOK, do(t, h, http.MethodPost, "/tools/echo/call", under).status)
	over := `{"msg":"` + strings.Repeat("x", 1<<20) + `"}`
	assert.Equal(t, http.StatusRequestEntityTooLarge, do(t, h, http.MethodPost, "/tools/echo/call", over).status)
}

func TestEveryResponseIsJSONWithNosniff(t *testing.T) {
	f := newFixture(t)
	h := f.handler()
	for _, c := range []struct{ method, path string }{
		{http.MethodGet, "/tools"}, {http.MethodGet, "/tools/echo"}, {http.MethodGet, "/tools/nope"},
		{http.MethodPost, "/tools/echo/call"}, {http.MethodPost, "/tools/nope/call"}, {http.MethodPost, "/tools/panic/call"},
		{http.MethodPut, "/tools/echo/call"}, {http.MethodGet, "/elsewhere"},
	} {
		r := do(t, h, c.method, c.path, `{}`)
		assert.Equal(t, "application/json", r.header.Get("Content-Type"), "%s %s", c.method, c.path)
		assert.Equal(t, "nosniff", r.header.Get("X-Content-Type-Options"), "%s %s", c.method, c.path)
		assert.True(t, json.Valid([]byte(r.body)), "%s %s: %s", c.method, c.path, r.body)
	}
}

func TestUnencodableResultBecomesIsError(t *testing.T) {
	reg := NewRegistry()
	reg.MustAdd(Tool{Name: "bad"}, func(string, map[string]any) ([]Content, bool, string, error) {
		return []Content{&TextContent{Text: "x", Meta: map[string]any{"ch": make(chan int)}}}, false, "", nil
	})
	h := NewHandler(New(reg, reg, WithAllowExecute(true), WithLogger(discardLogger())))
	r := do(t, h, http.MethodPost, "/tools/bad/call", `{}`)
	assert.Equal(t, http.StatusInternalServerError, r.status)
	assert.Equal(t, true, r.json(t)["isError"])
	assert.Contains(t, r.body, "result could not be encoded")
}

func TestWhereToolsAreHiddenTheHookReadsNoMoreOfTheBodyThanTheLimit(t *testing.T) {
	// Where tools are hidden, the hook runs before the REST surface has
	// read the body (an unknown tool), or after it found it over the limit
	// (a hidden tool): a hook that reads the body must still read no more
	// than the surface would.
	var most atomic.Int64
	hook := func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			n, _ := io.Copy(io.Discard, r.Body)
			if n > most.Load() {
				most.Store(n)
			}
			w.WriteHeader(http.StatusUnauthorized)
		})
	}
	f := newFixture(t)
	const limit = 64
	h := f.handler(WithAuthHook(hook), WithToolFilter(hideAll), WithMaxBodyBytes(limit))
	big := `{"msg":"` + strings.Repeat("x", 1<<20) + `"}`
	for _, tool := range []string{"nope", "echo"} {
		for _, length := range []string{"declared", "chunked"} {
			var body io.Reader = strings.NewReader(big)
			if length == "chunked" {
				body = io.MultiReader(body) // no length known
			}
			req := httptest.NewRequest(http.MethodPost, "/tools/"+tool+"/call", body)
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, req)
			assert.Equal(t, http.StatusUnauthorized, rec.Code, "%s, %s", tool, length)
			assert.LessOrEqual(t, most.Load(), int64(limit), "%s, %s: the hook read %d bytes", tool, length, most.Load())
			most.Store(0)
		}
	}
}
