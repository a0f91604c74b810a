package jsontree

import (
	"encoding/json"
	"math"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.yaml.in/yaml/v3"
)

func TestParseKeepsOrderAndNumbers(t *testing.T) {
	in := `{"z":1,"a":[1e400,-0.50,{"y":null,"b":true}],"m":"x\u003cy"}`
	n, err := Parse([]byte(in))
	require.NoError(t, err)
	assert.Equal(t, []string{"z", "a", "m"}, n.Keys)
	assert.Equal(t, `{"z":1,"a":[1e400,-0.50,{"y":null,"b":true}],"m":"x\u003cy"}`, string(n.AppendJSON(nil)))
}

func TestParseRefusesWhatIsNotOneJSONValue(t *testing.T) {
	for _, in := range []string{``, `{`, `{"a":1} {}`, `[1,]`, `nul`, `{"a" 1}`} {
		_, err := Parse([]byte(in))
		assert.Error(t, err, in)
	}
}

func TestParseBoundsTheNesting(t *testing.T) {
	deep := strings.Repeat("[", MaxDepth+1) + strings.Repeat("]", MaxDepth+1)
	_, err := Parse([]byte(deep))
	require.Error(t, err)
	ok := strings.Repeat("[", MaxDepth) + strings.Repeat("]", MaxDepth)
	_, err = Parse([]byte(ok))
	require.NoError(t, err)
}

func TestGetAndDelete(t *testing.T) {
	n, err := Parse([]byte(`{"a":1,"b":2,"c":3}`))
	require.NoError(t, err)
	v, ok := n.Get("b")
	require.True(t, ok)
	assert.Equal(t, "2", v.Text)
	n.Delete("b")
	n.Delete("nothing")
	assert.Equal(t, `{"a":1,"c":3}`, string(n.AppendJSON(nil)))
	_, ok = n.Get("b")
	assert.False(t, ok)
}

func TestYAMLLayout(t *testing.T) {
	in := `{"openapi":"3.1.0","paths":{"/tools/echo/call":{"post":{"tags":["tools"],"x":[],"y":{}}}},` +
		`"list":[[1,2],[],{"a":{"b":1},"c":[true]}],"200":"yes","s":"two\nlines"}`
	n, err := Parse([]byte(in))
	require.NoError(t, err)
	want := `openapi: "3.1.0"
paths:
  /tools/echo/call:
    post:
      tags:
        - tools
      x: []
      "y": {}
list:
  - - 1
    - 2
  - []
  - a:
      b: 1
    c:
      - true
"200": "yes"
s: "two\nlines"
`
	assert.Equal(t, want, string(n.AppendYAML(nil, 0)))
	assertSameAsJSON(t, in, n.AppendYAML(nil, 0))
}

func TestYAMLScalarsAtTheTop(t *testing.T) {
	for in, want := range map[string]string{`"a"`: "a\n", `{}`: "{}\n", `[]`: "[]\n", `null`: "null\n", `1e5`: "1.0e+5\n"} {
		n, err := Parse([]byte(in))
		require.NoError(t, err)
		assert.Equal(t, want, string(n.AppendYAML(nil, 0)), in)
	}
}

func TestYAMLStringsReadBackAsStrings(t *testing.T) {
	for _, s := range []string{"", "true", "True", "NO", "y", "null", "~", "123", "0x1F", "1e3", "-", "- a", "a: b", "a #b",
		"#c", "&a", "*a", "!t", "|", ">", "%", "@", "`", "'", `"`, "\\", " lead", "trail ", "tab\there", "\u0085",
		"\u0080\u009f\u007f", "\ufeff", "\uffff", "\u2028\u2029", "é😀", "\x00", "<>&", ".inf", "$ref", "/tools/a.b", "x-tool-name", "[a]", "{a}", "a,b"} {
		y := AppendYAMLString(nil, s)
		var got any
		require.NoError(t, yaml.Unmarshal(append([]byte("v: "), y...), &got), "%q -> %s", s, y)
		assert.Equal(t, map[string]any{"v": s}, got, "%q -> %s", s, y)
	}
}

