package main

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolexec/toolexec"
)

func TestMCPSurfaceListsAndCallsTheSameTools(t *testing.T) {
	srv := newTestServer(t)
	rpc := func(body string) map[string]any {
		t.Helper()
		status, out := do(t, t.Context(), http.MethodPost, srv.URL+"/mcp", testToken, body,
			"Content-Type", "application/json", "Accept", "application/json, text/event-stream")
		require.Equal(t, http.StatusOK, status, "body: %s", out)
		var m map[string]any
		require.NoError(t, json.Unmarshal(out, &m))
		return m
	}

	list := rpc(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)
	tools := list["result"].(map[string]any)["tools"].([]any)
	var add map[string]any
	for _, tool := range tools {
		if tool.(map[string]any)["name"] == "math_add" {
			add = tool.(map[string]any)
		}
	}
	require.NotNil(t, add, "math_add is listed")
	assert.Contains(t, add, "outputSchema", "a typed tool announces its output schema")

	res := rpc(`{"jsonrpc":"2.0","id":"a","method":"tools/call","params":{"name":"math_add","arguments":{"numbers":[1,2,3]}}}`)
	assert.Equal(t, "a", res["id"])
	result := res["result"].(map[string]any)
	assert.Equal(t, map[string]any{"sum": 6.0}, result["structuredContent"])
	assert.Equal(t, false, result["isError"])

	res = rpc(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"math_add","arguments":{"numbers":"x"}}}`)
	result = res["result"].(map[string]any)
	assert.Equal(t, true, result["isError"], "a validation failure is an isError result")
	assert.Contains(t, result["content"].([]any)[0].(map[string]any)["text"], "/numbers")
}

func TestHandsAIRouteOfTheExampleServer(t *testing.T) {
	srv := newTestServer(t)
	status, out := do(t, t.Context(), http.MethodPost, srv.URL+"/mcp/tools/call", testToken,
		`{"jsonrpc":"2.0","method":"tools/call","params":{"name":"echo","arguments":{"text":"hands"}},"id":"h-1"}`)
	require.Equal(t, http.StatusOK, status)
	assert.JSONEq(t, `{"jsonrpc":"2.0","result":{"content":[{"type":"text","text":"hands"}]},"id":"h-1"}`, string(out))
}

func TestVersionedTypedToolOverRESTAndOXP(t *testing.T) {
	srv := newTestServer(t)
	status, res := call(t, srv, "math_add", `{"numbers":[20,22]}`)
	require.Equal(t, http.StatusOK, status)
	assert.JSONEq(t, `{"sum":42}`, toJSON(t, res.StructuredContent), "REST serves the latest version, 2.0.0")

	status, _ = call(t, srv, "math_add", `{"a":1,"b":2}`)
	assert.Equal(t, http.StatusUnprocessableEntity, status, "2.0.0's schema refuses 1.0.0's input")

	status, body := do(t, t.Context(), http.MethodPost, srv.URL+"/oxp/tools/call", testToken, `{"tool_id":"Tools.math_add@1","input":{"a":2,"b":3}}`)
	require.Equal(t, http.StatusOK, status, "body: %s", body)
	var oxpRes map[string]any
	require.NoError(t, json.Unmarshal(body, &oxpRes))
	assert.Equal(t, map[string]any{"sum": 5.0}, oxpRes["value"], "OXP reaches 1.0.0 by its shorthand version")
}

func TestTelemetryConsoleExportsACallSpan(t *testing.T) {
	var out bytes.Buffer
	env := map[string]string{"OTEL_TRACES_EXPORTER": "console"}
	opts, desc, shutdown, err := telemetry(func(k string) string { return env[k] }, &out)
	require.NoError(t, err)
	assert.Equal(t, " traces", desc)

	swatch, err := makeSwatch()
	require.NoError(t, err)
	x := newExecutor(newRegistry(swatch), testToken, slog.New(slog.DiscardHandler), opts...)
	res, err := x.Call(context.Background(), toolexec.CallRequest{Name: "echo", Arguments: json.RawMessage(`{"text":"traced"}`)})
	require.NoError(t, err)
	assert.NotEmpty(t, res.TraceID(), "the trace id comes from the span")
	require.NoError(t, shutdown(context.Background()))

	assert.Contains(t, out.String(), `"Name":"execute_tool echo"`)
	assert.Contains(t, out.String(), res.TraceID())
	assert.False(t, strings.Contains(out.String(), "traced"), "argument values are never exported by default")
}

func TestTelemetryIsOffByDefault(t *testing.T) {
	opts, desc, shutdown, err := telemetry(func(string) string { return "" }, &bytes.Buffer{})
	require.NoError(t, err)
	assert.Empty(t, opts)
	assert.Empty(t, desc)
	assert.NoError(t, shutdown(context.Background()))
}

func toJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	require.NoError(t, err)
	return string(b)
}

func TestHandsAIBridgeTokenHeaderIsAccepted(t *testing.T) {
	srv := newTestServer(t)
	body := `{"jsonrpc":"2.0","method":"tools/call","params":{"name":"echo","arguments":{"text":"bridge"}},"id":1}`
	status, out := do(t, t.Context(), http.MethodPost, srv.URL+"/mcp/tools/call", "", body, "X-HandsAI-Token", testToken)
	require.Equal(t, http.StatusOK, status)
	assert.JSONEq(t, `{"jsonrpc":"2.0","result":{"content":[{"type":"text","text":"bridge"}]},"id":1}`, string(out))

	status, _ = do(t, t.Context(), http.MethodPost, srv.URL+"/mcp/tools/call", "", body, "X-HandsAI-Token", "wrong")
	assert.Equal(t, http.StatusUnauthorized, status)
}

// TestOpenAPIDocumentOfTheExampleServer: /api/openapi.json, beside the
// explorer page, has a call operation for every tool the server lists,
// needing the bearer token, at the URL the server was reached at.
func TestOpenAPIDocumentOfTheExampleServer(t *testing.T) {
	srv := newTestServer(t)
	status, out := do(t, t.Context(), http.MethodGet, srv.URL+"/api/openapi.json", "", "")
	require.Equal(t, http.StatusOK, status, "%s", out)
	var doc struct {
		Servers []struct{ URL string }
		Paths   map[string]map[string]struct {
			OperationID string                `json:"operationId"`
			Security    []map[string][]string `json:"security"`
		}
	}
	require.NoError(t, json.Unmarshal(out, &doc))
	assert.Equal(t, srv.URL+"/api", doc.Servers[0].URL)
	_, out = do(t, t.Context(), http.MethodGet, srv.URL+"/api/tools", "", "")
	var tools []struct{ Name string }
	require.NoError(t, json.Unmarshal(out, &tools))
	require.NotEmpty(t, tools)
	for _, tool := range tools {
		op := doc.Paths["/tools/"+tool.Name+"/call"]["post"]
		assert.Equal(t, tool.Name, op.OperationID)
		assert.Equal(t, []map[string][]string{{"bearerAuth": {}}}, op.Security, tool.Name)
	}
}
