package oxp

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// checkPlainAgrees asserts that when decodePlainCallRequest reads body, it
// reads exactly what decodeCallRequest reads, and that decodeCallRequest
// accepts it.
func checkPlainAgrees(t *testing.T, body []byte) (plain bool) {
	t.Helper()
	fast, ok := decodePlainCallRequest(body)
	slow, bad := decodeCallRequest(body)
	if !ok {
		return false
	}
	require.Nil(t, bad, "the fast path read %q, which decodeCallRequest refuses", body)
	assert.Equal(t, slow, fast, "%q", body)
	return true
}

func TestPlainCallRequestReadsTheUsualRequest(t *testing.T) {
	for body, want := range map[string]callRequest{
		`{"tool_id": "Tools.add", "input": {"a": 1, "b": 2}}`:                  {toolID: "Tools.add", input: []byte(`{"a": 1, "b": 2}`)},
		` {"tool_id":"Kit.T@1","call_id":"c-1","trace_id":null,"inputs":[]} `:  {toolID: "Kit.T@1", callID: "c-1", input: []byte(`[]`)},
		`{"input": null, "call_id": null, "tool_id": "Kit_T", "$schema": "s"}`: {toolID: "Kit_T", input: []byte(`null`), form: form{schema: []byte(`"s"`)}},
		`{"tool_id": "K.T", "context": {"user_id": "u", "secrets": [{"id": "k", "value": "v"}]}}`: {toolID: "K.T",
			context: CallContext{UserID: "u", Secrets: map[string]string{"k": "v"}}},
	} {
		got, ok := decodePlainCallRequest([]byte(body))
		require.True(t, ok, body)
		assert.Equal(t, want, got, body)
		assert.True(t, checkPlainAgrees(t, []byte(body)))
	}
}

// TestPlainCallRequestLeavesTheRestToTheDecoder: every body the fast path
// does not read as decodeCallRequest would is left to decodeCallRequest,
// whether it is refused there or read in another way.
func TestPlainCallRequestLeavesTheRestToTheDecoder(t *testing.T) {
	for _, body := range []string{
		``, `null`, `[]`, `"x"`, `{`, `{"tool_id": "K.T",}`, `{"tool_id": "K.T"} x`,
		`{"tool_id": "K.T", "tool_id": "K.U"}`,         // repeated: the last one counts
		`{"tool_id": "K.T", "input": {}, "input": []}`, // repeated
		`{"tool\u005fid": "K.T"}`,                      // a name spelt with an escape
		`{"tool_id": "K.T", "extra": 1}`,               // unknown member
		`{"request": {"tool_id": "K.T"}}`,              // the wrapped form
		`{"tool_id": "K.T", "input": {}, "inputs": {}}`,
		`{"tool_id": ""}`, `{"tool_id": null}`, `{"tool_id": 7}`, `{"call_id": "c"}`,
		`{"tool_id": "K.\u0054"}`, `{"tool_id": "Kit.Tøøl"}`, // strings the decoder must read
		`{"tool_id": "K.T", "call_id": 7}`, `{"tool_id": "K.T", "trace_id": {}}`, `{"tool_id": "K.T", "call_id": "a\"b"}`,
		`{"tool_id": "K.T", "context": []}`, `{"tool_id": "K.T", "context": {"secrets": [{"id": "k"}]}}`,
	} {
		_, ok := decodePlainCallRequest([]byte(body))
		assert.False(t, ok, body)
	}
}

// FuzzPlainCallRequestAgrees: whatever the body, the fast path either
// declines it or reads exactly what decodeCallRequest reads.
func FuzzPlainCallRequestAgrees(f *testing.F) {
	for _, s := range []string{
		`{"tool_id": "Tools.add", "input": {"a": 1, "b": 2}}`,
		`{"tool_id":"Kit.T@1","call_id":"c-1","trace_id":null,"inputs":[1,"}",{"x":"\""}]}`,
		`{"tool_id": "K.T", "context": {"user_id": "u", "authorization": [{"id": "g", "token": "t"}], "z": 1}}`,
		`{"tool_id": "K.T", "$schema": "s", "input": "  "}`,
		"{\"tool_id\":\"K.T\",\t\"input\"\n:\r{ } }",
		`{"tool_id": "K.T", "tool_id": "K.U"}`,
		`{"request": {"tool_id": "K.T"}}`,
		"{\"tool_id\": \"K.T\", \"input\": \"\xff\"}",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		checkPlainAgrees(t, body)
	})
}

func TestVersionKeyIsCanonical(t *testing.T) {
	assert.Equal(t, http.CanonicalHeaderKey(VersionHeader), versionKey)
}
