package toolexec

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

type fastIn struct {
	A int    `json:"a"`
	B int8   `json:"b,omitempty"`
	S string `json:"s,omitempty"`
}

type fastOut struct {
	Sum int `json:"sum"`
}

// fastTool registers a typed tool that reports, through seen, the input it
// got and the Call.Arguments it saw.
func fastTool(t *testing.T, seen *[]map[string]any, ins *[]fastIn) *Registry {
	t.Helper()
	reg := NewRegistry()
	require.NoError(t, AddTool(reg, Tool{Name: "add"}, func(ctx context.Context, in fastIn) (fastOut, error) {
		*seen = append(*seen, CallFromContext(ctx).Arguments)
		*ins = append(*ins, in)
		return fastOut{Sum: in.A + int(in.B)}, nil
	}))
	return reg
}

func TestTypedFastPathDecodesWithoutTheMap(t *testing.T) {
	var seen []map[string]any
	var ins []fastIn
	reg := fastTool(t, &seen, &ins)
	x := typedExecutor(t, reg)
	require.NotNil(t, x.checkedInputFor(ptr(mustLookup(t, x, "add")), &CallRequest{}), "the fast path applies")

	res, err := x.Call(context.Background(), CallRequest{Name: "add", Arguments: json.RawMessage(`{"a": 2, "b": 3}`)})
	require.NoError(t, err)
	assert.JSONEq(t, `{"sum":5}`, string(res.StructuredContent.(json.RawMessage)))
	assert.Equal(t, []fastIn{{A: 2, B: 3}}, ins)
	assert.Nil(t, seen[0], "nothing needs the map: it is not decoded")

	// 3.0 is an integer to the schema but not to encoding/json's int8: the
	// generic path decodes it, as before.
	res, err = x.Call(context.Background(), CallRequest{Name: "add", Arguments: json.RawMessage(`{"a": 2, "b": 3.0}`)})
	require.NoError(t, err)
	assert.JSONEq(t, `{"sum":5}`, string(res.StructuredContent.(json.RawMessage)))
	assert.Equal(t, fastIn{A: 2, B: 3}, ins[1])
	assert.NotNil(t, seen[1])
}

func TestTypedFastPathRejectionsAreTheValidatorsFailures(t *testing.T) {
	var seen []map[string]any
	var ins []fastIn
	x := typedExecutor(t, fastTool(t, &seen, &ins))
	for _, args := range []string{
		`{"b": 200}`, `{"a": "x", "c": 1}`, `{"a": 1.5}`, `{"a": 1e401}`, `{"a": 1, "a": "x"}`, `[1]`, `{"a": null}`,
	} {
		_, err := x.Call(context.Background(), CallRequest{Name: "add", Arguments: json.RawMessage(args)})
		require.Error(t, err, args)
		e, _ := AsError(err)
		if args == `[1]` {
			assert.Equal(t, StageDecode, e.Stage)
			continue
		}
		require.Equal(t, StageValidate, e.Stage, args)
		res, verr := x.Validate(context.Background(), "add", "", json.RawMessage(args))
		require.NoError(t, verr)
		assert.Equal(t, res.Errors, e.Failures, args)
	}
	assert.Empty(t, ins, "no invalid input reached the handler")
}

func TestTypedFastPathKeepsTheMapForWhatReadsIt(t *testing.T) {
	hook := AuthHook(func(next http.Handler) http.Handler { return next })
	out := OutputTransform(func(_ context.Context, _ *Call, r *CallToolResult) (*CallToolResult, error) { return r, nil })
	for name, opt := range map[string]Option{
		"auth hook":          WithAuthHook(hook),
		"observed arguments": WithObserver(argumentsObserver{}),
		"output transform":   WithOutputTransforms(out),
	} {
		t.Run(name, func(t *testing.T) {
			var seen []map[string]any
			var ins []fastIn
			x := typedExecutor(t, fastTool(t, &seen, &ins), opt)
			r := httptest.NewRequest(http.MethodPost, "/", nil)
			_, err := x.Call(context.Background(), CallRequest{Name: "add", Arguments: json.RawMessage(`{"a": 2}`), Request: r})
			require.NoError(t, err)
			assert.Equal(t, map[string]any{"a": 2.0}, seen[0])
			assert.Equal(t, []fastIn{{A: 2}}, ins)
		})
	}
	t.Run("cache", func(t *testing.T) {
		var seen []map[string]any
		var ins []fastIn
		reg := NewRegistry()
		require.NoError(t, AddTool(reg, Tool{Name: "add", Options: ToolOptions{Cache: true, CacheShared: true}},
			func(ctx context.Context, in fastIn) (fastOut, error) {
				seen, ins = append(seen, CallFromContext(ctx).Arguments), append(ins, in)
				return fastOut{Sum: in.A}, nil
			}))
		x := typedExecutor(t, reg)
		for _, args := range []string{`{"a": 2}`, `{"a": 2}`, `{"a": 3}`} {
			_, err := x.Call(context.Background(), CallRequest{Name: "add", Arguments: json.RawMessage(args)})
			require.NoError(t, err)
		}
		assert.Equal(t, []fastIn{{A: 2}, {A: 3}}, ins, "the cache keys on the arguments' map")
		assert.Equal(t, map[string]any{"a": 3.0}, seen[1])
	})
}

