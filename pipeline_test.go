package toolexec

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestCallFailuresNameTheirStage(t *testing.T) {
	f := newFixture(t)
	deny := func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusForbidden) })
	}
	cases := []struct {
		name  string
		x     *Executor
		req   CallRequest
		stage Stage
		code  Code
		msg   string
	}{
		{"gate", New(f.reg, f.reg), CallRequest{Name: "echo"}, StageGate, CodeExecutionDisabled, "Tool execution is disabled."},
		{"resolve", New(f.reg, f.reg, WithAllowExecute(true)), CallRequest{Name: "nope"}, StageResolve, CodeNotFound, "Tool not found: nope"},
		{"resolve version", New(f.reg, f.reg, WithAllowExecute(true)), CallRequest{Name: "echo", Version: "9.0.0"}, StageResolve, CodeNotFound, "Tool not found: echo@9.0.0"},
		{"decode array", New(f.reg, f.reg, WithAllowExecute(true)), CallRequest{Name: "echo", Arguments: json.RawMessage(`[1]`)}, StageDecode, CodeInvalidArguments, "arguments must be a JSON object"},
		{"decode garbage", New(f.reg, f.reg, WithAllowExecute(true)), CallRequest{Name: "echo", Arguments: json.RawMessage(`{"a":`)}, StageDecode, CodeInvalidArguments, "arguments must be a JSON object"},
		{"auth", New(f.reg, f.reg, WithAllowExecute(true), WithAuthHook(deny), WithLogger(discardLogger())),
			CallRequest{Name: "echo", Request: httptest.NewRequest(http.MethodPost, "/", nil)}, StageAuth, CodeUnauthorized, "Unauthorized"},
		{"handler error", New(f.reg, f.reg, WithAllowExecute(true)), CallRequest{Name: "raise"}, StageExecute, CodeToolError, "database exploded"},
		{"panic", New(f.reg, f.reg, WithAllowExecute(true), WithLogger(discardLogger())), CallRequest{Name: "panic"}, StageExecute, CodePanic, PanicMessage},
		{"panic with details", New(f.reg, f.reg, WithAllowExecute(true), WithPanicDetails(true), WithLogger(discardLogger())), CallRequest{Name: "panic"}, StageExecute, CodePanic, "boom"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			res, err := tc.x.Call(context.Background(), tc.req)
			assert.Nil(t, res)
			e, ok := AsError(err)
			require.True(t, ok, "every failure is an *Error: %v", err)
			assert.Equal(t, tc.stage, e.Stage)
			assert.Equal(t, tc.code, e.Code)
			assert.Equal(t, tc.msg, e.Message)
			assert.Equal(t, "toolexec: "+string(tc.stage)+": "+tc.msg, e.Error())
		})
	}
	assert.EqualValues(t, 3, f.calls.Load(), "only the handler-error and panic cases reached a handler")
}

func TestCallInProcessSkipsAuthHookAndHasNoRequest(t *testing.T) {
	hookRan := false
	hook := func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(http.ResponseWriter, *http.Request) { hookRan = true })
	}
	var sawRequest *http.Request
	var sawCall *Call
	reg := NewRegistry()
	reg.MustAdd(Tool{Name: "t"}, func(ctx context.Context, _ string, args map[string]any) ([]Content, bool, string, error) {
		sawRequest, sawCall = RequestFromContext(ctx), CallFromContext(ctx)
		return []Content{Text("ok")}, false, "", nil
	})
	x := New(reg, reg, WithAllowExecute(true), WithAuthHook(hook))
	res, err := x.Call(context.Background(), CallRequest{Name: "t", Arguments: json.RawMessage(`{"k":1}`)})
	require.NoError(t, err)
	assert.Equal(t, "ok", res.Text())
	assert.False(t, hookRan)
	assert.Nil(t, sawRequest)
	require.NotNil(t, sawCall)
	assert.Equal(t, SurfaceGo, sawCall.Surface)
	assert.Equal(t, map[string]any{"k": 1.0}, sawCall.Arguments)
}

