package main

import (
	"context"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/auth/extauth"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/modelcontextprotocol/go-sdk/oauthex"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolexec/toolexec/internal/oidcprovider"
)

// realProvider is node's oidc-provider, started once for the package by
// the first test that needs it (internal/oidcprovider); TestMain stops it.
var realProvider oidcprovider.Shared

// providerTools: find needs tools.call, admin tools.admin; the toolset
// public holds both.
var providerTools = strings.Replace(strings.Replace(e2eTools, "toolsets:", `  admin:
    kind: sqlite-sql
    source: db
    description: Counts the items.
    statement: SELECT count(*) AS n FROM items
    scopes: [tools.admin]
toolsets:`, 1), "statement: SELECT id, name FROM items WHERE id = ?", "statement: SELECT id, name FROM items WHERE id = ?\n    scopes: [tools.call]", 1) + "  ops: [find, admin]\n"

// serveWithProvider runs `toolexec serve` on a port chosen first, with
// --oauth-resource naming it (oidc-provider issues tokens for loopback
// resources only) and p as the issuer, with flags added; it returns the
// base URL.
func serveWithProvider(t *testing.T, p *oidcprovider.Provider, env map[string]string, flags ...string) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := ln.Addr().String()
	require.NoError(t, ln.Close())
	base := "http://" + addr
	got, _ := startServerWith(t, t.TempDir(), providerTools, env,
		append([]string{"--addr", addr, "--oauth-issuer", p.Issuer, "--oauth-resource", base}, flags...)...)
	require.Equal(t, base, got)
	return base
}

// TestServe_OAuthWithARealProvider: `toolexec serve` with node's
// oidc-provider as its issuer: the default scopes, tokens for each
// endpoint (toolsets' included) accepted there only, per-tool scopes and
// step-up, ID tokens and expired tokens refused, opaque tokens through
// introspection refused once revoked.
func TestServe_OAuthWithARealProvider(t *testing.T) {
	t.Parallel()
	p := realProvider.Get(t)
	ctx := context.Background()
	base := serveWithProvider(t, p, map[string]string{"TOOLEXEC_OAUTH_INTROSPECTION_SECRET": oidcprovider.Secret(oidcprovider.Introspector)},
		"--oauth-introspect", "--oauth-introspection-client", oidcprovider.Introspector, "--oauth-leeway", "-1ns")
	token := func(client, scope, resource string) string {
		t.Helper()
		tok, err := p.ClientCredentials(ctx, client, scope, resource)
		require.NoError(t, err)
		return tok.AccessToken
	}

	// Clients are told to ask for openid and every scope a tool declares,
	// though the provider advertises neither tool scope.
	resp, body := send(t, base, http.MethodPost, "/mcp", "", mcpInitialize)
	require.Equal(t, http.StatusUnauthorized, resp.StatusCode, body)
	assert.Equal(t, `Bearer scope="openid tools.admin tools.call", resource_metadata="`+base+`/.well-known/oauth-protected-resource/mcp"`,
		resp.Header.Get("WWW-Authenticate"))

	for _, c := range []struct{ name, client string }{{"JWT", oidcprovider.Agent}, {"opaque, introspected", oidcprovider.OpaqueAgent}} {
		t.Run(c.name, func(t *testing.T) {
			for _, path := range []string{"/mcp", "/mcp/ops", "/toolsets/ops/mcp"} {
				call := token(c.client, "tools.call", base+path)
				_, body := send(t, base, http.MethodPost, path, call, mcpList)
				assert.Equal(t, []string{"find"}, toolNames(t, body), path)
				_, body = send(t, base, http.MethodPost, path, call, mcpCall("find"))
				assert.Contains(t, body, "apple", path)
				resp, _ := send(t, base, http.MethodPost, path, call, mcpCall("admin"))
				assert.Equal(t, http.StatusForbidden, resp.StatusCode, path)
				assert.Equal(t, `Bearer error="insufficient_scope", scope="tools.admin tools.call", resource_metadata="`+base+
					`/.well-known/oauth-protected-resource`+path+`"`, resp.Header.Get("WWW-Authenticate"), path)
				admin := token(c.client, "tools.call tools.admin", base+path)
				_, body = send(t, base, http.MethodPost, path, admin, mcpCall("admin"))
				assert.Contains(t, body, `"isError":false`, path)

				// Each endpoint is a resource of its own.
				for _, other := range []string{"/mcp", "/mcp/ops", "/toolsets/ops/mcp"} {
					if other != path {
						resp, _ := send(t, base, http.MethodPost, other, call, mcpList)
						assert.Equal(t, http.StatusUnauthorized, resp.StatusCode, "a token for %s on %s", path, other)
					}
				}
			}
		})
	}

	t.Run("revoked opaque token", func(t *testing.T) {
		tok := token(oidcprovider.OpaqueAgent, "tools.call", base+"/mcp")
		resp, _ := send(t, base, http.MethodPost, "/mcp", tok, mcpList)
		require.Equal(t, http.StatusOK, resp.StatusCode)
		require.NoError(t, p.Revoke(ctx, oidcprovider.OpaqueAgent, tok))
		resp, _ = send(t, base, http.MethodPost, "/mcp", tok, mcpList)
		assert.Equal(t, http.StatusUnauthorized, resp.StatusCode)
		assert.Contains(t, resp.Header.Get("WWW-Authenticate"), `error="invalid_token"`)
	})

	t.Run("expired token", func(t *testing.T) {
		tok, err := p.ClientCredentials(ctx, oidcprovider.BriefAgent, "tools.call", base+"/mcp")
		require.NoError(t, err)
		resp, _ := send(t, base, http.MethodPost, "/mcp", tok.AccessToken, mcpList)
		require.Equal(t, http.StatusOK, resp.StatusCode)
		time.Sleep(time.Duration(tok.ExpiresIn)*time.Second + 1100*time.Millisecond)
		resp, _ = send(t, base, http.MethodPost, "/mcp", tok.AccessToken, mcpList)
		assert.Equal(t, http.StatusUnauthorized, resp.StatusCode)
	})

	t.Run("ID token", func(t *testing.T) {
		handler, _ := codeHandler(t, nil)
		require.NoError(t, handler.Authorize(ctx, mustRequest(t, base+"/mcp"), unauthorized(t, base, "/mcp")))
		ts, err := handler.TokenSource(ctx)
		require.NoError(t, err)
		tok, err := ts.Token()
		require.NoError(t, err)
		id, _ := tok.Extra("id_token").(string)
		require.NotEmpty(t, id, "the sign-in asked for openid")
		resp, _ := send(t, base, http.MethodPost, "/mcp", tok.AccessToken, mcpList)
		assert.Equal(t, http.StatusOK, resp.StatusCode, "the access token of the sign-in")
		resp, _ = send(t, base, http.MethodPost, "/mcp", id, mcpList)
		assert.Equal(t, http.StatusUnauthorized, resp.StatusCode, "its ID token")
	})
}

