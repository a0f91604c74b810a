package oxp

import (
	"encoding/json"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolexec/toolexec"
)

// The success answer written around the encoded value is, byte for byte,
// what json.Marshal of the response writes; other answers take json.Marshal.
func TestSuccessWrittenAsMarshalWritesIt(t *testing.T) {
	textTool := toolexec.Tool{OutputSchema: json.RawMessage(`{"type":"object"}`)}
	results := []*toolexec.CallToolResult{
		{StructuredContent: json.RawMessage(`{ "sum" : 42, "html": "<b>&" }`)},
		{StructuredContent: json.RawMessage(`{"sum":42,"s":"a\u003cb","n":[1.50,{"x":null}]}`)},
		{StructuredContent: json.RawMessage("{\"a\":\"\u2028\u2029\u2027\"}")},
		{StructuredContent: json.RawMessage(nil)},
		{StructuredContent: map[string]any{"a": "<\u2028>"}},
		{Content: []toolexec.Content{toolexec.Text(" { \"a\" : \"<x>\" } ")}},
		{Content: []toolexec.Content{toolexec.Text("plain & simple")}},
		{},
	}
	for _, res := range results {
		v, err := valueOf(textTool.OutputSchema, res)
		require.NoError(t, err)
		for _, d := range []float64{0, 0.001, 1.5, 12.345, 123456789.123} {
			for _, id := range []string{"c-1", "550e8400-e29b-41d4-a716-446655440000", "a<b", "é"} {
				resp := &callResponse{CallID: id, Duration: d, Success: true, Value: &v}
				want, err := json.Marshal(resp)
				require.NoError(t, err)
				w := httptest.NewRecorder()
				(&handler{}).answer(w, &form{}, id, d, v, nil)
				assert.Equal(t, string(want)+"\n", w.Body.String())
			}
		}
	}
	_, ok := appendSuccess(nil, "c", 1, nil)
	assert.False(t, ok, "no value: a failure")
}

// TestStructuredOutputIsTheValueAsJSONMarshalWritesIt: a structured
// result's value is what json.Marshal makes of it, whether or not it is
// already in that form; a RawMessage that cannot be written is an error.
func TestStructuredOutputIsTheValueAsJSONMarshalWritesIt(t *testing.T) {
	for _, raw := range []string{
		`{"sum":42}`, `{"sum":42,"s":"a\u003cb"}`, `[1,2.50,"x"]`, `"s"`, `7`, `null`,
		`{ "sum": 42 }`, `{"s":"a b"}`, `{"h":"<b>&"}`, "{\"s\":\"\u2028\"}", "{\"s\":\"\xe2\x80\xa9\"}", "{\"s\":\"\xff\xe2\x80\"}",
	} {
		res := &toolexec.CallToolResult{StructuredContent: json.RawMessage(raw)}
		want, err := json.Marshal(res.StructuredContent)
		require.NoError(t, err)
		got, err := valueOf(nil, res)
		require.NoError(t, err)
		assert.Equal(t, string(want), string(got), raw)
	}
	for _, raw := range []string{``, `{`, `{"a":1}x`, `{"a":01}`} {
		_, err := valueOf(nil, &toolexec.CallToolResult{StructuredContent: json.RawMessage(raw)})
		assert.Error(t, err, raw)
	}
}

// FuzzStructuredValueAsItself: a structured value written as it is, is
// exactly what json.Marshal writes of it.
func FuzzStructuredValueAsItself(f *testing.F) {
	for _, s := range []string{`{"sum":42}`, `{"a":[1,2.5e3,"\u003c",true,null]}`, "\"\xe2\x80\xa8\"", `{"a":"\/"}`, `"\ud800"`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		if !marshalsAsItself(raw) {
			return
		}
		want, err := json.Marshal(json.RawMessage(raw))
		require.NoError(t, err)
		require.Equal(t, string(want), string(raw))
	})
}
