package toolexec

import (
	"context"
	"encoding/json"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestArgumentsRejectTrailingData(t *testing.T) {
	for _, raw := range []string{`{"a":1} x`, `{"a":1}{"b":2}`, `{"a":1`, `[1]`, `"s"`} {
		_, err := decodeArguments(json.RawMessage(raw))
		e, ok := AsError(err)
		require.True(t, ok, raw)
		assert.Equal(t, StageDecode, e.Stage, raw)
	}
}

type bigIn struct {
	N int64   `json:"n"`
	U uint64  `json:"u,omitempty"`
	F float64 `json:"f,omitempty"`
}

func TestTypedToolGetsLargeIntegersExactly(t *testing.T) {
	reg := NewRegistry()
	got := make(chan bigIn, 1)
	MustAddTool(reg, Tool{Name: "big"}, func(_ context.Context, in bigIn) (bigIn, error) { got <- in; return in, nil })
	h := NewHandler(New(reg, reg, WithAllowExecute(true)))

	r := do(t, h, http.MethodPost, "/tools/big/call", `{"n":9007199254740993,"u":18446744073709551615,"f":0.1}`)
	require.Equal(t, http.StatusOK, r.status, r.body)
	assert.Equal(t, bigIn{N: 9007199254740993, U: 18446744073709551615, F: 0.1}, <-got)
	assert.Contains(t, r.body, `"n":9007199254740993`, "and back out, unrounded")
}

func TestHugeNumberIsAValidArgumentOverREST(t *testing.T) {
	f := newFixture(t)
	r := do(t, f.handler(), http.MethodPost, "/tools/echo/call", `{"n":1e400,"id":123456789012345678901234567890}`)
	require.Equal(t, http.StatusOK, r.status, r.body)
	assert.Equal(t, map[string]any{"n": json.Number("1e400"), "id": json.Number("123456789012345678901234567890")}, <-f.lastArgs)
}

func TestTypedToolSeesArgumentsChangedInPlace(t *testing.T) {
	reg := NewRegistry()
	got := make(chan bigIn, 1)
	MustAddTool(reg, Tool{Name: "big"}, func(_ context.Context, in bigIn) (bigIn, error) { got <- in; return in, nil })
	double := func(_ context.Context, c *Call) (map[string]any, error) {
		c.Arguments["n"] = c.Arguments["n"].(float64) * 2 // in place, as transforms may
		return c.Arguments, nil
	}
	x := New(reg, reg, WithAllowExecute(true), WithInputTransforms(double))
	_, err := x.Call(context.Background(), CallRequest{Name: "big", Arguments: json.RawMessage(`{"n":21}`)})
	require.NoError(t, err)
	assert.Equal(t, int64(42), (<-got).N, "the transformed arguments, not the bytes received")
}

// The reviewer's cases against typed tools decoding from the raw bytes.

type countIn struct {
	N int `json:"n"`
}

func typedCounter(t *testing.T, schema string, handler any) (*Executor, chan countIn) {
	t.Helper()
	reg := NewRegistry()
	got := make(chan countIn, 1)
	MustAddTool(reg, Tool{Name: "c", InputSchema: json.RawMessage(schema)}, func(_ context.Context, in countIn) (countIn, error) {
		got <- in
		return in, nil
	})
	if handler == nil {
		handler = reg
	}
	return New(reg, handler, WithAllowExecute(true)), got
}

func TestTypedToolGetsTheValidatedValueNotACaseVariant(t *testing.T) {
	// A hand-written schema without additionalProperties: "N" is not
	// checked, and encoding/json would match it to the field n.
	x, got := typedCounter(t, `{"type":"object","properties":{"n":{"type":"integer","minimum":0}},"required":["n"]}`, nil)
	_, err := x.Call(context.Background(), CallRequest{Name: "c", Arguments: json.RawMessage(`{"n":5,"N":-1}`)})
	require.NoError(t, err)
	assert.Equal(t, 5, (<-got).N, "the value validation checked")
}

func TestTypedToolTakesIntegersSpelledAsDecimals(t *testing.T) {
	x, got := typedCounter(t, "", nil)
	for _, spelled := range []string{"2.0", "2e0", "20e-1"} {
		_, err := x.Call(context.Background(), CallRequest{Name: "c", Arguments: json.RawMessage(`{"n":` + spelled + `}`)})
		require.NoError(t, err, spelled)
		assert.Equal(t, 2, (<-got).N, spelled)
	}
}

func TestTypedToolWithEmptyOrNullArguments(t *testing.T) {
	reg := NewRegistry()
	got := make(chan *struct{}, 1)
	MustAddTool(reg, Tool{Name: "p"}, func(_ context.Context, in *struct{}) (struct{}, error) { got <- in; return struct{}{}, nil })
	x := New(reg, reg, WithAllowExecute(true))
	for _, raw := range []string{"", "  ", "null"} {
		_, err := x.Call(context.Background(), CallRequest{Name: "p", Arguments: json.RawMessage(raw)})
		require.NoError(t, err, "%q", raw)
		assert.NotNil(t, <-got, "%q arrives as {}", raw)
	}
}

func TestTypedToolSeesArgumentsAHostHandlerChanged(t *testing.T) {
	var reg *Registry
	wrapper := ToolCallHandlerFunc(func(ctx context.Context, name string, args map[string]any) ([]Content, bool, string, error) {
		args["n"] = 42.0 // in place, before handing the call on
		return reg.HandleCall(ctx, name, args)
	})
	reg = NewRegistry()
	got := make(chan countIn, 1)
	MustAddTool(reg, Tool{Name: "c"}, func(_ context.Context, in countIn) (countIn, error) { got <- in; return in, nil })
	x := New(reg, wrapper, WithAllowExecute(true))
	_, err := x.Call(context.Background(), CallRequest{Name: "c", Arguments: json.RawMessage(`{"n":1}`)})
	require.NoError(t, err)
	assert.Equal(t, 42, (<-got).N)
}
