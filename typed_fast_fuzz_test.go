package toolexec

import (
	"context"
	"encoding/json"
	"math/rand/v2"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/toolexec/toolexec/internal/infer"
	"github.com/toolexec/toolexec/internal/schema"
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
	schema *jsonschema.Schema
	// decode decodes raw the way the fast path does, and args the way the
	// generic path does, each as the In value (boxed) or an error.
	fast    func(raw []byte) (any, bool)
	generic func(args map[string]any) (any, error)
	fastX   *Executor // the fast path on
	slowX   *Executor // the same tool behind a no-op interceptor: the generic path
}

func newFzCase[In any](t testing.TB, name string) fzCase {
	t.Helper()
	raw, err := infer.ObjectSchema(reflect.TypeFor[In](), true)
	require.NoError(t, err)
	plan, err := typedargs.For(reflect.TypeFor[In](), raw, typedargs.Bounds{MaxDigits: MaxNumberDigits, MaxExponent: MaxNumberExponent})
	require.NoError(t, err, "the fast path supports %s", name)
	sch, err := schema.Compile(raw)
	require.NoError(t, err)
	reg := NewRegistry()
	require.NoError(t, AddTool(reg, Tool{Name: name}, func(_ context.Context, in In) (*In, error) { return &in, nil }))
	opts := []Option{WithAllowExecute(true), WithLogger(discardLogger())}
	noop := func(next CallFunc) CallFunc { return next }
	return fzCase{
		name: name, plan: plan, schema: sch,
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
		v, err := schema.JSONValue(args)
		require.NoError(t, err)
		fs, omitted := schema.Validate(c.schema, v)
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
		require.Equal(t, se.Omitted, fe.Omitted)
		if numbersOnly(se.Failures) {
			// The generic path lists numbers beyond the bounds in the
			// order it walks the arguments' map, which varies from run to
			// run (numberFailures): compare them as a set.
			require.ElementsMatch(t, se.Failures, fe.Failures)
			return
		}
		require.Equal(t, se.Message, fe.Message)
		require.Equal(t, se.Failures, fe.Failures)
		return
	}
	require.NoError(t, ferr, "%s: %q", c.name, raw)
	require.Equal(t, sres, fres, "%s: %q", c.name, raw)
}

