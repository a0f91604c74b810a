package oauth_test

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolexec/toolexec/oauth"
)

// TestForResourcesSharesKeysNotResources: a Verifier derived for other
// resources accepts tokens for them, not for the original's, and reuses
// the original's keys without fetching them again.
func TestForResourcesSharesKeysNotResources(t *testing.T) {
	is := newTestIssuer(t)
	k := newRSASigner(t, "k1")
	is.publish(k)
	v := newVerifier(t, is, func(c *oauth.Config) { c.ScopesSupported = []string{"openid", "aud:{resource}"} })
	_, err := v.Verify(context.Background(), k.sign(t, is.claimsFor(testResource, "")), "")
	require.NoError(t, err)

	const toolset = "https://tools.example.com/toolsets/db/mcp"
	d, err := v.ForResources(toolset)
	require.NoError(t, err)
	_, err = d.Verify(context.Background(), k.sign(t, is.claimsFor(toolset, "")), "")
	require.NoError(t, err)
	_, err = d.Verify(context.Background(), k.sign(t, is.claimsFor(testResource, "")), "")
	require.ErrorIs(t, err, oauth.ErrInvalidToken, "the original's resource is not the derived one's")
	_, err = v.Verify(context.Background(), k.sign(t, is.claimsFor(toolset, "")), "")
	require.ErrorIs(t, err, oauth.ErrInvalidToken)
	assert.Equal(t, 1, is.jwksHits, "the keys are shared")

	m, ok := d.MetadataFor(toolset)
	require.True(t, ok)
	assert.Equal(t, []string{"openid", "aud:" + toolset}, m.ScopesSupported, "{resource} names the derived resource")
	_, err = v.ForResources("relative/path")
	assert.Error(t, err)
}

// TestScopesSupportedNameEachResource: "{resource}" in ScopesSupported is
// each resource's URI in its metadata and in its challenges.
func TestScopesSupportedNameEachResource(t *testing.T) {
	is := newTestIssuer(t)
	api, mcpURI := "https://tools.example.com/api", "https://tools.example.com/mcp"
	v := newVerifier(t, is, func(c *oauth.Config) {
		c.Resources = []string{api, mcpURI}
		c.ScopesSupported = []string{"openid", "audience:server:client_id:{resource}"}
	})
	for _, res := range []string{api, mcpURI} {
		m, ok := v.MetadataFor(res)
		require.True(t, ok)
		assert.Equal(t, []string{"openid", "audience:server:client_id:" + res}, m.ScopesSupported)
		h := v.AuthHook(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { t.Error("passed without a token") }))
		w := serve(h, newRequest(http.MethodPost, res, "/", ""))
		assert.Contains(t, w.Header().Get("WWW-Authenticate"), `scope="openid audience:server:client_id:`+res+`"`)
	}
	_, err := oauth.NewVerifier(oauth.Config{Issuer: is.srv.URL, Resources: []string{api}, ScopesSupported: []string{"a b"}})
	assert.Error(t, err, "a scope holding a space")
}

// TestIntrospectedTokensFollowTheSameRules: an introspection answer's
// scopes come from the configured claims, and one admitted through an
// extra audience must name an authorized client.
func TestIntrospectedTokensFollowTheSameRules(t *testing.T) {
	is := newTestIssuer(t)
	exp := time.Now().Add(time.Hour).Unix()
	is.active["roles"] = map[string]any{"active": true, "sub": "bob", "aud": testResource, "exp": exp,
		"scope": "openid", "realm_access": map[string]any{"roles": []string{"tools.admin"}}}
	is.active["extra"] = map[string]any{"active": true, "sub": "bob", "aud": "api-app", "client_id": mcpClient, "exp": exp}
	is.active["extra-other"] = map[string]any{"active": true, "sub": "bob", "aud": "api-app", "client_id": otherClient, "exp": exp}
	v := newVerifier(t, is, func(c *oauth.Config) {
		c.Introspection = &oauth.Introspection{ClientID: "rs", ClientSecret: "rs-secret"}
		c.ScopeClaims = []string{"scope", "realm_access.roles"}
		c.Audiences = []string{"api-app"}
		c.AuthorizedParties = []string{mcpClient}
	})
	id, err := v.Verify(context.Background(), "roles", testResource)
	require.NoError(t, err)
	assert.Equal(t, []string{"openid", "tools.admin"}, id.Scopes)
	id, err = v.Verify(context.Background(), "extra", testResource)
	require.NoError(t, err)
	assert.Equal(t, mcpClient, id.ClientID)
	_, err = v.Verify(context.Background(), "extra-other", testResource)
	require.ErrorIs(t, err, oauth.ErrInvalidToken)
}

// TestIssuerScopes: the scopes the authorization server advertises, read
// from its metadata.
func TestIssuerScopes(t *testing.T) {
	is := newTestIssuer(t)
	v := newVerifier(t, is)
	got, err := v.IssuerScopes(context.Background())
	require.NoError(t, err)
	assert.Equal(t, []string{"openid", "groups", "tools.call"}, got)
}
