package oxp_test

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolexec/toolexec"
)

// clientCall is the body the published OXP Go client sends for
// client.Tools.Call with every optional parameter set: the earlier draft's
// wrapped form, with "$schema" beside "request".
const clientCall = `{"request":{"tool_id":"Calculator.Add@1.0.0","call_id":"call_id","context":{"authorization":[{"id":"id","token":"token"}],` +
	`"secrets":[{"id":"id","value":"value"}],"user_id":"user_id"},"input":{"a":10,"b":5},"trace_id":"trace_id"},"$schema":"https://example.com"}`

func TestWrappedRequestsGetWrappedAnswers(t *testing.T) {
	h := newHandler(t, seedRegistry(t), nil)

	w := call(h, clientCall)
	require.Equal(t, http.StatusOK, w.Code, w.Body.String())
	var got struct {
		Schema string         `json:"$schema"`
		Result map[string]any `json:"result"`
	}
	require.NoError(t, jsonUnmarshal(w, &got))
	assert.Equal(t, "https://example.com", got.Schema)
	assert.IsType(t, 0.0, got.Result["duration"])
	delete(got.Result, "duration")
	assert.Equal(t, map[string]any{"call_id": "call_id", "success": true, "value": 15.0}, got.Result)

	// Without $schema, without call_id: a bare {"result": ...} with a new id.
	w = call(h, `{"request": {"tool_id": "Doorbell.Ring@0.1.0", "input": {"doorbell_id": "doorbell1"}}}`)
	require.Equal(t, http.StatusOK, w.Code)
	var bare map[string]json.RawMessage
	require.NoError(t, jsonUnmarshal(w, &bare))
	require.Len(t, bare, 1, w.Body.String())
	var res map[string]any
	require.NoError(t, json.Unmarshal(bare["result"], &res))
	assert.Equal(t, false, res["success"])
	assert.NotEmpty(t, res["call_id"])
	assert.Equal(t, "Doorbell ID not found", res["error"].(map[string]any)["message"])
}

func TestWrappedRequestFailuresStayFlatAndEchoTheSchema(t *testing.T) {
	h := newHandler(t, seedRegistry(t), nil)
	w := call(h, `{"$schema": "otc://1.0", "request": {"tool_id": "Calculator.Add@2.0.0"}}`)
	require.Equal(t, http.StatusBadRequest, w.Code)
	jsonEq(t, `{"$schema": "otc://1.0", "message": "Tool 'Calculator.Add@2.0.0' is not available",
		"developer_message": "Calculator.Add has no version 2.0.0 (available: 1.0.0)"}`, w)

	w = call(h, `{"$schema": "otc://1.0", "request": {"tool_id": "Calculator.Add@1.0.0", "input": {"a": 10, "b": "infinity"}}}`)
	require.Equal(t, http.StatusUnprocessableEntity, w.Code)
	jsonEq(t, `{"$schema": "otc://1.0", "message": "The input parameters are invalid", "parameter_errors": {"b": "got string, want number"}}`, w)

	for body, dev := range map[string]string{
		`{"request": []}`: `"request" must be a JSON object`,
		`{"request": {"tool_id": "X.Y"}, "extra": 1}`:  "unknown member(s): extra",
		`{"request": {"tool_id": "X.Y", "inptu": {}}}`: "unknown member(s): request.inptu",
		`{"request": {}}`: "request.tool_id is required: a tool id such as Toolkit.Tool@1.0.0",
	} {
		w := call(h, body)
		require.Equal(t, http.StatusBadRequest, w.Code, body)
		var got map[string]any
		require.NoError(t, jsonUnmarshal(w, &got))
		assert.Equal(t, dev, got["developer_message"], body)
	}
}

func TestUnwrappedRequestsMayCarrySchema(t *testing.T) {
	h := newHandler(t, seedRegistry(t), nil)
	m := callBody(t, call(h, `{"$schema": "https://example.com", "tool_id": "Calculator.Add", "input": {"a": 1, "b": 2}}`))
	assert.Equal(t, true, m["success"])
	assert.NotContains(t, m, "result")
	assert.NotContains(t, m, "$schema")
}

// TestThePublishedClientsRequestsOverHTTP replays, over a real connection,
// what the published OXP Go client sends for health, list and call,
// headers included, and checks the answers decode as it decodes them.
func TestThePublishedClientsRequestsOverHTTP(t *testing.T) {
	reg := seedRegistry(t)
	srv := httptest.NewServer(newHandler(t, reg, []toolexec.Option{}))
	defer srv.Close()
	send := func(method, path, body string, header map[string]string) (*http.Response, []byte) {
		var rd io.Reader
		if body != "" {
			rd = strings.NewReader(body)
		}
		req, err := http.NewRequest(method, srv.URL+path, rd)
		require.NoError(t, err)
		for k, v := range map[string]string{"User-Agent": "Oxp/Go 0.0.1-alpha.0", "X-Stainless-Lang": "go", "X-Stainless-Retry-Count": "0", "Authorization": "Bearer My Bearer Token"} {
			req.Header.Set(k, v)
		}
		for k, v := range header {
			req.Header.Set(k, v)
		}
		resp, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		defer resp.Body.Close()
		data, err := io.ReadAll(resp.Body)
		require.NoError(t, err)
		return resp, data
	}

	resp, _ := send(http.MethodGet, "/health", "", map[string]string{"Accept": ""})
	assert.Equal(t, http.StatusOK, resp.StatusCode)

	resp, data := send(http.MethodGet, "/tools", "{}", map[string]string{"Accept": "application/json", "Content-Type": "application/json"})
	require.Equal(t, http.StatusOK, resp.StatusCode)
	var list struct {
		Items []struct {
			ID, Name, Description, Version string
			InputSchema                    map[string]any `json:"input_schema"`
			OutputSchema                   map[string]any `json:"output_schema"`
		} `json:"items"`
	}
	require.NoError(t, json.Unmarshal(data, &list))
	require.Len(t, list.Items, 2)
	assert.Equal(t, "Calculator.Add@1.0.0", list.Items[0].ID)

	resp, data = send(http.MethodPost, "/tools/call", clientCall, map[string]string{"Accept": "application/json", "Content-Type": "application/json"})
	require.Equal(t, http.StatusOK, resp.StatusCode, string(data))
	assert.Equal(t, "1.0", resp.Header.Get("OXP-Version"))
	var out struct {
		Result struct {
			CallID   string  `json:"call_id"`
			Duration float64 `json:"duration"`
			Success  bool    `json:"success"`
			Value    any     `json:"value"`
		} `json:"result"`
	}
	require.NoError(t, json.Unmarshal(data, &out))
	assert.Equal(t, "call_id", out.Result.CallID)
	assert.True(t, out.Result.Success)
	assert.Equal(t, 15.0, out.Result.Value)
}
