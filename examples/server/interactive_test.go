package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// modernCall posts a 2026-07-28 tools/call to the example's MCP endpoint
// with the test token and returns the response's status, Content-Type and
// body.
func modernCall(t *testing.T, url, name, params string) (int, string, []byte) {
	t.Helper()
	body := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"` + name + `",` + params +
		`"_meta":{"progressToken":"p1","io.modelcontextprotocol/protocolVersion":"2026-07-28",` +
		`"io.modelcontextprotocol/clientCapabilities":{"elicitation":{}},"io.modelcontextprotocol/logLevel":"info"}}}`
	req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, url+"/mcp", strings.NewReader(body))
	require.NoError(t, err)
	for k, v := range map[string]string{
		"Authorization": "Bearer " + testToken, "Content-Type": "application/json", "Accept": "application/json, text/event-stream",
		"MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/call", "Mcp-Name": name,
	} {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	var buf bytes.Buffer
	_, err = buf.ReadFrom(resp.Body)
	require.NoError(t, err)
	return resp.StatusCode, resp.Header.Get("Content-Type"), buf.Bytes()
}

// events decodes the JSON-RPC messages of an SSE body.
func events(t *testing.T, body []byte) []map[string]any {
	t.Helper()
	var out []map[string]any
	sc := bufio.NewScanner(bytes.NewReader(body))
	for sc.Scan() {
		if data, ok := strings.CutPrefix(sc.Text(), "data: "); ok {
			var m map[string]any
			require.NoError(t, json.Unmarshal([]byte(data), &m))
			out = append(out, m)
		}
	}
	return out
}

// countdown streams a progress notification and a log message per step,
// then its result, as the explorer page shows them.
func TestCountdownStreamsProgressAndLogsOverMCP(t *testing.T) {
	srv := newTestServer(t)
	status, ctype, body := modernCall(t, srv.URL, "countdown", `"arguments":{"steps":2},`)
	require.Equal(t, http.StatusOK, status, "%s", body)
	assert.Equal(t, "text/event-stream", ctype)
	var progress, logs []map[string]any
	var result map[string]any
	for _, m := range events(t, body) {
		switch m["method"] {
		case "notifications/progress":
			progress = append(progress, m["params"].(map[string]any))
		case "notifications/message":
			logs = append(logs, m["params"].(map[string]any))
		default:
			result = m["result"].(map[string]any)
		}
	}
	require.Len(t, progress, 2)
	assert.Equal(t, map[string]any{"progressToken": "p1", "progress": 1.0, "total": 2.0, "message": "1 to go"}, progress[0])
	assert.Equal(t, map[string]any{"progressToken": "p1", "progress": 2.0, "total": 2.0, "message": "0 to go"}, progress[1])
	require.Len(t, logs, 2)
	assert.Equal(t, "step 2 of 2", logs[1]["data"])
	require.NotNil(t, result)
	assert.Equal(t, "counted down 2 steps", result["content"].([]any)[0].(map[string]any)["text"])
}

// greet asks for a name over MCP (an input-required result) and greets
// with the answer on the retry; over REST it says what it needs.
func TestGreetAsksForANameOverMCP(t *testing.T) {
	srv := newTestServer(t)
	status, _, body := modernCall(t, srv.URL, "greet", `"arguments":{},`)
	require.Equal(t, http.StatusOK, status, "%s", body)
	var first struct {
		Result struct {
			ResultType    string         `json:"resultType"`
			InputRequests map[string]any `json:"inputRequests"`
			RequestState  string         `json:"requestState"`
		} `json:"result"`
	}
	require.NoError(t, json.Unmarshal(body, &first), "%s", body)
	assert.Equal(t, "input_required", first.Result.ResultType)
	require.Contains(t, first.Result.InputRequests, "name")
	assert.Equal(t, "elicitation/create", first.Result.InputRequests["name"].(map[string]any)["method"])

	state, _ := json.Marshal(first.Result.RequestState)
	status, _, body = modernCall(t, srv.URL, "greet", `"arguments":{},"inputResponses":{"name":{"action":"accept","content":{"name":"Ada","formal":true}}},"requestState":`+string(state)+`,`)
	require.Equal(t, http.StatusOK, status, "%s", body)
	assert.Contains(t, string(body), `"text":"Good day to you, Ada."`)

	status, res := call(t, srv, "greet", `{}`)
	assert.Equal(t, http.StatusInternalServerError, status, "REST cannot ask")
	assert.True(t, res.IsError)
	status, res = call(t, srv, "greet", `{"name":"Bo"}`)
	assert.Equal(t, http.StatusOK, status)
	assert.False(t, res.IsError)
}
