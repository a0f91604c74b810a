package sqltool

import (
	"encoding/json"
	"math"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestAppendJSON_MatchesEncodingJSON(t *testing.T) {
	for _, v := range []any{
		nil, true, false, 0.0, -1.5, 1e21, 123456789.0, math.SmallestNonzeroFloat64,
		json.Number("9007199254740993"),
		"", "plain", `quo"te`, `back\\slash`, "tab\t", "<html>&", "Stanisław", "\u2028", "\x00",
	} {
		want, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		assert.Equal(t, string(want), string(appendJSON(nil, v)), "%#v", v)
	}
}

func TestJSONValue_Model(t *testing.T) {
	assert.Equal(t, 42.0, jsonValue(int64(42)))
	assert.Equal(t, json.Number("9007199254740993"), jsonValue(int64(9007199254740993)), "beyond 2^53 stays exact")
	assert.Equal(t, "text", jsonValue([]byte("text")))
	assert.Equal(t, "/w==", jsonValue([]byte{0xff}), "bytes that are not UTF-8 are base64")
	assert.Nil(t, jsonValue(math.NaN()))
}

func TestParseArray(t *testing.T) {
	ints := elementConverter("INT4")
	for in, want := range map[string]any{
		"{}":                  []any{},
		"{1,2,NULL}":          []any{int64(1), int64(2), nil},
		"{{1,2},{3,4}}":       []any{[]any{int64(1), int64(2)}, []any{int64(3), int64(4)}},
		"[0:1]={5,6}":         []any{int64(5), int64(6)},
		`{"a b","c\"d",NULL}`: []any{"a b", `c"d`, nil},
		`{"NULL",x}`:          []any{"NULL", "x"},
	} {
		conv := ints
		if strings.ContainsAny(in, `"x`) {
			conv = elementConverter("TEXT")
		}
		got, ok := parseArray(in, conv)
		assert.True(t, ok, in)
		assert.Equal(t, want, got, in)
	}
	for _, bad := range []string{"", "{", "{1,2", `{"a}`, "{1}x", "1,2"} {
		_, ok := parseArray(bad, ints)
		assert.False(t, ok, bad)
	}
}
