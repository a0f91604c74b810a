package mcp_test

import (
	"context"
	"encoding/json"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolexec/toolexec"
	"github.com/toolexec/toolexec/mcp"
)

// The envelope is read as encoding/json reads an object into a map: member
// names exact but with escapes decoded, the last of a repeated member wins,
// unknown members are ignored, and white space anywhere is allowed.
func TestTheEnvelopeIsReadAsEncodingJSONReadsIt(t *testing.T) {
	h := newHandler(t, nil)
	cases := []struct{ name, body, want string }{
		{"white space everywhere", " {\n\t\"jsonrpc\" : \"2.0\" ,\r\n \"id\" :\t1 , \"method\" : \"ping\" } \n", `{"jsonrpc":"2.0","id":1,"result":{}}`},
		{"repeated id: the last wins", `{"jsonrpc":"2.0","id":1,"id":"two","method":"ping"}`, `{"jsonrpc":"2.0","id":"two","result":{}}`},
		{"repeated method: the last wins", `{"jsonrpc":"2.0","id":1,"method":"nope","method":"ping"}`, `{"jsonrpc":"2.0","id":1,"result":{}}`},
		{"escaped member names", `{"\u006asonrpc":"2.0","\u0069d":7,"meth\u006fd":"ping"}`, `{"jsonrpc":"2.0","id":7,"result":{}}`},
		{"escaped method", `{"jsonrpc":"2.0","id":1,"method":"p\u0069ng"}`, `{"jsonrpc":"2.0","id":1,"result":{}}`},
		{"unknown members", `{"jsonrpc":"2.0","x":{"id":9,"method":"nope"},"id":1,"y":[{"}":"]"}],"method":"ping","z":null}`, `{"jsonrpc":"2.0","id":1,"result":{}}`},
		{"strings holding braces and quotes", `{"jsonrpc":"2.0","note":"}\"{[","id":"a\"}b","method":"ping"}`, `{"jsonrpc":"2.0","id":"a\"}b","result":{}}`},
		{"null params", `{"jsonrpc":"2.0","id":1,"method":"ping","params":null}`, `{"jsonrpc":"2.0","id":1,"result":{}}`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			rec := post(t, h, c.body)
			require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
			assert.Equal(t, c.want+"\n", rec.Body.String())
		})
	}
}

func TestAnEscapedNameThatIsNotAMemberOfTheEnvelopeIsNotReadAsOne(t *testing.T) {
	h := newHandler(t, nil)
	rec := post(t, h, `{"jsonrpc":"2.0","\u0049D":1,"Method":"ping","method":"nope","id":2}`)
	require.Equal(t, http.StatusOK, rec.Code)
	r := decodeReply(t, rec)
	assert.Equal(t, "2", string(r.ID))
	assert.Equal(t, mcp.CodeMethodNotFound, r.Error.Code)
}

func TestToolsCallParamsAreReadAsEncodingJSONReadsThem(t *testing.T) {
	var got map[string]any
	reg := toolexec.NewRegistry()
	reg.MustAdd(toolexec.Tool{Name: "echo"}, func(_ context.Context, _ string, args map[string]any) ([]toolexec.Content, bool, string, error) {
		got = args
		return nil, false, "", nil
	})
	h := mcp.NewHandler(toolexec.New(reg, reg, toolexec.WithAllowExecute(true)))
	cases := map[string]struct{ params, want string }{
		"nested values, braces in strings":  {`{"name":"echo","arguments":{"q":"a}\"b]","n":[1,{"x":"}"}],"t":true,"z":null}}`, `{"q":"a}\"b]","n":[1,{"x":"}"}],"t":true,"z":null}`},
		"repeated arguments: the last wins": {`{"arguments":{"a":1},"name":"echo","arguments":{"b":2}}`, `{"b":2}`},
		"escaped member names":              {`{"n\u0061me":"echo","\u0061rguments":{"c":3}}`, `{"c":3}`},
		"arguments absent":                  {`{"name":"echo"}`, `{}`},
		"arguments null":                    {`{"name":"echo","arguments":null}`, `{}`},
		"name repeated: the last wins":      {`{"name":"nope","name":"echo","arguments":{"d":4}}`, `{"d":4}`},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			got = nil
			rec := post(t, h, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":`+c.params+`}`)
			res := callResult(t, rec)
			require.False(t, res.IsError, rec.Body.String())
			want := map[string]any{}
			require.NoError(t, json.Unmarshal([]byte(c.want), &want))
			assert.Equal(t, want, got)
		})
	}
}

func TestABatchIsSplitIntoItsElementsExactly(t *testing.T) {
	h := newHandler(t, nil)
	rec := post(t, h, "[ {\"jsonrpc\":\"2.0\",\"id\":\"]\",\"method\":\"ping\"} ,\n{\"jsonrpc\":\"2.0\",\"id\":2.50,\"method\":\"ping\",\"params\":{\"a\":[\"],\"]}} , null ]")
	require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
	assert.Equal(t, `[{"jsonrpc":"2.0","id":"]","result":{}},{"jsonrpc":"2.0","id":2.50,"result":{}},`+
		`{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid Request: a JSON-RPC message must be a JSON object"}}]`+"\n", rec.Body.String())
}

func TestAnAcceptHeaderIsReadCaseInsensitivelyAndWithParameters(t *testing.T) {
	h := newHandler(t, nil)
	cases := map[string]string{
		"Application/JSON":                         "application/json",
		"text/html, APPLICATION/*":                 "application/json",
		"text/event-stream;q=1":                    "text/event-stream",
		"Text/Event-Stream":                        "text/event-stream",
		"application/json;q=0, text/event-stream":  "text/event-stream",
		"application/json;q=0.0,text/event-stream": "text/event-stream",
		"application/json ; q=0.5":                 "application/json",
		"application/json;bad, text/event-stream":  "text/event-stream",
		"text/html,  */*":                          "application/json",
	}
	for accept, want := range cases {
		rec := post(t, h, pingBody, "Accept", accept)
		require.Equal(t, http.StatusOK, rec.Code, accept)
		assert.Equal(t, want, rec.Header().Get("Content-Type"), accept)
	}
	rec := post(t, h, pingBody, "Accept", "text/event-stream;q=0")
	assert.Equal(t, http.StatusNotAcceptable, rec.Code)
}
