package main

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
)

// With OAuth, /mcp/NAME (a toolset's MCP endpoint, as mcp-toolbox serves
// it) is part of the /mcp resource: its token check comes before anything
// else, so a caller without a token cannot tell which toolsets exist, and
// a token for /mcp opens it.
func TestServe_OAuthToolsetMCPRoutesArePartOfMCP(t *testing.T) {
	is := newIssuer(t, "openid", "tools.admin")
	const res = "https://tools.example.com"
	base, _ := startServerWith(t, t.TempDir(), groupTools, nil, "--oauth-issuer", is.srv.URL, "--oauth-resource", res+"/")

	for _, path := range []string{"/mcp/public", "/mcp/nope", "/mcp/public/tools/list", "/mcp/sse"} {
		resp, body := send(t, base, http.MethodPost, path, "", mcpList)
		assert.Equal(t, http.StatusUnauthorized, resp.StatusCode, "%s: %s", path, body)
		assert.Contains(t, resp.Header.Get("WWW-Authenticate"), `resource_metadata="`+res+`/.well-known/oauth-protected-resource/mcp"`, path)
	}

	tok := is.token(t, res+"/mcp", "scope", "openid tools.admin")
	resp, body := send(t, base, http.MethodPost, "/mcp/public", tok, mcpList)
	assert.Equal(t, http.StatusOK, resp.StatusCode, body)
	assert.Equal(t, []string{"find"}, toolNames(t, body), "the toolset's tools only")
	_, body = send(t, base, http.MethodPost, "/mcp/public", tok, mcpCall("find"))
	assert.Contains(t, body, "apple")
	resp, _ = send(t, base, http.MethodPost, "/mcp/nope", tok, mcpList)
	assert.Equal(t, http.StatusNotFound, resp.StatusCode)

	// A token for the toolset's own /toolsets/ resource is for that one.
	other := is.token(t, res+"/toolsets/public/mcp", "scope", "openid")
	resp, _ = send(t, base, http.MethodPost, "/mcp/public", other, mcpList)
	assert.Equal(t, http.StatusUnauthorized, resp.StatusCode)
}

// With OAuth, mcp-toolbox's native API is part of the /api resource: its
// manifests need a token for /api, as the REST lists do, and its calls the
// token and scopes a REST call needs.
func TestServe_OAuthToolboxNativeAPIIsPartOfAPI(t *testing.T) {
	is := newIssuer(t, "openid", "tools.admin")
	const res = "https://tools.example.com"
	base, _ := startServerWith(t, t.TempDir(), groupTools, nil, "--oauth-issuer", is.srv.URL, "--oauth-resource", res+"/")
	for _, path := range []string{"/api/toolset", "/api/toolset/public", "/api/tool/find"} {
		resp, body := send(t, base, http.MethodGet, path, "", "")
		assert.Equal(t, http.StatusUnauthorized, resp.StatusCode, "%s: %s", path, body)
		assert.Contains(t, resp.Header.Get("WWW-Authenticate"), `/.well-known/oauth-protected-resource/api"`, path)
	}
	resp, _ := send(t, base, http.MethodPost, "/api/tool/find/invoke", "", `{"id":1}`)
	assert.Equal(t, http.StatusUnauthorized, resp.StatusCode)

	tok := is.token(t, res+"/api", "scope", "openid")
	resp, body := send(t, base, http.MethodGet, "/api/toolset", tok, "")
	assert.Equal(t, http.StatusOK, resp.StatusCode, body)
	assert.Contains(t, body, `"find"`)
	assert.NotContains(t, body, `"admin"`, "a tool the caller may not call is not listed")
	resp, body = send(t, base, http.MethodPost, "/api/tool/find/invoke", tok, `{"id":1}`)
	assert.Equal(t, http.StatusOK, resp.StatusCode, body)
	assert.Contains(t, body, "apple")
	resp, _ = send(t, base, http.MethodPost, "/api/tool/admin/invoke", tok, `{}`)
	assert.Equal(t, http.StatusForbidden, resp.StatusCode)
}
