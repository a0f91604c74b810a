package toolexec

import (
	"context"
	"encoding/json"
	"reflect"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/toolexec/toolexec/internal/typedargs"
)

// The In types the differential fuzz target checks: every integer size,
// unsigned integers, floats, strings, bools, slices, arrays, nested structs,
// pointers, omitempty and required fields.
type (
	fzInner struct {
		S string `json:"s"`
		N *int16 `json:"n,omitempty"`
	}
	fzNumbers struct {
		I   int     `json:"i"`
		I8  int8    `json:"i8,omitempty"`
		I16 int16   `json:"i16,omitempty"`
		I32 int32   `json:"i32,omitempty"`
		I64 int64   `json:"i64,omitempty"`
		U   uint    `json:"u,omitempty"`
		U8  uint8   `json:"u8,omitempty"`
		U16 uint16  `json:"u16,omitempty"`
		U32 uint32  `json:"u32,omitempty"`
		U64 uint64  `json:"u64,omitempty"`
		F32 float32 `json:"f32,omitempty"`
		F64 float64 `json:"f64,omitempty"`
	}
	fzShapes struct {
		S    string     `json:"s"`
		B    bool       `json:"b,omitempty"`
		L    []int32    `json:"l,omitempty"`
		A    [2]bool    `json:"a,omitempty"`
		O    fzInner    `json:"o,omitempty"`
		P    *fzInner   `json:"p"`
		PL   []*fzInner `json:"pl,omitempty"`
		PS   *string    `json:"ps,omitzero"`
		Name string
		M    [][]uint16 `json:"m,omitempty"`
	}
	fzAdd struct {
		A int `json:"a"`
		B int `json:"b"`
	}
)

// fzCase is one In type under the differential fuzz target.
type fzCase struct {
	name   string
	plan   *typedargs.Plan
	schema *compiledSchema
	// decode decodes raw the way the fast path does, and args the way the
	// generic path does, each as the In value (boxed) or an error.
	fast    func(raw []byte) (any, bool)
	generic func(args map[string]any) (any, error)
	fastX   *Executor // the fast path on
	slowX   *Executor // the same tool behind a no-op interceptor: the generic path
}

func newFzCase[In any](t testing.TB, name string) fzCase {
	t.Helper()
	raw, err := objectSchemaFor(reflect.TypeFor[In](), true)
	require.NoError(t, err)
	plan, err := typedargs.For(reflect.TypeFor[In](), raw, typedargs.Bounds{MaxDigits: MaxNumberDigits, MaxExponent: MaxNumberExponent})
	require.NoError(t, err, "the fast path supports %s", name)
	sch, err := compileSchema(raw)
	require.NoError(t, err)
	reg := NewRegistry()
	require.NoError(t, AddTool(reg, Tool{Name: name}, func(_ context.Context, in In) (*In, error) { return &in, nil }))
	opts := []Option{WithAllowExecute(true), WithLogger(discardLogger())}
	noop := func(next CallFunc) CallFunc { return next }
	return fzCase{
		name: name, plan: plan, schema: &compiledSchema{schema: sch},
		fast: func(raw []byte) (any, bool) { return typedargs.Decode[In](plan, raw) },
		generic: func(args map[string]any) (any, error) {
			return decodeTyped[In](args)
		},
		fastX: New(reg, reg, opts...),
		slowX: New(reg, reg, append(opts, WithInterceptors(noop))...),
	}
}

func fzCases(t testing.TB) []fzCase {
	return []fzCase{
		newFzCase[fzNumbers](t, "numbers"),
		newFzCase[*fzShapes](t, "shapes"),
		newFzCase[fzAdd](t, "add"),
	}
}