// numbersOnly reports whether fs lists numbers beyond the bounds only.
func numbersOnly(fs []ValidationFailure) bool {
	for _, f := range fs {
		if f.Keyword != "format" || !strings.HasPrefix(f.Message, "number cannot be checked") {
			return false
		}
	}
	return len(fs) > 0
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

// TestTypedArgsRandomDifferential drives checkDifferential with arguments
// built from the In types' own field names and from values near every
// bound (integer limits, fractions, exponents, null, wrong kinds, nesting),
// which random bytes rarely reach. The generator is seeded: every run
// checks the same inputs.
func TestTypedArgsRandomDifferential(t *testing.T) {
	cases := fzCases(t)
	rng := rand.New(rand.NewPCG(11, 7))
	names := []string{"a", "b", "i", "i8", "i16", "i32", "i64", "u", "u8", "u16", "u32", "u64", "f32", "f64",
		"s", "l", "o", "p", "pl", "ps", "Name", "m", "n", "x", "A"}
	scalars := []string{"0", "-0", "1", "-1", "1.0", "1.5", "1e2", "1E-2", "-1.28e2", "127", "128", "-128", "-129",
		"255", "256", "32767", "32768", "-32769", "65535", "65536", "2147483647", "2147483648", "-2147483649",
		"4294967295", "4294967296", "9223372036854775807", "9223372036854775808", "-9223372036854775809",
		"18446744073709551615", "18446744073709551616", "3.4e38", "3.5e38", "1e308", "1e309", "1e400", "1e401",
		"0.1", "123456789012345678", "1.00000000000000000001", "true", "false", "null", `""`, `"x"`, `"\u00e9"`}
	var value func(depth int) string
	value = func(depth int) string {
		switch k := rng.IntN(10); {
		case k < 5 || depth > 3:
			return scalars[rng.IntN(len(scalars))]
		case k < 7:
			n := rng.IntN(4)
			items := make([]string, n)
			for i := range items {
				items[i] = value(depth + 1)
			}
			return "[" + strings.Join(items, ",") + "]"
		default:
			return object(rng, names, depth+1, value)
		}
	}
	types := []reflect.Type{reflect.TypeFor[fzNumbers](), reflect.TypeFor[fzShapes](), reflect.TypeFor[fzAdd]()}
	accepted := make([]int, len(cases))
	const n = 1500
	for range n {
		// Arbitrary objects from the types' names, then values shaped by
		// each type, mostly valid, sometimes off by one thing.
		raw := []byte(object(rng, names, 0, value))
		for i, c := range cases {
			checkDifferential(t, c, raw)
			shaped := []byte(shapedValue(rng, types[i], scalars))
			checkDifferential(t, c, shaped)
			if c.plan.Check(shaped) {
				accepted[i]++
			}
		}
	}
	t.Logf("of %d shaped inputs per type, the fast path accepted %v (numbers, shapes, add)", n, accepted)
}

// shapedValue writes a JSON value for t: mostly one t's schema accepts,
// sometimes a wrong scalar, a null, a missing or unknown or repeated member.
func shapedValue(rng *rand.Rand, t reflect.Type, scalars []string) string {
	if rng.IntN(40) == 0 {
		return scalars[rng.IntN(len(scalars))]
	}
	switch t.Kind() {
	case reflect.Pointer:
		if rng.IntN(4) == 0 {
			return "null"
		}
		return shapedValue(rng, t.Elem(), scalars)
	case reflect.Bool:
		return []string{"true", "false"}[rng.IntN(2)]
	case reflect.String:
		return []string{`""`, `"Oslo"`, `"a\"b\u00e9\n"`, `"\ud800"`, "\"\xff\""}[rng.IntN(5)]
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Float32, reflect.Float64:
		if rng.IntN(3) == 0 {
			return strconv.Itoa(rng.IntN(200) - 50)
		}
		return scalars[rng.IntN(39)] // the numbers of scalars
	case reflect.Slice, reflect.Array:
		if t.Kind() == reflect.Slice && rng.IntN(6) == 0 {
			return "null"
		}
		n := rng.IntN(4)
		if t.Kind() == reflect.Array {
			n = t.Len()
			if rng.IntN(10) == 0 {
				n += rng.IntN(3) - 1
			}
		}
		items := make([]string, n)
		for i := range items {
			items[i] = shapedValue(rng, t.Elem(), scalars)
		}
		return "[" + strings.Join(items, ",") + "]"
	case reflect.Struct:
		var members []string
		for i := range t.NumField() {
			f := t.Field(i)
			name, opts, _ := strings.Cut(f.Tag.Get("json"), ",")
			if name == "" {
				name = f.Name
			}
			optional := opts != "" || f.Type.Kind() == reflect.Pointer
			if (optional && rng.IntN(2) == 0) || rng.IntN(30) == 0 {
				continue
			}
			members = append(members, strconv.Quote(name)+":"+shapedValue(rng, f.Type, scalars))
			if rng.IntN(40) == 0 {
				members = append(members, strconv.Quote(name)+":"+shapedValue(rng, f.Type, scalars))
			}
		}
		if rng.IntN(30) == 0 {
			members = append(members, `"extra":1`)
		}
		rng.Shuffle(len(members), func(i, j int) { members[i], members[j] = members[j], members[i] })
		return "{" + strings.Join(members, ",") + "}"
	}
	return "null"
}

// object builds a JSON object of up to six members named from names.
func object(rng *rand.Rand, names []string, depth int, value func(int) string) string {
	n := rng.IntN(7)
	members := make([]string, n)
	for i := range members {
		members[i] = strconv.Quote(names[rng.IntN(len(names))]) + ":" + value(depth)
	}
	return "{" + strings.Join(members, ",") + "}"
}
