package main

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/go-jose/go-jose/v4"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolexec/toolexec"
	"github.com/toolexec/toolexec/internal/tokentest"
)

// issuer is an OpenID Provider for the tests: metadata advertising some
// scopes, and one signing key.
type issuer struct {
	srv *httptest.Server
	key *tokentest.Key
}

func newIssuer(t *testing.T, scopes ...string) *issuer {
	t.Helper()
	is := &issuer{key: tokentest.NewRSA(t, "k1")}
	mux := http.NewServeMux()
	mux.HandleFunc("/.well-known/openid-configuration", func(w http.ResponseWriter, _ *http.Request) {
		_ = json.NewEncoder(w).Encode(map[string]any{"issuer": is.srv.URL, "jwks_uri": is.srv.URL + "/keys", "scopes_supported": scopes})
	})
	mux.HandleFunc("/keys", func(w http.ResponseWriter, _ *http.Request) {
		_ = json.NewEncoder(w).Encode(jose.JSONWebKeySet{Keys: []jose.JSONWebKey{is.key.Public()}})
	})
	is.srv = httptest.NewServer(mux)
	t.Cleanup(is.srv.Close)
	return is
}

// token is an access token for audience with the claims given (name,
// value pairs) besides sub, iss, aud and the times.
func (is *issuer) token(t *testing.T, aud string, kv ...any) string {
	t.Helper()
	now := time.Now()
	claims := map[string]any{"iss": is.srv.URL, "sub": "alice", "aud": aud, "azp": "mcp-client",
		"iat": now.Unix(), "exp": now.Add(time.Hour).Unix()}
	for i := 0; i+1 < len(kv); i += 2 {
		claims[kv[i].(string)] = kv[i+1]
	}
	return is.key.Sign(t, "JWT", claims)
}

// groupTools adds to oauthTools a tool that members of the group "admins"
// may call.
var groupTools = strings.Replace(oauthTools, "toolsets:", `  wipe:
    kind: sqlite-sql
    source: db
    description: Counts the items, for admins.
    statement: SELECT count(*) AS n FROM items
    scopes: [admins]
toolsets:`, 1)

// send sends method path to base with a bearer token (when set) and a
// JSON body (when set), and returns the response and its body.
func send(t *testing.T, base, method, path, token, body string) (*http.Response, string) {
	t.Helper()
	req, err := http.NewRequest(method, base+path, strings.NewReader(body))
	require.NoError(t, err)
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return resp, string(b)
}