func TestHandlerStoppingForCancellationIsCodeCanceled(t *testing.T) {
	f := newFixture(t)
	x := New(f.reg, f.reg, WithAllowExecute(true))
	ctx, cancel := context.WithCancel(context.Background())
	go func() { <-f.started; cancel() }()
	_, err := x.Call(ctx, CallRequest{Name: "slow"})
	e, ok := AsError(err)
	require.True(t, ok)
	assert.Equal(t, StageExecute, e.Stage)
	assert.Equal(t, CodeCanceled, e.Code)
	assert.ErrorIs(t, err, context.Canceled)
}

func TestReadArgumentsRunsOnlyAfterGateAndLookup(t *testing.T) {
	f := newFixture(t)
	read := 0
	req := func(name string) CallRequest {
		return CallRequest{Name: name, readArguments: func() (json.RawMessage, error) { read++; return json.RawMessage(`{"msg":"lazy"}`), nil }}
	}
	_, err := New(f.reg, f.reg).Call(context.Background(), req("echo"))
	require.Error(t, err)
	_, err = New(f.reg, f.reg, WithAllowExecute(true)).Call(context.Background(), req("nope"))
	require.Error(t, err)
	assert.Zero(t, read)
	res, err := New(f.reg, f.reg, WithAllowExecute(true)).Call(context.Background(), req("echo"))
	require.NoError(t, err)
	assert.Equal(t, `{"msg":"lazy"}`, res.Text())
	assert.Equal(t, 1, read)

	_, err = New(f.reg, f.reg, WithAllowExecute(true)).Call(context.Background(), CallRequest{Name: "echo",
		readArguments: func() (json.RawMessage, error) { return nil, errors.New("connection reset") }})
	e, _ := AsError(err)
	require.NotNil(t, e)
	assert.Equal(t, StageDecode, e.Stage)
	assert.ErrorContains(t, err, "could not read arguments")
}

func TestHandlerIsErrorResultIsNotAFailedCall(t *testing.T) {
	f := newFixture(t)
	res, err := New(f.reg, f.reg, WithAllowExecute(true)).Call(context.Background(), CallRequest{Name: "logic-error"})
	require.NoError(t, err)
	assert.True(t, res.IsError)
	assert.Equal(t, "city not found", res.Text())
	assert.Equal(t, "trace-2", res.TraceID())
}

func TestToolErrorIsReachableThroughTheCallError(t *testing.T) {
	reg := NewRegistry()
	want := &ToolError{Message: "doorbell not found", DeveloperMessage: "no doorbell1", CanRetry: true, RetryAfter: 500 * time.Millisecond}
	reg.MustAdd(Tool{Name: "ring"}, func(string, map[string]any) ([]Content, bool, string, error) { return nil, false, "", want })
	_, err := New(reg, reg, WithAllowExecute(true)).Call(context.Background(), CallRequest{Name: "ring"})
	var te *ToolError
	require.ErrorAs(t, err, &te)
	assert.Same(t, want, te)
	e, _ := AsError(err)
	assert.Equal(t, "doorbell not found", e.Message)
}

func TestInterceptorsRunInOrderAndSeeTheOutcome(t *testing.T) {
	var trace []string
	mark := func(name string) Interceptor {
		return func(next CallFunc) CallFunc {
			return func(ctx context.Context, c *Call) (*CallToolResult, error) {
				trace = append(trace, name+">")
				res, err := next(ctx, c)
				trace = append(trace, "<"+name+":"+res.Text())
				return res, err
			}
		}
	}
	reg := NewRegistry()
	reg.MustAdd(Tool{Name: "t", Options: ToolOptions{Interceptors: []Interceptor{mark("tool")}}},
		func(string, map[string]any) ([]Content, bool, string, error) {
			trace = append(trace, "handler")
			return []Content{Text("out")}, false, "", nil
		})
	x := New(reg, reg, WithAllowExecute(true), WithInterceptors(mark("a"), mark("b")))
	_, err := x.Call(context.Background(), CallRequest{Name: "t"})
	require.NoError(t, err)
	assert.Equal(t, []string{"a>", "b>", "tool>", "handler", "<tool:out", "<b:out", "<a:out"}, trace)
}