// codeHandler is the Go SDK's authorization code handler playing an MCP
// client on this machine, its browser step played by SignIn: registered
// dynamically (RFC 7591) when client is nil, else preregistered.
func codeHandler(t *testing.T, client *oauthex.ClientCredentials) (*auth.AuthorizationCodeHandler, string) {
	t.Helper()
	const redirect = "http://127.0.0.1:33418/callback" // SignIn stops there: nothing listens
	cfg := &auth.AuthorizationCodeHandlerConfig{
		RedirectURL: redirect,
		AuthorizationCodeFetcher: func(ctx context.Context, args *auth.AuthorizationArgs) (*auth.AuthorizationResult, error) {
			got, err := oidcprovider.SignIn(ctx, args.URL, redirect)
			if err != nil {
				return nil, err
			}
			return &auth.AuthorizationResult{Code: got.Code, State: got.State, Iss: got.Issuer}, nil
		},
	}
	if client != nil {
		cfg.PreregisteredClient = client
	} else {
		cfg.DynamicClientRegistrationConfig = &auth.DynamicClientRegistrationConfig{Metadata: &oauthex.ClientRegistrationMetadata{
			RedirectURIs: []string{redirect}, ClientName: "toolexec test", TokenEndpointAuthMethod: "none",
			GrantTypes: []string{"authorization_code"}, ResponseTypes: []string{"code"},
		}}
	}
	h, err := auth.NewAuthorizationCodeHandler(cfg)
	require.NoError(t, err)
	return h, redirect
}

func mustRequest(t *testing.T, u string) *http.Request {
	t.Helper()
	r, err := http.NewRequest(http.MethodPost, u, nil)
	require.NoError(t, err)
	return r
}

