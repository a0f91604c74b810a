package main

import (
	"context"
	"testing"

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