func TestInterceptorCanReplaceArgumentsAndShortCircuit(t *testing.T) {
	f := newFixture(t)
	rewrite := func(next CallFunc) CallFunc {
		return func(ctx context.Context, c *Call) (*CallToolResult, error) {
			c.Arguments = map[string]any{"msg": strings.ToUpper(c.Arguments["msg"].(string))}
			return next(ctx, c)
		}
	}
	x := New(f.reg, f.reg, WithAllowExecute(true), WithInterceptors(rewrite))
	res, err := x.Call(context.Background(), CallRequest{Name: "echo", Arguments: json.RawMessage(`{"msg":"hi"}`)})
	require.NoError(t, err)
	assert.Equal(t, `{"msg":"HI"}`, res.Text())

	block := func(next CallFunc) CallFunc {
		return func(context.Context, *Call) (*CallToolResult, error) { return ErrorResult("blocked"), nil }
	}
	before := f.calls.Load()
	res, err = New(f.reg, f.reg, WithAllowExecute(true), WithInterceptors(block)).Call(context.Background(), CallRequest{Name: "echo"})
	require.NoError(t, err)
	assert.Equal(t, "blocked", res.Text())
	assert.Equal(t, before, f.calls.Load(), "the handler never ran")
}

func TestInterceptorPlainErrorIsReportedAsInterceptStage(t *testing.T) {
	f := newFixture(t)
	cause := errors.New("quota exceeded")
	fail := func(next CallFunc) CallFunc {
		return func(context.Context, *Call) (*CallToolResult, error) { return nil, cause }
	}
	_, err := New(f.reg, f.reg, WithAllowExecute(true), WithInterceptors(fail)).Call(context.Background(), CallRequest{Name: "echo"})
	e, ok := AsError(err)
	require.True(t, ok)
	assert.Equal(t, StageIntercept, e.Stage)
	assert.Equal(t, CodeInternal, e.Code)
	assert.ErrorIs(t, err, cause)

	r := do(t, NewHandler(New(f.reg, f.reg, WithAllowExecute(true), WithInterceptors(fail))), http.MethodPost, "/tools/echo/call", `{}`)
	assert.Equal(t, http.StatusInternalServerError, r.status)
	assert.JSONEq(t, `{"content":[{"type":"text","text":"quota exceeded"}],"isError":true}`, r.body)
}

func TestNilResultFromInterceptorIsAnEmptyResult(t *testing.T) {
	f := newFixture(t)
	empty := func(next CallFunc) CallFunc {
		return func(context.Context, *Call) (*CallToolResult, error) { return nil, nil }
	}
	res, err := New(f.reg, f.reg, WithAllowExecute(true), WithInterceptors(empty)).Call(context.Background(), CallRequest{Name: "echo"})
	require.NoError(t, err)
	require.NotNil(t, res)
	assert.False(t, res.IsError)
	assert.Empty(t, res.Content)
}

func TestUnavailableErrorMapsTo503WithRetryAfter(t *testing.T) {
	f := newFixture(t)
	busy := func(next CallFunc) CallFunc {
		return func(context.Context, *Call) (*CallToolResult, error) {
			return nil, &Error{Stage: StageLimit, Code: CodeUnavailable, Message: "too many calls", RetryAfter: 1500 * time.Millisecond}
		}
	}
	r := do(t, NewHandler(New(f.reg, f.reg, WithAllowExecute(true), WithInterceptors(busy))), http.MethodPost, "/tools/echo/call", `{}`)
	assert.Equal(t, http.StatusServiceUnavailable, r.status)
	assert.Equal(t, "2", r.header.Get("Retry-After"), "rounded up to whole seconds")
	assert.JSONEq(t, `{"content":[{"type":"text","text":"too many calls"}],"isError":true}`, r.body)
}

