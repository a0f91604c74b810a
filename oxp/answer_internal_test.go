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
		{StructuredContent: map[string]any{"a": "<\u2028>"}},
		{Content: []toolexec.Content{toolexec.Text(" { \"a\" : \"<x>\" } ")}},
		{Content: []toolexec.Content{toolexec.Text("plain & simple")}},
		{},
	}
	for _, res := range results {
		v, err := valueOf(textTool, res)
		require.NoError(t, err)
		for _, d := range []float64{0, 0.001, 1.5, 12.345, 123456789.123} {
			for _, id := range []string{"c-1", "550e8400-e29b-41d4-a716-446655440000", "a<b", "é"} {
				resp := &callResponse{CallID: id, Duration: d, Success: true, Value: &v}
				want, err := json.Marshal(resp)
				require.NoError(t, err)
				w := httptest.NewRecorder()
				(&handler{}).answer(w, callRequest{}, resp)
				assert.Equal(t, string(want)+"\n", w.Body.String())
			}
		}
	}
	_, ok := appendSuccess(nil, &callResponse{CallID: "c", Error: &callError{Message: "x"}})
	assert.False(t, ok)
}
