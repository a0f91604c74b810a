package typedargs

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

type color string

type decoded struct {
	B   bool      `json:"b,omitempty"`
	S   string    `json:"s,omitempty"`
	C   color     `json:"c,omitempty"`
	I   int       `json:"i,omitempty"`
	I8  int8      `json:"i8,omitempty"`
	I64 int64     `json:"i64,omitempty"`
	U8  uint8     `json:"u8,omitempty"`
	U   uint      `json:"u,omitempty"`
	F32 float32   `json:"f32,omitempty"`
	F   float64   `json:"f,omitempty"`
	L   []int     `json:"l,omitempty"`
	LP  []*string `json:"lp,omitempty"`
	LL  [][]bool  `json:"ll,omitempty"`
	A   [2]uint16 `json:"a,omitempty"`
	P   *int      `json:"p,omitempty"`
	N   *inner    `json:"n,omitempty"`
	V   inner     `json:"v"`
	LN  []inner   `json:"ln,omitempty"`
}

type inner struct {
	X int     `json:"x"`
	Y *string `json:"y,omitempty"`
}

var decodeSeeds = []string{
	`{"v":{"x":1}}`,
	` { "v" : { "x" : -1 , "y" : "é" } , "b" : true , "s" : "a b" } `,
	`{"v":{"x":0},"s":"a\"b","c":"\u00e9"}`,
	"{\"v\":{\"x\":0},\"s\":\"\xff\"}",
	`{"v":{"x":0},"i":9223372036854775807,"i8":-128,"i64":-9223372036854775808,"u8":255,"u":18446744073709551615}`,
	`{"v":{"x":0},"i":1e2}`,
	`{"v":{"x":0},"f32":3.4028235e38,"f":1e308}`,
	`{"v":{"x":0},"i8":1.0}`,
	`{"v":{"x":0},"u":-0}`,
	`{"v":{"x":0},"s":"\ud800"}`,
	`{"v":{"x":0},"f32":3.5e38}`,
	`{"v":{"x":0},"f":-0.0,"f32":1.5e-46}`,
	`{"v":{"x":0},"l":[],"lp":[null,"a"],"ll":[[],[true,false],null],"a":[1,2]}`,
	`{"v":{"x":0},"l":null,"lp":null,"ll":null,"p":null,"n":null}`,
	`{"v":{"x":0},"l":[1,2,3,4,5,6,7,8,9],"p":7,"n":{"x":2,"y":null}}`,
	`{"v":{"x":0},"ln":[{"x":1},{"x":2,"y":"z"}],"a":[1,0]}`,
	`{"v":{"x":0},"a":[1,2,3]}`,
	`{"v":null}`,
	`{"v":{"x":0},"b":null,"s":null,"i":null}`,
}

// FuzzDecodeIntoMatchesUnmarshal holds DecodeInto, and the plan's own
// decoder under it, to json.Unmarshal: for every value the plan accepts,
// the same Go value, or a refusal where json.Unmarshal refuses.
func FuzzDecodeIntoMatchesUnmarshal(f *testing.F) {
	typ := reflect.TypeFor[decoded]()
	plan, err := For(typ, schemaFor(f, typ), bounds)
	require.NoError(f, err)
	for _, s := range decodeSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		if !plan.Check(raw) {
			return
		}
		var want decoded
		werr := json.Unmarshal(raw, &want)
		var own decoded
		if plan.decodeChecked(raw, reflect.ValueOf(&own).Elem()) {
			require.NoError(t, werr, "%s: decoded by the plan, refused by encoding/json", raw)
			require.Equal(t, want, own, "%s", raw)
		}
		var got decoded
		ok := DecodeInto(plan, raw, &got)
		require.Equal(t, werr == nil, ok, "%s: %v", raw, werr)
		if ok {
			require.Equal(t, want, got, "%s", raw)
		}
	})
}

func TestDecodeIntoDecodesMostValuesItself(t *testing.T) {
	typ := reflect.TypeFor[decoded]()
	plan, err := For(typ, schemaFor(t, typ), bounds)
	require.NoError(t, err)
	for _, s := range []string{decodeSeeds[0], decodeSeeds[1], decodeSeeds[4], decodeSeeds[6], decodeSeeds[12], decodeSeeds[13], decodeSeeds[14], decodeSeeds[15]} {
		require.True(t, plan.Check([]byte(s)), s)
		var own, want decoded
		assert.True(t, plan.decodeChecked([]byte(s), reflect.ValueOf(&own).Elem()), s)
		require.NoError(t, json.Unmarshal([]byte(s), &want))
		assert.Equal(t, want, own, s)
	}
	for _, s := range []string{decodeSeeds[2], decodeSeeds[3], decodeSeeds[5], decodeSeeds[7], decodeSeeds[9], decodeSeeds[10]} { // escapes, invalid UTF-8, numbers strconv refuses
		require.True(t, plan.Check([]byte(s)), s)
		var own decoded
		assert.False(t, plan.decodeChecked([]byte(s), reflect.ValueOf(&own).Elem()), s)
	}
	var empty decoded
	require.True(t, DecodeInto(plan, []byte(`{"v":{"x":0},"l":[],"lp":[]}`), &empty))
	assert.NotNil(t, empty.L, "an empty array is an empty slice, not nil, as from encoding/json")
}

func TestDecodeIntoAPointerType(t *testing.T) {
	typ := reflect.TypeFor[*inner]()
	plan, err := For(typ, schemaFor(t, typ), bounds)
	require.NoError(t, err)
	var in *inner
	require.True(t, DecodeInto(plan, []byte(`{"x":3,"y":"a"}`), &in))
	require.NotNil(t, in)
	assert.Equal(t, 3, in.X)
	assert.Equal(t, "a", *in.Y)
}
