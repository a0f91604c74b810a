package main

import (
	"io"
	"net/http"
	"regexp"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// GET /api/ is the explorer page, with its Call button on, calling over
// MCP, and the token field shown for the server's auth hook; the REST
// routes answer as before.
func TestExplorerPageAtTheRESTRoot(t *testing.T) {
	srv := newTestServer(t)
	resp, err := http.Get(srv.URL + "/api/")
	require.NoError(t, err)
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, resp.StatusCode)
	assert.Equal(t, "text/html; charset=utf-8", resp.Header.Get("Content-Type"))
	cfg := regexp.MustCompile(`<script type="application/json" id="explorer-config">([^<]*)</script>`).FindSubmatch(body)
	require.NotNil(t, cfg)
	assert.Contains(t, string(cfg[1]), `"execute":true`)
	assert.Contains(t, string(cfg[1]), `"auth":true`)
	assert.Contains(t, string(cfg[1]), `"mcp":"/mcp"`, "the page calls through the MCP endpoint")

	status, _ := do(t, t.Context(), http.MethodGet, srv.URL+"/api/tools", "", "")
	assert.Equal(t, http.StatusOK, status)
}
