package main

import (
	"encoding/json"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// openAPIDoc is what these tests read of an OpenAPI document.
type openAPIDoc struct {
	Info struct {
		Title, Version string
	}
	Servers []struct{ URL string }
	Paths   map[string]map[string]struct {
		Security []map[string][]string
	}
	Components struct {
		SecuritySchemes map[string]map[string]string
	}
}

func readDoc(t *testing.T, base, path, token string) openAPIDoc {
	t.Helper()
	resp, body := send(t, base, http.MethodGet, path, token, "")
	require.Equal(t, http.StatusOK, resp.StatusCode, "%s: %s", path, body)
	var doc openAPIDoc
	require.NoError(t, json.Unmarshal([]byte(body), &doc), body)
	return doc
}

// TestServe_OpenAPIDescribesEachMount: /api and each toolset's REST
// surface serve their own document, titled after the server and the
// toolset, listing their own tools, with the server URL they are reached
// at and the bearer token calls need.
func TestServe_OpenAPIDescribesEachMount(t *testing.T) {
	base, _ := startServerWith(t, t.TempDir(), oauthTools, map[string]string{"TOOLEXEC_TOKEN": "tok"})

	all := readDoc(t, base, "/api/openapi.json", "")
	assert.Equal(t, "toolexec tools", all.Info.Title)
	assert.Equal(t, version, all.Info.Version)
	require.Len(t, all.Servers, 1)
	assert.Equal(t, base+"/api", all.Servers[0].URL)
	assert.Contains(t, all.Paths, "/tools/find/call")
	assert.Contains(t, all.Paths, "/tools/admin/call")
	assert.Equal(t, map[string]string{"type": "http", "scheme": "bearer",
		"description": "The token the server's auth hook accepts, as Authorization: Bearer TOKEN."}, all.Components.SecuritySchemes["bearerAuth"])
	assert.Equal(t, []map[string][]string{{"bearerAuth": {}}}, all.Paths["/tools/find/call"]["post"].Security)

	set := readDoc(t, base, "/toolsets/public/api/openapi.json", "")
	assert.Equal(t, "toolexec tools: toolset public", set.Info.Title)
	assert.Equal(t, base+"/toolsets/public/api", set.Servers[0].URL)
	assert.Contains(t, set.Paths, "/tools/find/call")
	assert.NotContains(t, set.Paths, "/tools/admin/call", "only the toolset's tools")

	resp, body := send(t, base, http.MethodGet, "/toolsets/public/api/llms.txt", "", "")
	require.Equal(t, http.StatusOK, resp.StatusCode)
	assert.Contains(t, body, "Base URL: "+base+"/toolsets/public/api\n")
	assert.Contains(t, body, "- [find](tools/find): Find an item by id.\n")
}

// TestServe_OpenAPIWithOAuth: with --oauth-issuer, a document is served
// to a caller with a token for its resource, names the resource's public
// URL as its server and the issuer's discovery document as its security
// scheme, lists each tool's scopes, and shows only the tools the token may
// call.
func TestServe_OpenAPIWithOAuth(t *testing.T) {
	is := newIssuer(t, "openid", "tools.admin")
	const res = "https://tools.example.com"
	base, _ := startServerWith(t, t.TempDir(), oauthTools, nil, "--oauth-issuer", is.srv.URL, "--oauth-resource", res+"/")

	resp, _ := send(t, base, http.MethodGet, "/api/openapi.json", "", "")
	assert.Equal(t, http.StatusUnauthorized, resp.StatusCode, "lists need a token, and so does the document")

	doc := readDoc(t, base, "/api/openapi.json", is.token(t, res+"/api", "scope", "openid"))
	assert.Equal(t, res+"/api", doc.Servers[0].URL)
	assert.Equal(t, "openIdConnect", doc.Components.SecuritySchemes["oauth"]["type"])
	assert.Equal(t, is.srv.URL+"/.well-known/openid-configuration", doc.Components.SecuritySchemes["oauth"]["openIdConnectUrl"])
	assert.Equal(t, []map[string][]string{{"oauth": {}}}, doc.Paths["/tools"]["get"].Security, "the list needs the token too")
	assert.Contains(t, doc.Paths, "/tools/find/call")
	assert.NotContains(t, doc.Paths, "/tools/admin/call", "a token without tools.admin does not see admin")

	admin := readDoc(t, base, "/api/openapi.json", is.token(t, res+"/api", "scope", "openid tools.admin"))
	assert.Equal(t, []map[string][]string{{"oauth": {"tools.admin"}}}, admin.Paths["/tools/admin/call"]["post"].Security)

	set := readDoc(t, base, "/toolsets/public/api/openapi.json", is.token(t, res+"/toolsets/public/api"))
	assert.Equal(t, res+"/toolsets/public/api", set.Servers[0].URL)
}