func TestValidationErrorMapsTo422WithFailures(t *testing.T) {
	f := newFixture(t)
	invalid := func(next CallFunc) CallFunc {
		return func(context.Context, *Call) (*CallToolResult, error) {
			return nil, &Error{Stage: StageValidate, Code: CodeInvalidArguments, Message: "invalid arguments",
				Failures: []ValidationFailure{{Path: "/city", Message: "missing property", Keyword: "required"}, {Path: "", Message: "too many properties", Keyword: "maxProperties"}}}
		}
	}
	r := do(t, NewHandler(New(f.reg, f.reg, WithAllowExecute(true), WithInterceptors(invalid))), http.MethodPost, "/tools/echo/call", `{}`)
	assert.Equal(t, http.StatusUnprocessableEntity, r.status)
	assert.JSONEq(t, `{"content":[{"type":"text","text":"/city: missing property\n(root): too many properties"}],`+
		`"structuredContent":{"errors":[{"path":"/city","message":"missing property","keyword":"required"},{"path":"","message":"too many properties","keyword":"maxProperties"}]},"isError":true}`, r.body)
}

func TestHandlerFormsAreToldApartByType(t *testing.T) {
	ctxForm := ToolCallHandlerFunc(func(ctx context.Context, name string, _ map[string]any) ([]Content, bool, string, error) {
		return []Content{Text("ctx:" + name)}, false, "", nil
	})
	basicForm := BasicToolCallHandlerFunc(func(name string, _ map[string]any) ([]Content, bool, string, error) {
		return []Content{Text("basic:" + name)}, false, "", nil
	})
	cases := map[string]struct {
		h    any
		want string
	}{
		"ToolCallHandler":                  {ctxForm, "ctx:t"},
		"BasicToolCallHandler":             {basicForm, "basic:t"},
		"plain three-parameter func":       {(func(context.Context, string, map[string]any) ([]Content, bool, string, error))(ctxForm), "ctx:t"},
		"plain two-parameter func":         {(func(string, map[string]any) ([]Content, bool, string, error))(basicForm), "basic:t"},
		"struct with two-parameter method": {basicStruct{}, "struct:t"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			x := New(StaticTools{{Name: "t"}}, tc.h, WithAllowExecute(true))
			res, err := x.Call(context.Background(), CallRequest{Name: "t"})
			require.NoError(t, err)
			assert.Equal(t, tc.want, res.Text())
		})
	}
}

type basicStruct struct{}

func (basicStruct) HandleCall(name string, _ map[string]any) ([]Content, bool, string, error) {
	return []Content{Text("struct:" + name)}, false, "", nil
}

func TestNewRejectsWhatIsNotAHandler(t *testing.T) {
	for name, h := range map[string]any{"nil": nil, "string": "handler", "wrong func": func() {}} {
		t.Run(name, func(t *testing.T) {
			_, err := asToolCallHandler(h)
			assert.Error(t, err)
			assert.Panics(t, func() { New(StaticTools{}, h) })
		})
	}
	assert.Panics(t, func() { New(nil, basicStruct{}) }, "nil provider")
}

func TestPanickingProviderFailsTheCallInsteadOfEscaping(t *testing.T) {
	provider := ToolProviderFunc(func() []Tool { panic("provider bug") })
	x := New(provider, basicStruct{}, WithAllowExecute(true), WithLogger(discardLogger()))
	res, err := x.Call(context.Background(), CallRequest{Name: "t"})
	assert.Nil(t, res)
	e, ok := AsError(err)
	require.True(t, ok)
	assert.Equal(t, StageResolve, e.Stage)
	assert.Equal(t, CodePanic, e.Code)
	assert.Equal(t, "The server failed before running the tool.", e.Message, "a panic before the auth hook is never described")
	assert.ErrorContains(t, e.Err, "provider bug", "the value is in Err, for in-process callers")

	r := do(t, NewHandler(x), http.MethodPost, "/tools/t/call", `{}`)
	assert.Equal(t, http.StatusInternalServerError, r.status)
	assert.JSONEq(t, `{"content":[{"type":"text","text":"The server failed before running the tool."}],"isError":true}`, r.body)
}

