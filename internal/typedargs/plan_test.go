package typedargs

import (
	"encoding/json"
	"reflect"
	"testing"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var bounds = Bounds{MaxDigits: 400, MaxExponent: 400}

// schemaFor infers t's schema as the official inference writes it, with
// the pointer's null dropped at the root, as the caller's inference does.
func schemaFor(t testing.TB, typ reflect.Type) []byte {
	t.Helper()
	s, err := jsonschema.ForType(typ, &jsonschema.ForOptions{})
	require.NoError(t, err)
	if len(s.Types) == 2 && s.Types[0] == "null" {
		s.Type, s.Types = s.Types[1], nil
	}
	data, err := json.Marshal(s)
	require.NoError(t, err)
	return data
}

type selfDecoding struct{ V int }

func (s *selfDecoding) UnmarshalJSON([]byte) error { return nil }

type embedded struct{ V int }

func TestForRefusesWhatItCannotCheckExactly(t *testing.T) {
	for name, typ := range map[string]reflect.Type{
		"map":             reflect.TypeFor[struct{ M map[string]int }](),
		"interface":       reflect.TypeFor[struct{ V any }](),
		"time.Time":       reflect.TypeFor[struct{ T time.Time }](),
		"own UnmarshalJS": reflect.TypeFor[struct{ S selfDecoding }](),
		"json.RawMessage": reflect.TypeFor[struct{ R json.RawMessage }](),
		"bytes":           reflect.TypeFor[struct{ B []byte }](),
		"string option": reflect.TypeFor[struct {
			N int `json:"n,string"`
		}](),
		"embedded":        reflect.TypeFor[struct{ embedded }](),
		"embedded ptr":    reflect.TypeFor[struct{ *embedded }](),
		"pointer pointer": reflect.TypeFor[struct{ P **int }](),
		"odd JSON name": reflect.TypeFor[struct {
			N int `json:"a b"`
		}](),
		"not a struct": reflect.TypeFor[map[string]int](),
		"uintptr":      reflect.TypeFor[struct{ U uintptr }](),
	} {
		t.Run(name, func(t *testing.T) {
			raw, err := json.Marshal(map[string]any{"type": "object", "additionalProperties": false})
			require.NoError(t, err)
			if s, err := jsonschema.ForType(typ, &jsonschema.ForOptions{}); err == nil {
				raw, _ = json.Marshal(s)
			}
			_, err = For(typ, raw, bounds)
			assert.Error(t, err)
		})
	}
}

func TestForRefusesAKeywordItDoesNotCheck(t *testing.T) {
	typ := reflect.TypeFor[struct {
		A int `json:"a"`
	}]()
	_, err := For(typ, []byte(`{"type":"object","properties":{"a":{"type":"integer","multipleOf":2}},"required":["a"],"additionalProperties":false}`), bounds)
	assert.ErrorContains(t, err, "multipleOf")
	_, err = For(typ, []byte(`{"type":"object","properties":{"a":{"type":"integer"}},"required":["a"]}`), bounds)
	assert.ErrorContains(t, err, "additionalProperties")
	_, err = For(typ, []byte(`{"type":"object","properties":{"a":{"type":"string"}},"required":["a"],"additionalProperties":false}`), bounds)
	assert.Error(t, err, "an int described as a string")
}

type checked struct {
	I8 int8     `json:"i8,omitempty"`
	U  uint64   `json:"u,omitempty"`
	F  float32  `json:"f,omitempty"`
	L  []string `json:"l,omitempty"`
	A  [1]bool  `json:"a,omitempty"`
	P  *struct {
		S string `json:"s"`
	} `json:"p,omitempty"`
	R bool `json:"r"`
}

func TestCheckAcceptsExactlyTheSchemasValues(t *testing.T) {
	plan, err := For(reflect.TypeFor[checked](), schemaFor(t, reflect.TypeFor[checked]()), bounds)
	require.NoError(t, err)
	for raw, want := range map[string]bool{
		`{"r":true}`:                      true,
		` {"r" : false} `:                 true,
		`{"r":true,"i8":-128,"u":1e2}`:    true,
		`{"r":true,"i8":127.0}`:           true,
		`{"r":true,"i8":128}`:             false,
		`{"r":true,"i8":-1.28e2}`:         true,
		`{"r":true,"i8":-1.29e2}`:         false,
		`{"r":true,"u":-0}`:               true,
		`{"r":true,"u":-1}`:               false,
		`{"r":true,"u":1.5}`:              false,
		`{"r":true,"u":1e400}`:            true,
		`{"r":true,"u":1e401}`:            false,
		`{"r":true,"f":1.5e-3}`:           true,
		`{"r":true,"l":null,"a":[false]}`: true,
		`{"r":true,"a":[]}`:               false,
		`{"r":true,"a":null}`:             false,
		`{"r":true,"p":{"s":"x"}}`:        true,
		`{"r":true,"p":{}}`:               false,
		`{"r":true,"p":null}`:             true,
		`{}`:                              false,
		`{"r":null}`:                      false,
		`{"r":true,"x":1}`:                false,
		`{"R":true}`:                      false,
		`{"r":true,"r":true}`:             false,
		`{"\u0072":true}`:                 false,
		`{"r":true}x`:                     false,
		`{"r":true,}`:                     false,
		`{"r":tru}`:                       false,
		`{"r":true,"l":["a\"\u00e9\n"]}`:  true,
		`{"r":true,"l":["\x"]}`:           false,
		`null`:                            false,
		``:                                false,
		`{"r":true,"i8":01}`:              false,
		`{"r":true,"i8":1.}`:              false,
		`{"r":true,"i8":-}`:               false,
		"{\"r\":true,\"l\":[\"\x01\"]}":   false,
		"{\"r\":true,\"l\":[\"\xff\"]}":   true,
	} {
		assert.Equal(t, want, plan.Check([]byte(raw)), raw)
	}
}

func TestDecodeFillsTheGoValue(t *testing.T) {
	plan, err := For(reflect.TypeFor[checked](), schemaFor(t, reflect.TypeFor[checked]()), bounds)
	require.NoError(t, err)
	in, ok := Decode[checked](plan, []byte(`{"r":true,"i8":-5,"l":["a"],"p":{"s":"x"}}`))
	require.True(t, ok)
	assert.Equal(t, int8(-5), in.I8)
	assert.Equal(t, []string{"a"}, in.L)
	assert.Equal(t, "x", in.P.S)
	_, ok = Decode[checked](plan, []byte(`{"r":true,"i8":5.0}`))
	assert.False(t, ok, "accepted by the schema, refused by encoding/json: the generic path decides")
}

func TestDecimalIsExact(t *testing.T) {
	for text, want := range map[string]struct {
		isInt bool
		cmp0  int // against 0
		cmpM  int // against math.MaxInt64
	}{
		"0":                          {true, 0, -1},
		"-0.0e5":                     {true, 0, -1},
		"1.5":                        {false, 1, -1},
		"150e-2":                     {false, 1, -1},
		"100e-2":                     {true, 1, -1},
		"9223372036854775807":        {true, 1, 0},
		"9223372036854775808":        {true, 1, 1},
		"92233720368547758070e-1":    {true, 1, 0},
		"-9223372036854775808":       {true, -1, -1},
		"1e19":                       {true, 1, 1},
		"0.000000000000000000001e21": {true, 1, -1},
	} {
		d := parseDecimal([]byte(text))
		assert.Equal(t, want.isInt, d.isInt(), text)
		if want.isInt {
			assert.Equal(t, want.cmp0, d.cmpInt(0), text)
			assert.Equal(t, want.cmpM, d.cmpInt(1<<63-1), text)
		}
	}
	assert.Equal(t, -1, parseDecimal([]byte("-9223372036854775809")).cmpInt(-1<<63))
	assert.Equal(t, 0, parseDecimal([]byte("-9223372036854775808")).cmpInt(-1<<63))
}

func TestBoundsAreTheValidators(t *testing.T) {
	b := Bounds{MaxDigits: 3, MaxExponent: 400}
	for text, want := range map[string]bool{
		"123": true, "1234": false, "0.12": true, "00.12": false, "1e400": true, "1e401": false,
		"1e-0000400": true, "1E+401": false, "1e99999999999": false,
	} {
		assert.Equal(t, want, b.within([]byte(text)), text)
	}
}
