package toolexecotel_test

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/codes"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	"github.com/toolexec/toolexec"
	toolexecotel "github.com/toolexec/toolexec/otel"
)

// newRecorder returns a tracer provider that keeps every ended span.
func newRecorder() (*sdktrace.TracerProvider, *tracetest.SpanRecorder) {
	sr := tracetest.NewSpanRecorder()
	return sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(sr)), sr
}

// attrs returns a span's attributes by key.
func attrs(s sdktrace.ReadOnlySpan) map[string]any {
	out := map[string]any{}
	for _, kv := range s.Attributes() {
		out[string(kv.Key)] = kv.Value.AsInterface()
	}
	return out
}

// spanNamed returns the one ended span called name.
func spanNamed(t *testing.T, spans []sdktrace.ReadOnlySpan, name string) sdktrace.ReadOnlySpan {
	t.Helper()
	var found []sdktrace.ReadOnlySpan
	for _, s := range spans {
		if s.Name() == name {
			found = append(found, s)
		}
	}
	require.Len(t, found, 1, "spans named %q among %v", name, spanNames(spans))
	return found[0]
}

func spanNames(spans []sdktrace.ReadOnlySpan) []string {
	out := make([]string, len(spans))
	for i, s := range spans {
		out[i] = s.Name()
	}
	return out
}

// allowAll is an auth hook that lets every call through.
func allowAll(next http.Handler) http.Handler { return next }

func TestTracingRecordsACallSpanWithAChildPerStage(t *testing.T) {
	tp, sr := newRecorder()
	upper := func(_ context.Context, c *toolexec.Call) (map[string]any, error) { return c.Arguments, nil }
	mark := func(_ context.Context, _ *toolexec.Call, res *toolexec.CallToolResult) (*toolexec.CallToolResult, error) {
		return res, nil
	}
	tool := toolexec.Tool{Name: "weather/get", Version: "1.2.0", Options: toolexec.ToolOptions{
		Cache: true, CacheShared: true, ConcurrencyLimit: &toolexec.ConcurrencyLimit{Max: 4},
		InputTransforms: []toolexec.InputTransform{upper}, OutputTransforms: []toolexec.OutputTransform{mark},
	}}
	x := newExec(t, tool, echoArgs, observe(toolexecotel.WithTracerProvider(tp)), toolexec.WithAuthHook(allowAll))

	r := restCall(t, x, "weather%2Fget", `{"city":"Oslo"}`)
	require.Equal(t, http.StatusOK, r.status, r.raw)

	spans := sr.Ended()
	root := spanNamed(t, spans, "execute_tool weather/get")
	assert.False(t, root.Parent().IsValid(), "the call span is a root here")
	assert.Equal(t, trace.SpanKindInternal, root.SpanKind())
	assert.Equal(t, codes.Unset, root.Status().Code)
	assert.Equal(t, map[string]any{
		"gen_ai.operation.name": "execute_tool",
		"gen_ai.tool.name":      "weather/get",
		"toolexec.tool.name":    "weather/get",
		"toolexec.tool.version": "1.2.0",
		"toolexec.surface":      "rest",
		"toolexec.outcome":      "success",
		"toolexec.cache.hit":    false,
	}, attrs(root))

	wantChildren := []string{"toolexec.auth", "toolexec.limit", "toolexec.transform", "toolexec.cache", "toolexec.execute", "toolexec.transform"}
	var children []string
	for _, s := range spans {
		if s.SpanContext().SpanID() == root.SpanContext().SpanID() {
			continue
		}
		assert.Equal(t, root.SpanContext().SpanID(), s.Parent().SpanID(), "%s is a child of the call span", s.Name())
		assert.Equal(t, root.SpanContext().TraceID(), s.SpanContext().TraceID())
		children = append(children, s.Name())
		stage := strings.TrimPrefix(s.Name(), "toolexec.")
		assert.Equal(t, stage, attrs(s)["toolexec.stage"], "%s names its stage", s.Name())
	}
	assert.Equal(t, wantChildren, children, "children in the order they end")
	transforms := []string{}
	for _, s := range spans {
		if s.Name() == "toolexec.transform" {
			transforms = append(transforms, attrs(s)["toolexec.transform.direction"].(string))
		}
	}
	assert.Equal(t, []string{"input", "output"}, transforms)
	assert.Equal(t, int64(4), attrs(spanNamed(t, spans, "toolexec.limit"))["toolexec.limit.max"])
	assert.Equal(t, false, attrs(spanNamed(t, spans, "toolexec.cache"))["toolexec.cache.hit"])
}

func TestTracingMarksCacheHits(t *testing.T) {
	tp, sr := newRecorder()
	x := newExec(t, cachedTool("c"), textHandler("x"), observe(toolexecotel.WithTracerProvider(tp)))
	_, err := call(x, "c", `{}`)
	require.NoError(t, err)
	sr.Reset()

	_, err = call(x, "c", `{}`)

	require.NoError(t, err)
	spans := sr.Ended()
	assert.Equal(t, []string{"toolexec.cache", "execute_tool c"}, spanNames(spans), "a hit never executes")
	assert.Equal(t, true, attrs(spans[0])["toolexec.cache.hit"])
	assert.Equal(t, true, attrs(spans[1])["toolexec.cache.hit"])
}

