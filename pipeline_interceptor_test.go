package toolexec_test

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolexec/toolexec"
)

// named is an interceptor that records when it runs, before and after next.
func named(tr *trail, name string) toolexec.Interceptor {
	return func(next toolexec.CallFunc) toolexec.CallFunc {
		return func(ctx context.Context, c *toolexec.Call) (*toolexec.CallToolResult, error) {
			tr.add(name + ">")
			res, err := next(ctx, c)
			tr.add("<" + name)
			return res, err
		}
	}
}

func TestInterceptorsRunBuiltinsThenGlobalThenTool(t *testing.T) {
	tr := new(trail)
	h := func(ctx context.Context, name string, args map[string]any) ([]toolexec.Content, bool, string, error) {
		tr.add("handler")
		return nil, false, "", nil
	}
	in := func(_ context.Context, c *toolexec.Call) (map[string]any, error) {
		tr.add("input")
		return c.Arguments, nil
	}
	out := func(_ context.Context, _ *toolexec.Call, r *toolexec.CallToolResult) (*toolexec.CallToolResult, error) {
		tr.add("output")
		return r, nil
	}
	tool := toolexec.Tool{Name: "t", Options: toolexec.ToolOptions{Interceptors: []toolexec.Interceptor{named(tr, "tool-1"), named(tr, "tool-2")}}}
	x := newExec(t, tool, h, toolexec.WithInputTransforms(in), toolexec.WithOutputTransforms(out),
		toolexec.WithInterceptors(named(tr, "global-1"), named(tr, "global-2")))

	_, err := call(x, "t", `{}`)

	require.NoError(t, err)
	assert.Equal(t, []string{
		"input", "global-1>", "global-2>", "tool-1>", "tool-2>", "handler", "<tool-2", "<tool-1", "<global-2", "<global-1", "output",
	}, tr.get())
}

func TestInterceptorSeesToolArgumentsRequestAndOutcome(t *testing.T) {
	var seen struct {
		tool    string
		version string
		args    map[string]any
		surface toolexec.Surface
		user    any
		text    string
	}
	type userKey struct{}
	auth := func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), userKey{}, "ada")))
		})
	}
	spy := func(next toolexec.CallFunc) toolexec.CallFunc {
		return func(ctx context.Context, c *toolexec.Call) (*toolexec.CallToolResult, error) {
			seen.tool, seen.version, seen.args, seen.surface = c.Tool.Name, c.Tool.Version, c.Arguments, c.Surface
			seen.user = toolexec.RequestFromContext(ctx).Context().Value(userKey{})
			res, err := next(ctx, c)
			seen.text = res.Text()
			return res, err
		}
	}
	upper := func(_ context.Context, c *toolexec.Call) (map[string]any, error) {
		return map[string]any{"city": "OSLO"}, nil
	}
	x := newExec(t, toolexec.Tool{Name: "t", Version: "2.0.0"}, echoArgs,
		toolexec.WithAuthHook(auth), toolexec.WithInterceptors(spy), toolexec.WithInputTransforms(upper))

	r := restCall(t, x, "t", `{"city":"oslo"}`)

	require.Equal(t, http.StatusOK, r.status)
	assert.Equal(t, "t", seen.tool)
	assert.Equal(t, "2.0.0", seen.version)
	assert.Equal(t, map[string]any{"city": "OSLO"}, seen.args, "after the input transforms")
	assert.Equal(t, toolexec.SurfaceREST, seen.surface)
	assert.Equal(t, "ada", seen.user, "what the auth hook stored")
	assert.Equal(t, `{"city":"OSLO"}`, seen.text)
}

func TestInterceptorCanShortCircuitAndReplaceTheResult(t *testing.T) {
	ran := false
	h := func(context.Context, string, map[string]any) ([]toolexec.Content, bool, string, error) {
		ran = true
		return nil, false, "", nil
	}
	stub := func(toolexec.CallFunc) toolexec.CallFunc {
		return func(context.Context, *toolexec.Call) (*toolexec.CallToolResult, error) {
			return toolexec.NewResult([]toolexec.Content{toolexec.Text("stubbed")}, false, ""), nil
		}
	}
	x := newExec(t, toolexec.Tool{Name: "t"}, h, toolexec.WithInterceptors(stub))

	res, err := call(x, "t", `{}`)

	require.NoError(t, err)
	assert.False(t, ran)
	assert.Equal(t, "stubbed", res.Text())
}

func TestInterceptorErrorsNameTheirStage(t *testing.T) {
	plain := errors.New("quota exceeded")
	tests := []struct {
		name  string
		ic    toolexec.Interceptor
		stage toolexec.Stage
		code  toolexec.Code
		msg   string
	}{
		{"plain error", func(toolexec.CallFunc) toolexec.CallFunc {
			return func(context.Context, *toolexec.Call) (*toolexec.CallToolResult, error) { return nil, plain }
		}, toolexec.StageIntercept, toolexec.CodeInternal, "quota exceeded"},
		{"*Error kept", func(toolexec.CallFunc) toolexec.CallFunc {
			return func(context.Context, *toolexec.Call) (*toolexec.CallToolResult, error) {
				return nil, &toolexec.Error{Stage: toolexec.StageLimit, Code: toolexec.CodeUnavailable, Message: "rate limited", RetryAfter: time.Minute}
			}
		}, toolexec.StageLimit, toolexec.CodeUnavailable, "rate limited"},
		{"panic", func(toolexec.CallFunc) toolexec.CallFunc {
			return func(context.Context, *toolexec.Call) (*toolexec.CallToolResult, error) { panic("interceptor bug") }
		}, toolexec.StageIntercept, toolexec.CodePanic, toolexec.PanicMessage},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			x := newExec(t, toolexec.Tool{Name: "t"}, textHandler("x"), toolexec.WithInterceptors(tt.ic), toolexec.WithLogger(discard()))

			res, err := call(x, "t", `{}`)

			assert.Nil(t, res)
			e := requireError(t, err, tt.stage, tt.code)
			assert.Equal(t, tt.msg, e.Message)
		})
	}
}

func TestInterceptorPanicOverRESTIsAToolError(t *testing.T) {
	boom := func(toolexec.CallFunc) toolexec.CallFunc {
		return func(context.Context, *toolexec.Call) (*toolexec.CallToolResult, error) { panic("interceptor bug") }
	}
	logger, logs := newLogger(slog.LevelError)
	x := newExec(t, toolexec.Tool{Name: "t"}, textHandler("x"), toolexec.WithInterceptors(boom), toolexec.WithLogger(logger))

	r := restCall(t, x, "t", `{}`)

	assert.Equal(t, http.StatusInternalServerError, r.status)
	assert.Equal(t, toolexec.PanicMessage, resultText(t, r.body))
	assert.NotContains(t, r.raw, "goroutine", "no stack on the wire")
	logged := findLogs(t, logs, "interceptor panicked")
	require.Len(t, logged, 1)
	assert.Contains(t, logged[0]["stack"], "goroutine")
}