func TestYAMLNumbersReadBackAsNumbers(t *testing.T) {
	for in, want := range map[string]string{"1": "1", "-2.5": "-2.5", "1e5": "1.0e+5", "1E-5": "1.0e-5", "2.5e+3": "2.5e+3", "0": "0"} {
		assert.Equal(t, want, string(appendYAMLNumber(nil, in)), in)
		var got map[string]any
		require.NoError(t, yaml.Unmarshal([]byte("v: "+want), &got))
		f, err := strconv.ParseFloat(in, 64)
		require.NoError(t, err)
		assert.InDelta(t, f, toFloat(t, got["v"]), math.Abs(f)*1e-12, in)
	}
}

func toFloat(t *testing.T, v any) float64 {
	switch x := v.(type) {
	case int:
		return float64(x)
	case float64:
		return x
	}
	t.Fatalf("not a number: %#v", v)
	return 0
}

// assertSameAsJSON checks that y, read by a YAML parser, is the value the
// JSON in is.
func assertSameAsJSON(t *testing.T, in string, y []byte) {
	t.Helper()
	var fromJSON, fromYAML any
	require.NoError(t, json.Unmarshal([]byte(in), &fromJSON))
	require.NoError(t, yaml.Unmarshal(y, &fromYAML), "%s", y)
	assert.Equal(t, normalize(fromJSON), normalize(fromYAML), "%s", y)
}

// normalize makes a decoded value comparable across decoders: numbers as
// float64, maps as map[string]any.
func normalize(v any) any {
	switch x := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = normalize(e)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = normalize(e)
		}
		return out
	case int:
		return float64(x)
	case int64:
		return float64(x)
	case uint64:
		return float64(x)
	}
	return v
}

func FuzzYAMLReadsBackAsTheJSON(f *testing.F) {
	for _, s := range []string{
		`{"a":[{"b":[[],{}],"c":"d"}],"e":1.5e3}`,
		`[[[1]],[{"x":{"y":[true,false,null]}}]]`,
		`{"":"","yes":"no","\u0085":"\u0080","k":"a: b # c"}`,
		`{"properties":{"$ref":{"type":"string"}},"$defs":{"n":{"$ref":"#/$defs/n"}}}`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		n, err := Parse([]byte(in))
		if err != nil {
			return
		}
		var fromJSON any
		if json.Unmarshal([]byte(in), &fromJSON) != nil {
			return // encoding/json is stricter about some inputs (invalid UTF-8 is replaced by both)
		}
		if hasHugeNumber(fromJSON) {
			return // beyond float64 YAML and JSON decoders disagree on the type, not the text
		}
		assertSameAsJSON(t, in, n.AppendYAML(nil, 0))
		// And the compact JSON is the same value.
		var again any
		require.NoError(t, json.Unmarshal(n.AppendJSON(nil), &again))
		assert.Equal(t, fromJSON, again)
	})
}

func hasHugeNumber(v any) bool {
	switch x := v.(type) {
	case map[string]any:
		for _, e := range x {
			if hasHugeNumber(e) {
				return true
			}
		}
	case []any:
		for _, e := range x {
			if hasHugeNumber(e) {
				return true
			}
		}
	case float64:
		return math.Abs(x) > 1<<53 || math.IsInf(x, 0)
	}
	return false
}

func TestRepeatedNamesKeepTheFirstPlaceAndTheLastValue(t *testing.T) {
	in := `{"a":1,"b":2,"a":3}`
	many := `{"k0":0,"k1":1,"k2":2,"k3":3,"k4":4,"k5":5,"k6":6,"k7":7,"k8":8,"k1":"x","k8":"y","k9":9}`
	for in, want := range map[string]string{in: `{"a":3,"b":2}`, many: `{"k0":0,"k1":"x","k2":2,"k3":3,"k4":4,"k5":5,"k6":6,"k7":7,"k8":"y","k9":9}`} {
		n, err := Parse([]byte(in))
		require.NoError(t, err)
		assert.Equal(t, want, string(n.AppendJSON(nil)))
		assertSameAsJSON(t, in, n.AppendYAML(nil, 0))
	}
}