func TestTracingRecordsFailuresWithStageAndErrorType(t *testing.T) {
	tests := []struct {
		name      string
		x         func(t *testing.T, tp trace.TracerProvider) *toolexec.Executor
		tool      string
		spanName  string
		stage     string
		errorType string
	}{
		{"unknown tool", func(t *testing.T, tp trace.TracerProvider) *toolexec.Executor {
			return newExec(t, toolexec.Tool{Name: "t"}, echoArgs, observe(toolexecotel.WithTracerProvider(tp)))
		}, "nope", "execute_tool", "resolve", "not_found"},
		{"gate closed", func(t *testing.T, tp trace.TracerProvider) *toolexec.Executor {
			reg := toolexec.NewRegistry()
			reg.MustAdd(toolexec.Tool{Name: "t"}, echoArgs)
			return toolexec.New(reg, reg, observe(toolexecotel.WithTracerProvider(tp)))
		}, "t", "execute_tool", "gate", "execution_disabled"},
		{"timeout", func(t *testing.T, tp trace.TracerProvider) *toolexec.Executor {
			return newExec(t, toolexec.Tool{Name: "t"}, cooperative, observe(toolexecotel.WithTracerProvider(tp)), toolexec.WithTimeout(time.Millisecond))
		}, "t", "execute_tool t", "timeout", "timeout"},
		{"panic", func(t *testing.T, tp trace.TracerProvider) *toolexec.Executor {
			h := func(context.Context, string, map[string]any) ([]toolexec.Content, bool, string, error) { panic("boom") }
			return newExec(t, toolexec.Tool{Name: "t"}, h, observe(toolexecotel.WithTracerProvider(tp)), toolexec.WithLogger(discard()))
		}, "t", "execute_tool t", "execute", "panic"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tp, sr := newRecorder()
			x := tt.x(t, tp)

			_, err := call(x, tt.tool, `{}`)
			require.Error(t, err)

			root := spanNamed(t, sr.Ended(), tt.spanName)
			a := attrs(root)
			assert.Equal(t, "error", a["toolexec.outcome"])
			assert.Equal(t, tt.stage, a["toolexec.stage"])
			assert.Equal(t, tt.errorType, a["error.type"])
			assert.Equal(t, codes.Error, root.Status().Code)
			e, _ := toolexec.AsError(err)
			assert.Equal(t, e.Message, root.Status().Description)
		})
	}
}

func TestTracingRecordsIsErrorResultsAsToolErrors(t *testing.T) {
	tp, sr := newRecorder()
	h := func(context.Context, string, map[string]any) ([]toolexec.Content, bool, string, error) {
		return []toolexec.Content{toolexec.Text("no")}, true, "", nil
	}
	x := newExec(t, toolexec.Tool{Name: "t"}, h, observe(toolexecotel.WithTracerProvider(tp)))

	_, err := call(x, "t", `{}`)

	require.NoError(t, err)
	root := spanNamed(t, sr.Ended(), "execute_tool t")
	assert.Equal(t, "tool_error", attrs(root)["toolexec.outcome"])
	assert.Equal(t, "tool_error", attrs(root)["error.type"])
	assert.Equal(t, codes.Error, root.Status().Code)
	assert.Equal(t, codes.Error, spanNamed(t, sr.Ended(), "toolexec.execute").Status().Code)
}

func TestTracingNeverRecordsArgumentsByDefault(t *testing.T) {
	tp, sr := newRecorder()
	x := newExec(t, toolexec.Tool{Name: "t"}, echoArgs, observe(toolexecotel.WithTracerProvider(tp)))

	_, err := call(x, "t", `{"city":"Reykjavik-unique-value"}`)

	require.NoError(t, err)
	for _, s := range sr.Ended() {
		for _, kv := range s.Attributes() {
			assert.NotContains(t, kv.Value.String(), "Reykjavik-unique-value", "%s on %s", kv.Key, s.Name())
		}
		_, has := attrs(s)["toolexec.arguments"]
		assert.False(t, has)
	}
}

func TestTraceArgumentsRedactsSecretKeys(t *testing.T) {
	tp, sr := newRecorder()
	x := newExec(t, toolexec.Tool{Name: "t"}, echoArgs, observe(toolexecotel.WithTracerProvider(tp), toolexecotel.WithTraceArguments(true)))

	_, err := call(x, "t", `{
		"city": "Oslo",
		"Password": "p1", "api_key": "k1", "accessToken": "t1", "client_secret": "s1",
		"headers": {"Authorization": "Bearer x", "accept": "json"},
		"items": [{"token": "t2", "n": 1}]
	}`)

	require.NoError(t, err)
	raw, ok := attrs(spanNamed(t, sr.Ended(), "execute_tool t"))["toolexec.arguments"].(string)
	require.True(t, ok)
	var got map[string]any
	require.NoError(t, json.Unmarshal([]byte(raw), &got))
	assert.Equal(t, map[string]any{
		"city":     "Oslo",
		"Password": "[REDACTED]", "api_key": "[REDACTED]", "accessToken": "[REDACTED]", "client_secret": "[REDACTED]",
		"headers": map[string]any{"Authorization": "[REDACTED]", "accept": "json"},
		"items":   []any{map[string]any{"token": "[REDACTED]", "n": float64(1)}},
	}, got)
}