// checkDifferential asserts, for one input, that the fast path and the
// generic path agree.
func checkDifferential(t *testing.T, c fzCase, raw []byte) {
	// 1. The checker against the validator: the checker accepts only what
	// the validator accepts, and everything the validator accepts once
	// re-encoded without duplicate keys, escaped keys or an empty body (the
	// inputs the checker leaves to the generic path).
	accepted := c.plan.Check(raw)
	args, derr := decodeArguments(raw)
	valid := false
	if derr == nil {
		v, err := jsonValue(args)
		require.NoError(t, err)
		fs, omitted := validateValue(c.schema.schema, v)
		valid = len(fs) == 0 && omitted == 0
	}
	if accepted {
		require.True(t, valid, "%s: the checker accepts %q, which the validator refuses", c.name, raw)
	}
	if valid {
		again, err := json.Marshal(args)
		require.NoError(t, err)
		require.True(t, c.plan.Check(again), "%s: the checker refuses %s (from %q), which the validator accepts", c.name, again, raw)
	}
	// 2. The decoded In: the same as the generic path's.
	if in, ok := c.fast(raw); ok {
		require.True(t, accepted)
		want, err := c.generic(args)
		require.NoError(t, err, "%s: %q", c.name, raw)
		require.Equal(t, want, in, "%s: %q", c.name, raw)
	}
	// 3. The whole call: the same result, or the same failure (stage, code,
	// message, failures and their paths, keywords and wording).
	ctx := context.Background()
	req := CallRequest{Name: c.name, Arguments: raw}
	fres, ferr := c.fastX.Call(ctx, req)
	sres, serr := c.slowX.Call(ctx, req)
	if serr != nil {
		require.Error(t, ferr, "%s: %q", c.name, raw)
		fe, _ := AsError(ferr)
		se, _ := AsError(serr)
		require.Equal(t, se.Stage, fe.Stage)
		require.Equal(t, se.Code, fe.Code)
		require.Equal(t, se.Message, fe.Message)
		require.Equal(t, se.Failures, fe.Failures)
		require.Equal(t, se.Omitted, fe.Omitted)
		return
	}
	require.NoError(t, ferr, "%s: %q", c.name, raw)
	require.Equal(t, sres, fres, "%s: %q", c.name, raw)
}

// FuzzTypedArgs is the differential fuzz target of the typed fast path:
// for random arguments, the strict checker and decoder of internal/typedargs
// against the generic validator and decoding, and a whole call with the
// fast path against the same call on the generic path. The seed corpus
// (testdata/fuzz/FuzzTypedArgs) replays in every plain test run.
func FuzzTypedArgs(f *testing.F) {
	for _, s := range []string{
		`{"a":1,"b":2}`, `{"a":1.0,"b":2e0}`, `{"a":1,"a":2,"b":3}`, `{"a":1}`, `{"a":1,"b":2,"c":3}`,
		`{"A":1,"b":2}`, `{"\u0061":1,"b":2}`, `null`, ``, `[]`, `{"a":1,"b":2} x`, `{"a":1e401,"b":2}`,
		`{"i":0,"i8":-129,"u":-1,"u8":256,"f32":1e39,"f64":1e308,"u64":18446744073709551616}`,
		`{"i":9223372036854775808}`, `{"i":-9223372036854775808,"i64":1.5}`, `{"i":1,"i16":32767.0,"u32":4294967295}`,
		`{"s":"x","p":null,"Name":"n"}`, `{"s":"x","p":{"s":"y","n":3},"Name":"n","a":[true,false],"l":null}`,
		`{"s":"x","p":{"s":"y"},"Name":"n","a":[true]}`, `{"s":"x","p":{"s":"y","s":"z"},"Name":"n"}`,
		`{"s":"x","p":{"s":"y"},"Name":"n","pl":[null,{"s":""}],"ps":null,"m":[[1,2],null]}`,
		`{"s":"\ud800","p":null,"Name":"\xff"}`, `{"s":"x","p":null,"name":"n"}`,
	} {
		f.Add([]byte(s))
	}
	cases := fzCases(f)
	f.Fuzz(func(t *testing.T, raw []byte) {
		for _, c := range cases {
			checkDifferential(t, c, raw)
		}
	})
}
