package main

import (
	"encoding/json"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// With OAuth, /mcp/NAME (a toolset's MCP endpoint, as mcp-toolbox serves
// it) is a resource of its own, BASE/mcp/NAME, with its own metadata
// (whose resource is the URL called, as spec-following clients check):
// its token check comes before anything else, so a caller without a token
// cannot tell which toolsets exist, and only a token for it opens it.
func TestServe_OAuthToolsetMCPRoutesAreResourcesOfTheirOwn(t *testing.T) {
	is := newIssuer(t, "openid", "tools.admin")
	const res = "https://tools.example.com"
	base, _ := startServerWith(t, t.TempDir(), groupTools, nil, "--oauth-issuer", is.srv.URL, "--oauth-resource", res+"/")

	for path, metadata := range map[string]string{
		"/mcp/public": "/mcp/public", "/mcp/nope": "/mcp/nope", "/mcp/public/tools/list": "/mcp/public",
		"/mcp/sse": "/mcp", "/mcp/tools/list": "/mcp",
	} {
		resp, body := send(t, base, http.MethodPost, path, "", mcpList)
		assert.Equal(t, http.StatusUnauthorized, resp.StatusCode, "%s: %s", path, body)
		assert.Contains(t, resp.Header.Get("WWW-Authenticate"), `resource_metadata="`+res+`/.well-known/oauth-protected-resource`+metadata+`"`, path)
	}
	// Each at its own URL, answered there (clients follow no redirect).
	noRedirect := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	for _, name := range []string{"", "/public", "/nope"} {
		resp, err := noRedirect.Get(base + "/.well-known/oauth-protected-resource/mcp" + name)
		require.NoError(t, err)
		var doc struct{ Resource string }
		require.Equal(t, http.StatusOK, resp.StatusCode, "defined or not: %s", name)
		require.NoError(t, json.NewDecoder(resp.Body).Decode(&doc))
		resp.Body.Close()
		assert.Equal(t, res+"/mcp"+name, doc.Resource)
	}
	resp, _ := send(t, base, http.MethodGet, "/.well-known/oauth-protected-resource/mcp/public/tools", "", "")
	assert.Equal(t, http.StatusNotFound, resp.StatusCode)

	tok := is.token(t, res+"/mcp/public", "scope", "openid tools.admin")
	resp, body := send(t, base, http.MethodPost, "/mcp/public", tok, mcpList)
	assert.Equal(t, http.StatusOK, resp.StatusCode, body)
	assert.Equal(t, []string{"find"}, toolNames(t, body), "the toolset's tools only")
	_, body = send(t, base, http.MethodPost, "/mcp/public", tok, mcpCall("find"))
	assert.Contains(t, body, "apple")
	_, body = send(t, base, http.MethodPost, "/mcp/public/tools/call", tok, mcpCall("find"))
	assert.Contains(t, body, "apple", "the toolset's HandsAI routes are part of it")

	// A token for another resource opens none of it: /mcp, the toolset's
	// /toolsets/ endpoint, another toolset.
	for _, aud := range []string{res + "/mcp", res + "/toolsets/public/mcp", res + "/mcp/other"} {
		resp, _ = send(t, base, http.MethodPost, "/mcp/public", is.token(t, aud, "scope", "openid tools.admin"), mcpList)
		assert.Equal(t, http.StatusUnauthorized, resp.StatusCode, aud)
	}
	resp, _ = send(t, base, http.MethodPost, "/mcp", tok, mcpList)
	assert.Equal(t, http.StatusUnauthorized, resp.StatusCode, "a token for /mcp/public does not open /mcp")

	// A valid token for an undefined toolset learns that it is not there.
	resp, _ = send(t, base, http.MethodPost, "/mcp/nope", is.token(t, res+"/mcp/nope"), mcpList)
	assert.Equal(t, http.StatusNotFound, resp.StatusCode)
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
