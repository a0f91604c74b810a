package server

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const toolsetTools = `
sources:
  db:
    kind: sqlite
    database: test.db
    init: schema.sql
tools:
  by-id:
    kind: sqlite-sql
    source: db
    description: by id
    parameters:
      - {name: id, type: integer, description: the id}
    statement: SELECT id, name FROM items WHERE id = ?
  count:
    kind: sqlite-sql
    source: db
    description: how many
    statement: SELECT count(*) AS n FROM items
toolsets:
  readonly: [by-id]
  everything: [by-id, count]
`

// rpc posts one JSON-RPC message to url and returns the status and the
// decoded answer.
func rpc(t *testing.T, url, body string, headers ...string) (int, map[string]any) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	var m map[string]any
	require.NoError(t, json.Unmarshal(b, &m), string(b))
	return resp.StatusCode, m
}

// toolNames lists the names of a tools/list answer (MCP or HandsAI).
func toolNames(t *testing.T, answer map[string]any) []string {
	t.Helper()
	res, ok := answer["result"].(map[string]any)
	require.True(t, ok, "%v", answer)
	var names []string
	for _, tl := range res["tools"].([]any) {
		names = append(names, tl.(map[string]any)["name"].(string))
	}
	return names
}

func serveToolsets(t *testing.T) (*httptest.Server, *Provider) {
	set := build(t, toolsetTools, map[string]string{"schema.sql": sqliteSchema}, nil)
	p := NewProvider(set)
	h, _ := Handler(p, Options{})
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv, p
}

const listReq = `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`

func callReq(name string) string {
	return `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"` + name + `","arguments":{"id":1}}}`
}

func TestMCPToolsetRoutes_ServeThatToolsetOnly(t *testing.T) {
	srv, _ := serveToolsets(t)
	for _, path := range []string{"/mcp/readonly", "/mcp/readonly/"} {
		code, body := rpc(t, srv.URL+path, listReq)
		require.Equal(t, http.StatusOK, code)
		assert.Equal(t, []string{"by-id"}, toolNames(t, body), path)

		_, body = rpc(t, srv.URL+path, callReq("by-id"))
		res := body["result"].(map[string]any)
		assert.Equal(t, false, res["isError"], "%v", body)

		// A tool outside the toolset is unknown there, as in mcp-toolbox.
		_, body = rpc(t, srv.URL+path, `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"count","arguments":{}}}`)
		require.NotNil(t, body["error"], "%v", body)
		assert.EqualValues(t, -32602, body["error"].(map[string]any)["code"])
	}
	_, body := rpc(t, srv.URL+"/mcp/everything", listReq)
	assert.ElementsMatch(t, []string{"by-id", "count"}, toolNames(t, body))

	// The whole server: /mcp, and /mcp/ as toolbox's SDKs address it.
	for _, path := range []string{"/mcp", "/mcp/"} {
		_, body := rpc(t, srv.URL+path, listReq)
		assert.ElementsMatch(t, []string{"by-id", "count"}, toolNames(t, body), path)
	}
	// The same toolsets on the REST, OXP and MCP surfaces of /toolsets/.
	_, body = rpc(t, srv.URL+"/toolsets/readonly/mcp", listReq)
	assert.Equal(t, []string{"by-id"}, toolNames(t, body))
}

func TestMCPToolsetRoutes_HandsAIRoutesKeepWorking(t *testing.T) {
	srv, _ := serveToolsets(t)
	get := func(path string) map[string]any {
		resp, err := http.Get(srv.URL + path)
		require.NoError(t, err)
		defer resp.Body.Close()
		require.Equal(t, http.StatusOK, resp.StatusCode, path)
		var m map[string]any
		require.NoError(t, json.NewDecoder(resp.Body).Decode(&m))
		return m
	}
	assert.ElementsMatch(t, []string{"by-id", "count"}, toolNames(t, get("/mcp/tools/list")))
	assert.Equal(t, []string{"by-id"}, toolNames(t, get("/mcp/readonly/tools/list")))

	code, body := rpc(t, srv.URL+"/mcp/tools/call", callReq("by-id"))
	assert.Equal(t, http.StatusOK, code)
	assert.NotNil(t, body["result"], "%v", body)
	_, body = rpc(t, srv.URL+"/mcp/readonly/tools/call", `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"count","arguments":{}}}`)
	assert.NotNil(t, body["error"], "count is not in readonly: %v", body)
}

func TestMCPToolsetRoutes_UnknownIsNotFound(t *testing.T) {
	srv, p := serveToolsets(t)
	for path, msg := range map[string]string{
		"/mcp/nope":              `no toolset named "nope"`,
		"/mcp/nope/tools/list":   `no toolset named "nope"`,
		"/mcp/readonly/whatever": `"/mcp/readonly/whatever"`,
		"/mcp/sse":               "HTTP+SSE transport of MCP 2024-11-05 is not served",
		"/mcp/readonly/sse":      "HTTP+SSE transport of MCP 2024-11-05 is not served",
	} {
		code, body := rpc(t, srv.URL+path, listReq)
		assert.Equal(t, http.StatusNotFound, code, path)
		e, ok := body["error"].(map[string]any)
		require.True(t, ok, "%s: %v", path, body)
		assert.Contains(t, e["message"], msg, path)
		assert.Contains(t, body, "id")
		assert.Nil(t, body["id"])
	}

	// A page that rebinds its name to this machine learns nothing from
	// the 404s: it gets the 403 every surface gives it.
	code, _ := rpc(t, srv.URL+"/mcp/nope", listReq, "Origin", "http://evil.example")
	assert.Equal(t, http.StatusForbidden, code)
	code, _ = rpc(t, srv.URL+"/mcp/readonly", listReq, "Origin", "http://evil.example")
	assert.Equal(t, http.StatusForbidden, code)
	req, _ := http.NewRequest(http.MethodGet, srv.URL+"/toolsets/nope/api/tools", nil)
	req.Header.Set("Origin", "http://evil.example")
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, http.StatusForbidden, resp.StatusCode)

	// A toolset a reload removes is gone from its route.
	next := build(t, strings.Replace(toolsetTools, "  readonly: [by-id]\n", "", 1), map[string]string{"schema.sql": sqliteSchema}, nil)
	old := p.Swap(next)
	require.NoError(t, old.Close())
	code, _ = rpc(t, srv.URL+"/mcp/readonly", listReq)
	assert.Equal(t, http.StatusNotFound, code)
	_, body := rpc(t, srv.URL+"/mcp/everything", listReq)
	assert.ElementsMatch(t, []string{"by-id", "count"}, toolNames(t, body))
}