func TestTraceArgumentsDoesNotChangeWhatTheHandlerGets(t *testing.T) {
	tp, _ := newRecorder()
	x := newExec(t, toolexec.Tool{Name: "t"}, echoArgs, observe(toolexecotel.WithTracerProvider(tp), toolexecotel.WithTraceArguments(true)))

	res, err := call(x, "t", `{"password":"p1"}`)

	require.NoError(t, err)
	assert.Equal(t, `{"password":"p1"}`, res.Text())
}

func TestTraceIDFromSpanFillsMissingTraceID(t *testing.T) {
	tp, sr := newRecorder()
	withID := func(context.Context, string, map[string]any) ([]toolexec.Content, bool, string, error) {
		return nil, false, "handler-id", nil
	}
	x := multiExec(t, func(ctx context.Context, name string, args map[string]any) ([]toolexec.Content, bool, string, error) {
		if name == "own" {
			return withID(ctx, name, args)
		}
		return nil, false, "", nil
	}, []toolexec.Tool{{Name: "none"}, {Name: "own"}}, observe(toolexecotel.WithTracerProvider(tp), toolexecotel.WithTraceIDFromSpan(true)))

	res, err := call(x, "none", `{}`)
	require.NoError(t, err)
	root := spanNamed(t, sr.Ended(), "execute_tool none")
	assert.Equal(t, root.SpanContext().TraceID().String(), res.TraceID())

	res, err = call(x, "own", `{}`)
	require.NoError(t, err)
	assert.Equal(t, "handler-id", res.TraceID(), "the handler's own id is kept")
}

func TestTraceIDFromSpanIsOffByDefault(t *testing.T) {
	tp, _ := newRecorder()
	x := newExec(t, toolexec.Tool{Name: "t"}, textHandler("x"), observe(toolexecotel.WithTracerProvider(tp)))

	res, err := call(x, "t", `{}`)

	require.NoError(t, err)
	assert.Nil(t, res.Meta)
}

func TestTracingJoinsTheCallersTraceAndReachesTheHandler(t *testing.T) {
	tp, sr := newRecorder()
	var handlerSpan trace.SpanContext
	h := func(ctx context.Context, _ string, _ map[string]any) ([]toolexec.Content, bool, string, error) {
		handlerSpan = trace.SpanContextFromContext(ctx)
		return nil, false, "", nil
	}
	x := newExec(t, toolexec.Tool{Name: "t"}, h, observe(toolexecotel.WithTracerProvider(tp)))
	ctx, parent := tp.Tracer("test").Start(context.Background(), "caller")

	_, err := x.Call(ctx, toolexec.CallRequest{Name: "t"})
	parent.End()

	require.NoError(t, err)
	root := spanNamed(t, sr.Ended(), "execute_tool t")
	exec := spanNamed(t, sr.Ended(), "toolexec.execute")
	assert.Equal(t, parent.SpanContext().SpanID(), root.Parent().SpanID())
	assert.Equal(t, exec.SpanContext(), handlerSpan, "the handler runs in the execute span")
}

func TestTracingDefaultsToTheGlobalProviderAndNeverSetsIt(t *testing.T) {
	before := otel.GetTracerProvider()
	x := newExec(t, toolexec.Tool{Name: "t"}, textHandler("x"), observe(toolexecotel.WithTraceIDFromSpan(true)))

	res, err := call(x, "t", `{}`)

	require.NoError(t, err)
	assert.Same(t, before, otel.GetTracerProvider())
	assert.Nil(t, res.Meta, "the global no-op provider has no trace id to give")
}

// TestTraceArgumentsOfATypedTool: a typed tool's arguments, which the
// pipeline would otherwise decode straight into its Go type, still reach
// the span when WithTraceArguments is on.
func TestTraceArgumentsOfATypedTool(t *testing.T) {
	tp, sr := newRecorder()
	reg := toolexec.NewRegistry()
	type in struct {
		A int `json:"a"`
		B int `json:"b"`
	}
	type out struct {
		Sum int `json:"sum"`
	}
	toolexec.MustAddTool(reg, toolexec.Tool{Name: "add"}, func(_ context.Context, v in) (out, error) { return out{v.A + v.B}, nil })
	x := toolexec.New(reg, reg, toolexec.WithAllowExecute(true),
		observe(toolexecotel.WithTracerProvider(tp), toolexecotel.WithTraceArguments(true)))
	_, err := x.Call(context.Background(), toolexec.CallRequest{Name: "add", Arguments: json.RawMessage(`{"a":2,"b":40}`)})
	require.NoError(t, err)
	raw, ok := attrs(spanNamed(t, sr.Ended(), "execute_tool add"))["toolexec.arguments"].(string)
	require.True(t, ok, "the arguments are on the span")
	assert.JSONEq(t, `{"a":2,"b":40}`, raw)
}
