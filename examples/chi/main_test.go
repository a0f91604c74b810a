package main

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

func get(t *testing.T, url string) (int, string) {
	t.Helper()
	resp, err := http.Get(url)
	require.NoError(t, err)
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return resp.StatusCode, string(body)
}

func TestToolsAreListedUnderThePrefix(t *testing.T) {
	srv := httptest.NewServer(newRouter(newExecutor()))
	defer srv.Close()

	status, body := get(t, srv.URL+"/api/tools")
	require.Equal(t, http.StatusOK, status)
	assert.JSONEq(t, `[{"name":"greet","description":"Greets someone by name."}]`, body)

	status, body = get(t, srv.URL+"/api/tools/greet")
	require.Equal(t, http.StatusOK, status)
	assert.Contains(t, body, `"inputSchema"`)
}

func TestCallThroughThePrefixCarriesChiRequestIDAsTraceID(t *testing.T) {
	srv := httptest.NewServer(newRouter(newExecutor()))
	defer srv.Close()

	req, err := http.NewRequest(http.MethodPost, srv.URL+"/api/tools/greet/call", strings.NewReader(`{"name":"chi"}`))
	require.NoError(t, err)
	req.Header.Set("X-Request-Id", "req-7")
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()

	require.Equal(t, http.StatusOK, resp.StatusCode)
	var body map[string]any
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&body))
	assert.Equal(t, map[string]any{
		"content": []any{map[string]any{"type": "text", "text": "Hello, chi!"}},
		"isError": false,
		"_meta":   map[string]any{"_trace_id": "req-7"},
	}, body)
}

func TestOwnRoutesLiveBesideTheTools(t *testing.T) {
	srv := httptest.NewServer(newRouter(newExecutor()))
	defer srv.Close()

	status, body := get(t, srv.URL+"/healthz")
	assert.Equal(t, http.StatusOK, status)
	assert.Equal(t, "ok\n", body)

	// Outside the prefix the REST surface does not answer.
	status, _ = get(t, srv.URL+"/tools")
	assert.Equal(t, http.StatusNotFound, status)
}