func TestPanickingReadArgumentsFailsTheDecodeStage(t *testing.T) {
	f := newFixture(t)
	x := New(f.reg, f.reg, WithAllowExecute(true), WithLogger(discardLogger()))
	_, err := x.Call(context.Background(), CallRequest{Name: "echo", readArguments: func() (json.RawMessage, error) { panic("reader bug") }})
	e, ok := AsError(err)
	require.True(t, ok)
	assert.Equal(t, StageDecode, e.Stage)
	assert.Equal(t, CodePanic, e.Code)
	assert.Zero(t, f.calls.Load())
}

func TestPerCallInterceptorsRunAfterAuthAndBeforeTheOthers(t *testing.T) {
	var trace []string
	mark := func(name string) Interceptor {
		return func(next CallFunc) CallFunc {
			return func(ctx context.Context, c *Call) (*CallToolResult, error) {
				trace = append(trace, name)
				return next(ctx, c)
			}
		}
	}
	hook := func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { trace = append(trace, "auth"); next.ServeHTTP(w, r) })
	}
	f := newFixture(t)
	x := New(f.reg, f.reg, WithAllowExecute(true), WithAuthHook(hook), WithInterceptors(mark("global")))
	_, err := x.Call(context.Background(), CallRequest{Name: "echo", Request: httptest.NewRequest(http.MethodPost, "/", nil),
		interceptors: []Interceptor{mark("per-call")}})
	require.NoError(t, err)
	assert.Equal(t, []string{"auth", "per-call", "global"}, trace)

	trace = nil
	deny := func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusUnauthorized) })
	}
	x = New(f.reg, f.reg, WithAllowExecute(true), WithAuthHook(deny), WithLogger(discardLogger()))
	_, err = x.Call(context.Background(), CallRequest{Name: "echo", Request: httptest.NewRequest(http.MethodPost, "/", nil),
		interceptors: []Interceptor{mark("per-call")}})
	require.Error(t, err)
	assert.Empty(t, trace, "a refused call never reaches the per-call interceptors")
}

func TestTraceIDFromSpanNeverWritesIntoTheHandlersResult(t *testing.T) {
	shared := &CallToolResult{Content: []Content{Text("shared")}}
	reg := NewRegistry()
	MustAddTool(reg, Tool{Name: "shared"}, func(context.Context, struct{}) (*CallToolResult, error) { return shared, nil })
	x := New(reg, reg, WithAllowExecute(true), WithObserver(&stageLog{traceID: "4bf92f3577b34da6a3ce929d0e0e4736"}))

	var wg sync.WaitGroup
	for i := 0; i < 20; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			res, err := x.Call(context.Background(), CallRequest{Name: "shared"})
			if assert.NoError(t, err) {
				assert.NotEmpty(t, res.TraceID())
			}
		}()
	}
	wg.Wait()
	assert.Nil(t, shared.Meta, "the shared value is untouched")
}

func TestNestedInProcessCallSeesTheRequestOnlyWhenHandedOn(t *testing.T) {
	reg := NewRegistry()
	var x *Executor
	seen := make(chan bool, 2)
	reg.MustAdd(Tool{Name: "inner"}, func(ctx context.Context, _ string, _ map[string]any) ([]Content, bool, string, error) {
		seen <- RequestFromContext(ctx) != nil
		return nil, false, "", nil
	})
	reg.MustAdd(Tool{Name: "outer"}, func(ctx context.Context, _ string, _ map[string]any) ([]Content, bool, string, error) {
		_, err := x.Call(ctx, CallRequest{Name: "inner"})
		require.NoError(t, err)
		_, err = x.Call(ctx, CallRequest{Name: "inner", Request: RequestFromContext(ctx)})
		require.NoError(t, err)
		return nil, false, "", nil
	})
	x = New(reg, reg, WithAllowExecute(true))
	_, err := x.Call(context.Background(), CallRequest{Name: "outer", Request: httptest.NewRequest(http.MethodPost, "/", nil)})
	require.NoError(t, err)
	assert.False(t, <-seen, "an in-process call made without a request has none")
	assert.True(t, <-seen, "unless the caller hands it on")
}