const (
	mcpInitialize = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`
	mcpList       = `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`
)

func mcpCall(tool string) string {
	args := `{}`
	if tool == "find" {
		args = `{"id":1}`
	}
	return `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"` + tool + `","arguments":` + args + `}}`
}

// toolNames are the names of an MCP tools/list answer.
func toolNames(t *testing.T, body string) []string {
	t.Helper()
	var m struct {
		Result struct{ Tools []struct{ Name string } }
	}
	require.NoError(t, json.Unmarshal([]byte(body), &m), body)
	out := []string{}
	for _, tl := range m.Result.Tools {
		out = append(out, tl.Name)
	}
	return out
}

// TestServe_OAuthListsNeedAToken: with --oauth-issuer, every request but
// the explorer page and OXP's health check needs a valid token for the
// endpoint it addresses (MCP's initialize and lists included, so MCP
// clients sign in first); each toolset is a resource of its own with its
// own metadata; the scopes clients are told to ask for default to openid
// and every scope the tools declare.
func TestServe_OAuthListsNeedAToken(t *testing.T) {
	is := newIssuer(t, "openid", "email", "tools.admin")
	const res = "https://tools.example.com"
	base, _ := startServerWith(t, t.TempDir(), groupTools, nil, "--oauth-issuer", is.srv.URL, "--oauth-resource", res+"/")
	meta := func(path string) string {
		return `resource_metadata="` + res + `/.well-known/oauth-protected-resource` + path + `"`
	}

	for _, c := range []struct{ method, path, body, metadata string }{
		{http.MethodPost, "/mcp", mcpInitialize, "/mcp"},
		{http.MethodPost, "/mcp", mcpList, "/mcp"},
		{http.MethodGet, "/mcp/tools/list", "", "/mcp"},
		{http.MethodGet, "/api/tools", "", "/api"},
		{http.MethodGet, "/api/tools/find", "", "/api"},
		{http.MethodGet, "/api/_explorer/tools", "", "/api"},
		{http.MethodPost, "/toolsets/public/mcp", mcpList, "/toolsets/public/mcp"},
		{http.MethodGet, "/toolsets/public/api/tools", "", "/toolsets/public/api"},
	} {
		resp, body := send(t, base, c.method, c.path, "", c.body)
		assert.Equal(t, http.StatusUnauthorized, resp.StatusCode, "%s %s: %s", c.method, c.path, body)
		assert.JSONEq(t, `{"error":"Unauthorized"}`, body, c.path)
		assert.Equal(t, `Bearer scope="openid admins tools.admin", `+meta(c.metadata), resp.Header.Get("WWW-Authenticate"), c.path)
	}
	resp, body := send(t, base, http.MethodGet, "/oxp/tools", "", "")
	assert.Equal(t, http.StatusBadRequest, resp.StatusCode, "OXP answers refused credentials with 400")
	assert.Contains(t, body, `"message":"Authentication is required"`)
	assert.Equal(t, "1.0", resp.Header.Get("OXP-Version"))
	assert.Contains(t, resp.Header.Get("WWW-Authenticate"), meta("/oxp"))
	resp, _ = send(t, base, http.MethodGet, "/api/", "", "")
	assert.Equal(t, http.StatusOK, resp.StatusCode, "the explorer page itself holds no tool")
	resp, _ = send(t, base, http.MethodGet, "/oxp/health", "", "")
	assert.Equal(t, http.StatusOK, resp.StatusCode)

	// Each toolset endpoint has its own metadata, naming its own URI.
	for path, want := range map[string]string{"/mcp": res + "/mcp", "/toolsets/public/mcp": res + "/toolsets/public/mcp",
		"/toolsets/public/oxp": res + "/toolsets/public/oxp"} {
		resp, body := send(t, base, http.MethodGet, "/.well-known/oauth-protected-resource"+path, "", "")
		require.Equal(t, http.StatusOK, resp.StatusCode, body)
		var doc struct {
			Resource        string   `json:"resource"`
			ScopesSupported []string `json:"scopes_supported"`
		}
		require.NoError(t, json.Unmarshal([]byte(body), &doc))
		assert.Equal(t, want, doc.Resource)
		assert.Equal(t, []string{"openid", "admins", "tools.admin"}, doc.ScopesSupported, "openid and every tool scope: scope claims hold OAuth scopes")
	}
	resp, _ = send(t, base, http.MethodGet, "/.well-known/oauth-protected-resource/toolsets/nope/mcp", "", "")
	assert.Equal(t, http.StatusNotFound, resp.StatusCode)

	// A token for /mcp signs in, lists what it may call, calls.
	tok := is.token(t, res+"/mcp", "scope", "openid")
	resp, body = send(t, base, http.MethodPost, "/mcp", tok, mcpInitialize)
	assert.Equal(t, http.StatusOK, resp.StatusCode, body)
	_, body = send(t, base, http.MethodPost, "/mcp", tok, mcpList)
	assert.Equal(t, []string{"find"}, toolNames(t, body))
	_, body = send(t, base, http.MethodPost, "/mcp", tok, mcpCall("find"))
	assert.Contains(t, body, "apple")
	resp, _ = send(t, base, http.MethodPost, "/mcp", tok, mcpCall("admin"))
	assert.Equal(t, http.StatusForbidden, resp.StatusCode)
	assert.Contains(t, resp.Header.Get("WWW-Authenticate"), `error="insufficient_scope", scope="tools.admin openid"`)
	resp, _ = send(t, base, http.MethodPost, "/mcp", is.token(t, res+"/mcp", "scope", "admins"), mcpCall("admin"))
	assert.Contains(t, resp.Header.Get("WWW-Authenticate"), `error="insufficient_scope", scope="tools.admin admins"`,
		"the 403 keeps the scopes the token holds")
	admin := is.token(t, res+"/mcp", "scope", "openid tools.admin")
	_, body = send(t, base, http.MethodPost, "/mcp", admin, mcpList)
	assert.Equal(t, []string{"find", "admin"}, toolNames(t, body))

	// A token is for one endpoint.
	for _, path := range []string{"/api/tools", "/toolsets/public/api/tools"} {
		resp, _ = send(t, base, http.MethodGet, path, tok, "")
		assert.Equal(t, http.StatusUnauthorized, resp.StatusCode, path)
	}
	resp, _ = send(t, base, http.MethodPost, "/toolsets/public/mcp", tok, mcpList)
	assert.Equal(t, http.StatusUnauthorized, resp.StatusCode, "a token for /mcp does not open a toolset's endpoint")
	ts := is.token(t, res+"/toolsets/public/mcp")
	resp, body = send(t, base, http.MethodPost, "/toolsets/public/mcp", ts, mcpList)
	require.Equal(t, http.StatusOK, resp.StatusCode, body)
	assert.Equal(t, []string{"find"}, toolNames(t, body))
	resp, _ = send(t, base, http.MethodPost, "/mcp", ts, mcpList)
	assert.Equal(t, http.StatusUnauthorized, resp.StatusCode)
}

// TestServe_OAuthPublicList: with --oauth-public-list, an anonymous caller
// lists the tools that need no scope, and calls still need a token.
func TestServe_OAuthPublicList(t *testing.T) {
	is := newIssuer(t) // advertising no scopes
	const res = "https://tools.example.com"
	base, _ := startServerWith(t, t.TempDir(), groupTools, nil, "--oauth-issuer", is.srv.URL, "--oauth-resource", res,
		"--oauth-public-list")
	_, body := send(t, base, http.MethodPost, "/mcp", "", mcpList)
	assert.Equal(t, []string{"find"}, toolNames(t, body))
	resp, _ := send(t, base, http.MethodPost, "/mcp", "", mcpCall("find"))
	assert.Equal(t, http.StatusUnauthorized, resp.StatusCode)
	resp, body = send(t, base, http.MethodGet, "/oxp/tools", "", "")
	assert.Equal(t, http.StatusOK, resp.StatusCode, body)
	_, body = send(t, base, http.MethodGet, "/.well-known/oauth-protected-resource/mcp", "", "")
	assert.Contains(t, body, `"scopes_supported":["admins","tools.admin"]`, "an issuer that lists no scopes: every tool scope")
}

// TestServe_OAuthIdentityProviderFlags: --oauth-scope-claim reads groups
// as scopes; --oauth-audience admits a further audience from an
// --oauth-client only; --oauth-scopes names {resource} per endpoint.
func TestServe_OAuthIdentityProviderFlags(t *testing.T) {
	is := newIssuer(t, "openid", "groups")
	const res = "https://tools.example.com"
	base, _ := startServerWith(t, t.TempDir(), groupTools, nil, "--oauth-issuer", is.srv.URL, "--oauth-resource", res,
		"--oauth-scope-claim", "groups", "--oauth-audience", "api-app", "--oauth-client", "mcp-client",
		"--oauth-scopes", "openid,groups,audience:server:client_id:{resource}")

	member := is.token(t, "api-app", "groups", []string{"admins"})
	_, body := send(t, base, http.MethodPost, "/mcp", member, mcpCall("wipe"))
	assert.Contains(t, body, `"isError":false`, "the group admins grants the tool's scope")
	resp, _ := send(t, base, http.MethodPost, "/mcp", is.token(t, "api-app", "groups", []string{"devs"}), mcpCall("wipe"))
	assert.Equal(t, http.StatusForbidden, resp.StatusCode)
	resp, _ = send(t, base, http.MethodPost, "/mcp", is.token(t, "api-app", "azp", "other-app", "groups", []string{"admins"}), mcpList)
	assert.Equal(t, http.StatusUnauthorized, resp.StatusCode, "another client's token for the further audience")
	resp, _ = send(t, base, http.MethodPost, "/mcp", is.token(t, "api-app", "nonce", "n", "groups", []string{"admins"}), mcpList)
	assert.Equal(t, http.StatusUnauthorized, resp.StatusCode, "an ID token")

	resp, _ = send(t, base, http.MethodPost, "/toolsets/public/mcp", "", mcpList)
	assert.Equal(t, `Bearer scope="openid groups audience:server:client_id:`+res+`/toolsets/public/mcp", resource_metadata="`+
		res+`/.well-known/oauth-protected-resource/toolsets/public/mcp"`, resp.Header.Get("WWW-Authenticate"))
}

