package main

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/auth/extauth"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/modelcontextprotocol/go-sdk/oauthex"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestOfficialGoSDKClientAuthorizes connects the official MCP Go SDK's
// client, with its client_credentials OAuth handler, to nothing but the MCP
// URL: it must find the provider through the challenge and the metadata,
// get a token, call echo, and step up to tools.admin on secret's 403.
func TestOfficialGoSDKClientAuthorizes(t *testing.T) {
	r := start(t)
	handler, err := extauth.NewClientCredentialsHandler(&extauth.ClientCredentialsHandlerConfig{
		Credentials: &oauthex.ClientCredentials{
			ClientID:         clientID,
			ClientSecretAuth: &oauthex.ClientSecretAuth{ClientSecret: clientSecret},
		},
	})
	require.NoError(t, err)
	client := mcp.NewClient(&mcp.Implementation{Name: "sdk-test", Version: "1"}, nil)
	ctx := context.Background()
	session, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: r.base + "/mcp", OAuthHandler: handler}, nil)
	require.NoError(t, err)
	defer session.Close()

	tools, err := session.ListTools(ctx, nil)
	require.NoError(t, err)
	require.Len(t, tools.Tools, 1, "the token holds tools.call only")
	assert.Equal(t, "echo", tools.Tools[0].Name)

	res, err := session.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"text": "sdk"}})
	require.NoError(t, err)
	require.False(t, res.IsError)
	assert.Equal(t, "demo says: sdk", res.Content[0].(*mcp.TextContent).Text)

	res, err = session.CallTool(ctx, &mcp.CallToolParams{Name: "secret", Arguments: map[string]any{}})
	require.NoError(t, err, "the 403 names tools.admin; the client steps up and retries")
	require.False(t, res.IsError)
	assert.Equal(t, "the secret is 42", res.Content[0].(*mcp.TextContent).Text)
}

// sdkSignIn is the Go SDK's authorization code handler, its browser step
// played by browser (alice allows), for a client configured by set.
func sdkSignIn(t *testing.T, redirect string, set func(*auth.AuthorizationCodeHandlerConfig)) *auth.AuthorizationCodeHandler {
	t.Helper()
	cfg := &auth.AuthorizationCodeHandlerConfig{
		RedirectURL: redirect,
		AuthorizationCodeFetcher: func(_ context.Context, args *auth.AuthorizationArgs) (*auth.AuthorizationResult, error) {
			b := newBrowser(t, redirect, "allow")
			status, body := b.answer(t, args.URL)
			if b.landed == nil {
				return nil, fmt.Errorf("the sign-in ended on a page (%d): %s", status, body)
			}
			q := b.landed.Query()
			return &auth.AuthorizationResult{Code: q.Get("code"), State: q.Get("state"), Iss: q.Get("iss")}, nil
		},
	}
	set(cfg)
	h, err := auth.NewAuthorizationCodeHandler(cfg)
	require.NoError(t, err)
	return h
}

// TestOfficialGoSDKClientSignsAUserIn connects the official MCP Go SDK's
// client with its authorization code handler to the MCP URL alone: it
// finds the provider, registers itself (RFC 7591), presents its Client ID
// Metadata Document, or uses the preregistered client, signs alice in with
// PKCE and the resource parameter, calls echo, and steps up to
// tools.admin for secret.
func TestOfficialGoSDKClientSignsAUserIn(t *testing.T) {
	const redirect = "http://127.0.0.1:5557/callback"
	var docs *httptest.Server
	docs = httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		writeJSON(w, http.StatusOK, map[string]any{"client_id": docs.URL + req.URL.Path, "client_name": "Go SDK test",
			"redirect_uris": []string{redirect}, "token_endpoint_auth_method": "none",
			"grant_types": []string{"authorization_code", "refresh_token"}})
	}))
	t.Cleanup(docs.Close)
	r := startWith(t, docs.Client())
	for name, set := range map[string]func(*auth.AuthorizationCodeHandlerConfig){
		"dynamic registration": func(c *auth.AuthorizationCodeHandlerConfig) {
			c.DynamicClientRegistrationConfig = &auth.DynamicClientRegistrationConfig{Metadata: &oauthex.ClientRegistrationMetadata{
				RedirectURIs: []string{redirect}, ClientName: "Go SDK test", TokenEndpointAuthMethod: "none",
				GrantTypes: []string{"authorization_code", "refresh_token"}}}
		},
		"client ID metadata document": func(c *auth.AuthorizationCodeHandlerConfig) {
			c.ClientIDMetadataDocumentConfig = &auth.ClientIDMetadataDocumentConfig{URL: docs.URL + "/sdk-client.json"}
		},
		"preregistered client": func(c *auth.AuthorizationCodeHandlerConfig) {
			c.PreregisteredClient = &oauthex.ClientCredentials{ClientID: clientID,
				ClientSecretAuth: &oauthex.ClientSecretAuth{ClientSecret: clientSecret}}
		},
	} {
		t.Run(name, func(t *testing.T) {
			client := mcp.NewClient(&mcp.Implementation{Name: "sdk-test", Version: "1"}, nil)
			ctx := context.Background()
			session, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: r.base + "/mcp",
				OAuthHandler: sdkSignIn(t, redirect, set)}, nil)
			require.NoError(t, err)
			defer session.Close()
			tools, err := session.ListTools(ctx, nil)
			require.NoError(t, err)
			require.Len(t, tools.Tools, 1, "the first sign-in asks for tools.call")
			res, err := session.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"text": "sdk"}})
			require.NoError(t, err)
			require.False(t, res.IsError)
			assert.Equal(t, "alice says: sdk", res.Content[0].(*mcp.TextContent).Text)
			res, err = session.CallTool(ctx, &mcp.CallToolParams{Name: "secret", Arguments: map[string]any{}})
			require.NoError(t, err, "the 403 names tools.admin; alice signs in again for it")
			require.False(t, res.IsError)
			assert.Equal(t, "the secret is 42", res.Content[0].(*mcp.TextContent).Text)
		})
	}
}