// unauthorized is the 401 of an MCP request without a token to path.
func unauthorized(t *testing.T, base, path string) *http.Response {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, base+path, strings.NewReader(mcpInitialize))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	require.Equal(t, http.StatusUnauthorized, resp.StatusCode)
	return resp
}

// TestServe_OAuthGoSDKClientSignsIn: the official Go SDK's client, with its
// authorization code handler, knowing nothing but an MCP URL of `toolexec
// serve`, finds oidc-provider through the challenge and the metadata,
// registers itself (or uses its preregistered id), signs the user in with
// PKCE and the resource parameter, lists and calls; a tool needing more
// than the first sign-in granted makes it step up on the 403. On /mcp,
// /mcp/NAME and /toolsets/NAME/mcp alike.
func TestServe_OAuthGoSDKClientSignsIn(t *testing.T) {
	t.Parallel()
	p := realProvider.Get(t)
	base := serveWithProvider(t, p, nil, "--oauth-scopes", "openid,tools.call")
	for _, c := range []struct {
		path   string
		client *oauthex.ClientCredentials
	}{
		{"/mcp", nil},
		{"/mcp/ops", &oauthex.ClientCredentials{ClientID: oidcprovider.MCPClient}},
		{"/toolsets/ops/mcp", nil},
	} {
		t.Run(c.path, func(t *testing.T) {
			ctx := context.Background()
			handler, _ := codeHandler(t, c.client)
			client := sdk.NewClient(&sdk.Implementation{Name: "sdk-test", Version: "1"}, nil)
			session, err := client.Connect(ctx, &sdk.StreamableClientTransport{Endpoint: base + c.path, OAuthHandler: handler}, nil)
			require.NoError(t, err)
			defer session.Close()

			tools, err := session.ListTools(ctx, nil)
			require.NoError(t, err)
			require.Len(t, tools.Tools, 1, "the first sign-in asked for tools.call only")
			assert.Equal(t, "find", tools.Tools[0].Name)
			res, err := session.CallTool(ctx, &sdk.CallToolParams{Name: "find", Arguments: map[string]any{"id": 1}})
			require.NoError(t, err)
			require.False(t, res.IsError)
			assert.Contains(t, res.Content[0].(*sdk.TextContent).Text, "apple")

			res, err = session.CallTool(ctx, &sdk.CallToolParams{Name: "admin", Arguments: map[string]any{}})
			require.NoError(t, err, "the 403 names tools.admin; the client signs in again for it and retries")
			require.False(t, res.IsError)
			assert.Contains(t, res.Content[0].(*sdk.TextContent).Text, "2")
		})
	}
}

// TestServe_OAuthGoSDKClientCredentials: the Go SDK's client credentials
// handler sends no resource parameter; a provider that gives the client's
// tokens a default resource (oidc-provider: the client's default_resource)
// makes them good for `toolexec serve`'s /mcp, and the handler calls, and
// steps up on the 403.
func TestServe_OAuthGoSDKClientCredentials(t *testing.T) {
	t.Parallel()
	p := realProvider.Get(t)
	ctx := context.Background()
	base := serveWithProvider(t, p, nil, "--oauth-scopes", "tools.call")
	id, secret, err := p.Register(ctx, map[string]any{"grant_types": []string{"client_credentials"}, "response_types": []string{},
		"redirect_uris": []string{}, "token_endpoint_auth_method": "client_secret_basic", "default_resource": base + "/mcp"})
	require.NoError(t, err)
	handler, err := extauth.NewClientCredentialsHandler(&extauth.ClientCredentialsHandlerConfig{
		Credentials: &oauthex.ClientCredentials{ClientID: id, ClientSecretAuth: &oauthex.ClientSecretAuth{ClientSecret: secret}}})
	require.NoError(t, err)
	client := sdk.NewClient(&sdk.Implementation{Name: "daemon", Version: "1"}, nil)
	session, err := client.Connect(ctx, &sdk.StreamableClientTransport{Endpoint: base + "/mcp", OAuthHandler: handler}, nil)
	require.NoError(t, err)
	defer session.Close()
	res, err := session.CallTool(ctx, &sdk.CallToolParams{Name: "find", Arguments: map[string]any{"id": 1}})
	require.NoError(t, err)
	assert.Contains(t, res.Content[0].(*sdk.TextContent).Text, "apple")
	res, err = session.CallTool(ctx, &sdk.CallToolParams{Name: "admin", Arguments: map[string]any{}})
	require.NoError(t, err, "stepped up to tools.admin")
	assert.False(t, res.IsError)
}
