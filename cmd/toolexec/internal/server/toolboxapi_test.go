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

const nativeTools = `
sources:
  db:
    kind: sqlite
    database: test.db
    init: schema.sql
tools:
  cheaper:
    kind: sqlite-sql
    source: db
    description: Items cheaper than a price, by name.
    parameters:
      - {name: price, type: float, description: the highest price}
      - {name: active, type: boolean, description: active only, default: true}
      - name: names
        type: array
        description: names to look at
        required: false
        items: {name: n, type: string, description: a name}
    statement: SELECT id, name FROM items WHERE price <= ? AND active = ? AND (? IS NULL OR 1) ORDER BY id
  by-id:
    kind: sqlite-sql
    source: db
    description: by id
    parameters:
      - {name: id, type: integer, description: the id}
    statement: SELECT id, name FROM items WHERE id = ?
  broken:
    kind: sqlite-sql
    source: db
    description: fails
    parameters:
      - {name: doc, type: string, description: JSON}
    statement: SELECT json_extract(?, '$.a') AS a
toolsets:
  one: [by-id]
`

func serveNative(t *testing.T, o Options) *httptest.Server {
	set := build(t, nativeTools, map[string]string{"schema.sql": sqliteSchema}, nil)
	h, _ := Handler(NewProvider(set), o)
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv
}