func TestTypedFastPathStandsAsideForWhatChangesArguments(t *testing.T) {
	double := func(_ context.Context, c *Call) (map[string]any, error) {
		c.Arguments["a"] = c.Arguments["a"].(float64) * 2
		return c.Arguments, nil
	}
	ic := Interceptor(func(next CallFunc) CallFunc {
		return func(ctx context.Context, c *Call) (*CallToolResult, error) {
			c.Arguments["a"] = c.Arguments["a"].(float64) + 1
			return next(ctx, c)
		}
	})
	for name, tc := range map[string]struct {
		opt  Option
		want int
	}{
		"input transform": {WithInputTransforms(double), 4},
		"interceptor":     {WithInterceptors(ic), 3},
	} {
		t.Run(name, func(t *testing.T) {
			var seen []map[string]any
			var ins []fastIn
			x := typedExecutor(t, fastTool(t, &seen, &ins), tc.opt)
			assert.Nil(t, x.checkedInputFor(ptr(mustLookup(t, x, "add")), &CallRequest{}))
			_, err := x.Call(context.Background(), CallRequest{Name: "add", Arguments: json.RawMessage(`{"a": 2}`)})
			require.NoError(t, err)
			assert.Equal(t, tc.want, ins[0].A)
		})
	}
	t.Run("call interceptor", func(t *testing.T) {
		var seen []map[string]any
		var ins []fastIn
		x := typedExecutor(t, fastTool(t, &seen, &ins))
		_, err := x.SurfaceKit().Call(context.Background(), CallRequest{Name: "add", Arguments: json.RawMessage(`{"a": 2}`)}, ic)
		require.NoError(t, err)
		assert.Equal(t, 3, ins[0].A)
	})
}

func TestTypedFastPathOnlyForTheInferredSchemaWithValidationOn(t *testing.T) {
	reg := NewRegistry()
	h := func(_ context.Context, in fastIn) (fastOut, error) { return fastOut{Sum: in.A}, nil }
	require.NoError(t, AddTool(reg, Tool{Name: "host", InputSchema: json.RawMessage(`{"type":"object","properties":{"a":{"type":"integer","maximum":5}}}`)}, h))
	require.NoError(t, AddTool(reg, Tool{Name: "skip", Options: ToolOptions{SkipValidation: true}}, h))
	require.NoError(t, AddTool(reg, Tool{Name: "inferred"}, h))
	type timed struct {
		At time.Time `json:"at"`
	}
	require.NoError(t, AddTool(reg, Tool{Name: "time"}, func(_ context.Context, in timed) (fastOut, error) { return fastOut{}, nil }))
	x := typedExecutor(t, reg)
	for name, fast := range map[string]bool{"host": false, "skip": false, "inferred": true, "time": false} {
		got := x.checkedInputFor(ptr(mustLookup(t, x, name)), &CallRequest{}) != nil
		assert.Equal(t, fast, got, name)
	}
	assert.Nil(t, typedExecutor(t, reg, WithValidation(false)).checkedInputFor(ptr(mustLookup(t, x, "inferred")), &CallRequest{}))

	// The host's schema is the validator's to apply.
	_, err := x.Call(context.Background(), CallRequest{Name: "host", Arguments: json.RawMessage(`{"a": 6}`)})
	e, _ := AsError(err)
	require.NotNil(t, e)
	assert.Equal(t, "maximum", e.Failures[0].Keyword)
	// A type outside the fast path's subset keeps the generic path, format
	// assertion included.
	_, err = x.Call(context.Background(), CallRequest{Name: "time", Arguments: json.RawMessage(`{"at": "yesterday"}`)})
	e, _ = AsError(err)
	require.NotNil(t, e)
	assert.Equal(t, "format", e.Failures[0].Keyword)
}

// TestTypedFastPathAllocatesLess compares allocations, not time: the
// fast path against the same call behind a no-op interceptor, which takes
// the generic path (map, validator, second decode).
func TestTypedFastPathAllocatesLess(t *testing.T) {
	var seen []map[string]any
	var ins []fastIn
	reg := fastTool(t, &seen, &ins)
	fast := typedExecutor(t, reg)
	slow := typedExecutor(t, reg, WithInterceptors(func(next CallFunc) CallFunc { return next }))
	req := CallRequest{Name: "add", Arguments: json.RawMessage(`{"a": 2, "b": 3, "s": "x"}`)}
	ctx := context.Background()
	allocs := func(x *Executor) float64 {
		return testing.AllocsPerRun(50, func() {
			seen, ins = seen[:0], ins[:0]
			_, _ = x.Call(ctx, req)
		})
	}
	f, s := allocs(fast), allocs(slow)
	t.Logf("allocations per call: fast path %.0f, generic path %.0f", f, s)
	assert.Less(t, f, s)
}

func mustLookup(t *testing.T, x *Executor, name string) Tool {
	t.Helper()
	tool, ok := x.Lookup(name, "")
	require.True(t, ok, name)
	return tool
}

func ptr[T any](v T) *T { return &v }

// argumentsObserver observes nothing but asks for the decoded arguments
// (ArgumentsObserver), as an observer that records them does.
type argumentsObserver struct{ nopObserver }

func (argumentsObserver) ObservesArguments() bool { return true }