func TestDefaultScopes(t *testing.T) {
	tools := []toolexec.Tool{
		{Name: "a", Options: toolexec.ToolOptions{Scopes: []string{"tools.call"}}},
		{Name: "b", Options: toolexec.ToolOptions{Scopes: []string{"admins", "tools.call"}}},
		{Name: "c"},
	}
	for _, c := range []struct {
		name       string
		advertised []string
		known      bool
		claims     []string
		want       []string
	}{
		{"Dex: openid and groups, never a group", []string{"openid", "email", "groups", "profile", "offline_access"}, true, []string{"groups"}, []string{"openid", "groups"}},
		{"Keycloak: openid and the client scopes", []string{"openid", "profile", "tools.call", "roles"}, true, []string{"scope", "realm_access.roles"}, []string{"openid", "tools.call"}},
		{"groups, no scopes advertised: every tool scope", nil, true, []string{"groups"}, []string{"admins", "tools.call"}},
		{"groups, metadata unreadable: every tool scope", nil, false, []string{"groups"}, []string{"admins", "tools.call"}},
		{"scope claims only: openid and every tool scope, advertised or not", []string{"openid", "offline_access"}, true, nil,
			[]string{"openid", "admins", "tools.call"}},
		{"scp: the same", []string{"openid"}, true, []string{"scp"}, []string{"openid", "admins", "tools.call"}},
		{"no scopes advertised: every tool scope", nil, true, nil, []string{"admins", "tools.call"}},
	} {
		assert.Equal(t, c.want, defaultScopes(c.advertised, c.known, c.claims, tools), c.name)
	}
}

func TestOAuthBanner(t *testing.T) {
	o := oauthFlags{issuer: "https://dex.example.com", base: "https://tools.example.com/"}
	b := o.banner([]string{"openid", "groups", "audience:server:client_id:{resource}"})
	assert.Contains(t, b, "every request needs an OAuth access token")
	assert.Contains(t, b, "https://dex.example.com")
	assert.Contains(t, b, "https://tools.example.com/mcp")
	assert.Contains(t, b, "openid groups audience:server:client_id:https://tools.example.com/mcp")
	assert.Contains(t, b, "https://tools.example.com/.well-known/oauth-protected-resource/mcp")
	o.publicList, o.audiences, o.clients = true, []string{"api-app"}, []string{"mcp-client"}
	b = o.banner(nil)
	assert.Contains(t, b, "tool lists are public")
	assert.Contains(t, b, "api-app from mcp-client")
}