func nativeDo(t *testing.T, method, url, body string, hdr ...string) (int, map[string]any) {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/json")
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
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

// The manifests mcp-toolbox's native API answers, in the shape its SDKs'
// toolbox protocol reads (ManifestSchema: serverVersion, tools by name,
// parameters in declared order with toolbox's type names).
func TestToolboxAPI_Manifests(t *testing.T) {
	srv := serveNative(t, Options{ServerVersion: "9.9.9"})
	for _, path := range []string{"/api/toolset", "/api/toolset/"} {
		code, m := nativeDo(t, http.MethodGet, srv.URL+path, "")
		require.Equal(t, http.StatusOK, code, path)
		assert.Equal(t, "9.9.9", m["serverVersion"])
		assert.Len(t, m["tools"], 3, path)
	}
	code, m := nativeDo(t, http.MethodGet, srv.URL+"/api/toolset/one", "")
	require.Equal(t, http.StatusOK, code)
	assert.Len(t, m["tools"], 1)
	assert.Contains(t, m["tools"], "by-id")

	code, m = nativeDo(t, http.MethodGet, srv.URL+"/api/tool/cheaper", "")
	require.Equal(t, http.StatusOK, code)
	b, _ := json.Marshal(m["tools"])
	assert.JSONEq(t, `{"cheaper":{"description":"Items cheaper than a price, by name.","authRequired":[],"parameters":[
		{"name":"price","type":"float","required":true,"description":"the highest price","authSources":[]},
		{"name":"active","type":"boolean","required":false,"description":"active only","authSources":[],"default":true},
		{"name":"names","type":"array","required":false,"description":"names to look at","authSources":[],
		 "items":{"name":"","type":"string","required":false,"description":"a name","authSources":[]}}]}}`, string(b))

	for path, msg := range map[string]string{
		"/api/toolset/nope": `toolset "nope" does not exist`,
		"/api/tool/nope":    `tool with name "nope" does not exist`,
	} {
		code, m := nativeDo(t, http.MethodGet, srv.URL+path, "")
		assert.Equal(t, http.StatusNotFound, code, path)
		assert.Contains(t, m["error"], msg)
		assert.Equal(t, "Not Found", m["status"])
	}
	code, _ = nativeDo(t, http.MethodPost, srv.URL+"/api/toolset", "{}")
	assert.Equal(t, http.StatusMethodNotAllowed, code)
	code, _ = nativeDo(t, http.MethodGet, srv.URL+"/api/toolset", "", "Origin", "http://evil.example")
	assert.Equal(t, http.StatusForbidden, code, "behind the rebinding defense")

	// toolexec's own REST routes beside them are unchanged.
	code, _ = nativeDo(t, http.MethodGet, srv.URL+"/api/tools/by-id", "")
	assert.Equal(t, http.StatusOK, code)
}

// A call through the native API runs through the whole pipeline (token,
// validation) and is answered as toolbox answers it.
func TestToolboxAPI_Invoke(t *testing.T) {
	srv := serveNative(t, Options{Token: "tok"})
	auth := []string{"Authorization", "Bearer tok"}
	code, m := nativeDo(t, http.MethodPost, srv.URL+"/api/tool/by-id/invoke", `{"id": 2}`, auth...)
	require.Equal(t, http.StatusOK, code, m)
	assert.Equal(t, `[{"id":2,"name":"pear"}]`, m["result"], "columns in the statement's order")

	code, m = nativeDo(t, http.MethodPost, srv.URL+"/api/tool/by-id/invoke", `{"id": 99}`, auth...)
	require.Equal(t, http.StatusOK, code, m)
	assert.Equal(t, "[]", m["result"], "no row is [], as in toolbox")

	// Tool errors and invalid arguments: 200 with {"error": ...} as the
	// result text, as toolbox answers them.
	code, m = nativeDo(t, http.MethodPost, srv.URL+"/api/tool/broken/invoke", `{"doc": "not json"}`, auth...)
	require.Equal(t, http.StatusOK, code, m)
	var e map[string]string
	require.NoError(t, json.Unmarshal([]byte(m["result"].(string)), &e))
	assert.Contains(t, e["error"], "malformed JSON")
	code, m = nativeDo(t, http.MethodPost, srv.URL+"/api/tool/by-id/invoke", `{"id": "2 OR 1=1"}`, auth...)
	require.Equal(t, http.StatusOK, code, m)
	assert.Contains(t, m["result"], "error")

	// Refusals keep their status, in toolbox's error shape.
	code, m = nativeDo(t, http.MethodPost, srv.URL+"/api/tool/by-id/invoke", `{"id": 2}`)
	assert.Equal(t, http.StatusUnauthorized, code)
	assert.Equal(t, "Unauthorized", m["status"])
	code, m = nativeDo(t, http.MethodPost, srv.URL+"/api/tool/nope/invoke", `{}`, auth...)
	assert.Equal(t, http.StatusNotFound, code, m)
	assert.Equal(t, "Not Found", m["status"])
	code, _ = nativeDo(t, http.MethodGet, srv.URL+"/api/tool/by-id/invoke", "", auth...)
	assert.Equal(t, http.StatusMethodNotAllowed, code)
}

func TestHealthz(t *testing.T) {
	srv := serveNative(t, Options{Token: "tok"})
	req, err := http.NewRequest(http.MethodGet, srv.URL+"/healthz", nil)
	require.NoError(t, err)
	req.Host = "10.0.0.7:5000" // a probe calls the pod's address
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	assert.Equal(t, http.StatusOK, resp.StatusCode)
	b, _ := io.ReadAll(resp.Body)
	assert.JSONEq(t, `{"status":"ok"}`, string(b))
}

// An http tool's answer is returned as the upstream sent it, even when it
// is a JSON object with a rows member.
func TestToolboxAPI_HTTPToolAnswersAsSent(t *testing.T) {
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"rows":[1,2],"total":2}`)
	}))
	t.Cleanup(up.Close)
	set := build(t, `
sources:
  api: {kind: http, baseUrl: "`+up.URL+`"}
tools:
  stats:
    kind: http
    source: api
    method: GET
    path: /stats
    description: statistics
`, nil, nil)
	h, _ := Handler(NewProvider(set), Options{})
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	code, m := nativeDo(t, http.MethodPost, srv.URL+"/api/tool/stats/invoke", `{}`)
	require.Equal(t, http.StatusOK, code, m)
	assert.JSONEq(t, `{"rows":[1,2],"total":2}`, m["result"].(string))
}
