package oauth_test

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/url"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolexec/toolexec"
	"github.com/toolexec/toolexec/internal/oidcprovider"
	"github.com/toolexec/toolexec/oauth"
)

// realProvider is node's oidc-provider, started once for the package by
// the first test that needs it (internal/oidcprovider).
var realProvider oidcprovider.Shared

func TestMain(m *testing.M) {
	code := m.Run()
	realProvider.Stop()
	os.Exit(code)
}

// The resources the tests ask oidc-provider for: nothing listens there,
// the Verifier is handed the requests.
const (
	realResource  = "http://127.0.0.1:7/mcp"
	otherResource = "http://127.0.0.1:7/api"
)

// standardSettings are docs/auth.md's settings for the standards-following
// provider, oidc-provider with internal/oidcprovider/config.mjs.
func standardSettings(c *oauth.Config) {
	c.ScopesSupported = []string{"tools.call"}
	c.Introspection = &oauth.Introspection{ClientID: oidcprovider.Introspector, ClientSecret: oidcprovider.Secret(oidcprovider.Introspector)}
}

// realServer is REST over a Verifier for realResource and otherResource
// trusting p, with standardSettings and then tune applied, and the tools
// call (tools.call), admin (tools.admin) and ping (no scope).
func realServer(t *testing.T, p *oidcprovider.Provider, tune func(*oauth.Config)) (*oauth.Verifier, http.Handler) {
	t.Helper()
	cfg := oauth.Config{Issuer: p.Issuer, Resources: []string{realResource, otherResource}}
	standardSettings(&cfg)
	if tune != nil {
		tune(&cfg)
	}
	v, err := oauth.NewVerifier(cfg)
	require.NoError(t, err)
	reg := &toolexec.Registry{}
	who := func(ctx context.Context, _ string, _ map[string]any) ([]toolexec.Content, bool, string, error) {
		id, _ := oauth.FromContext(ctx)
		return []toolexec.Content{toolexec.Text("hello " + id.Subject)}, false, "", nil
	}
	reg.MustAdd(toolexec.Tool{Name: "call", Options: toolexec.ToolOptions{Scopes: []string{"tools.call"}}}, toolexec.ToolCallHandlerFunc(who))
	reg.MustAdd(toolexec.Tool{Name: "admin", Options: toolexec.ToolOptions{Scopes: []string{"tools.admin"}}}, toolexec.ToolCallHandlerFunc(who))
	reg.MustAdd(toolexec.Tool{Name: "ping"}, toolexec.ToolCallHandlerFunc(who))
	return v, toolexec.NewHandler(toolexec.New(reg, reg, toolexec.WithAllowExecute(true), toolexec.WithAuthHook(v.AuthHook)))
}

// callAs calls tool on resource (realResource or otherResource) with token.
func callAs(h http.Handler, resource, tool, token string) (int, map[string]string) {
	u, _ := url.Parse(resource)
	r := newRequest(http.MethodPost, resource+"/tools/"+tool+"/call", "/tools/"+tool+"/call", token)
	r.RequestURI = u.Path + "/tools/" + tool + "/call"
	w := serve(h, r)
	params := map[string]string{}
	if h := w.Header().Get("WWW-Authenticate"); h != "" {
		for _, kv := range strings.Split(strings.TrimPrefix(h, "Bearer "), `", `) {
			k, v, _ := strings.Cut(kv, `="`)
			params[k] = strings.TrimSuffix(v, `"`)
		}
	}
	return w.Code, params
}

// TestRealProviderJWTAccessTokens: oidc-provider's JWT access tokens (RFC
// 9068, for the resource each request names, RFC 8707) are accepted for
// that resource only, grant their scopes, and get the challenges their
// scopes call for.
func TestRealProviderJWTAccessTokens(t *testing.T) {
	t.Parallel()
	p := realProvider.Get(t)
	ctx := context.Background()
	v, h := realServer(t, p, nil)

	tok, err := p.ClientCredentials(ctx, oidcprovider.Agent, "tools.call", realResource)
	require.NoError(t, err)
	id, err := v.Verify(ctx, tok.AccessToken, realResource)
	require.NoError(t, err)
	assert.Equal(t, []string{"tools.call"}, id.Scopes)
	assert.Equal(t, oidcprovider.Agent, id.ClientID)
	assert.Equal(t, []string{realResource}, id.Audience)

	code, _ := callAs(h, realResource, "call", tok.AccessToken)
	assert.Equal(t, http.StatusOK, code)
	code, ch := callAs(h, realResource, "admin", tok.AccessToken)
	assert.Equal(t, http.StatusForbidden, code)
	assert.Equal(t, "insufficient_scope", ch["error"])
	assert.Equal(t, "tools.admin tools.call", ch["scope"])

	// The scopes the challenge names get a token that calls admin.
	stepped, err := p.ClientCredentials(ctx, oidcprovider.Agent, ch["scope"], realResource)
	require.NoError(t, err)
	code, _ = callAs(h, realResource, "admin", stepped.AccessToken)
	assert.Equal(t, http.StatusOK, code)

	code, ch = callAs(h, realResource, "call", "")
	assert.Equal(t, http.StatusUnauthorized, code)
	assert.Equal(t, map[string]string{"scope": "tools.call", "resource_metadata": "http://127.0.0.1:7/.well-known/oauth-protected-resource/mcp"}, ch)

	// A token is for the resource its request named.
	code, ch = callAs(h, otherResource, "call", tok.AccessToken)
	assert.Equal(t, http.StatusUnauthorized, code)
	assert.Equal(t, "invalid_token", ch["error"])
	_, err = p.ClientCredentials(ctx, oidcprovider.Agent, "tools.call", "https://elsewhere.example.com/mcp")
	require.Error(t, err, "the provider issues tokens for the resources it knows only")
	assert.Contains(t, err.Error(), "invalid_target")

	// Without a resource, the provider issues a token for no resource
	// (opaque, no audience, no scope): introspected, refused.
	bare, err := p.ClientCredentials(ctx, oidcprovider.Agent, "tools.call", "")
	require.NoError(t, err)
	_, err = v.Verify(ctx, bare.AccessToken, realResource)
	assert.ErrorIs(t, err, oauth.ErrInvalidToken)

	scopes, err := v.IssuerScopes(ctx)
	require.NoError(t, err)
	assert.Contains(t, scopes, "openid")
}

// TestRealProviderExpiredTokensAreRefused: a JWT access token is refused
// once it has expired (no leeway here, so the test need not wait 30 s).
func TestRealProviderExpiredTokensAreRefused(t *testing.T) {
	t.Parallel()
	p := realProvider.Get(t)
	ctx := context.Background()
	v, h := realServer(t, p, func(c *oauth.Config) { c.Leeway = -1 })
	tok, err := p.ClientCredentials(ctx, oidcprovider.BriefAgent, "tools.call", realResource)
	require.NoError(t, err)
	require.LessOrEqual(t, tok.ExpiresIn, 2)
	id, err := v.Verify(ctx, tok.AccessToken, realResource)
	require.NoError(t, err)
	time.Sleep(time.Until(id.ExpiresAt) + 1100*time.Millisecond)
	code, ch := callAs(h, realResource, "call", tok.AccessToken)
	assert.Equal(t, http.StatusUnauthorized, code)
	assert.Equal(t, "invalid_token", ch["error"])
}

// TestRealProviderOpaqueTokensThroughIntrospection: opaque access tokens
// are checked by introspection: accepted for their resource with their
// scopes, refused for another, and refused at once when revoked.
func TestRealProviderOpaqueTokensThroughIntrospection(t *testing.T) {
	t.Parallel()
	p := realProvider.Get(t)
	ctx := context.Background()
	v, h := realServer(t, p, nil)
	tok, err := p.ClientCredentials(ctx, oidcprovider.OpaqueAgent, "tools.call", realResource)
	require.NoError(t, err)
	require.Equal(t, 0, strings.Count(tok.AccessToken, "."), "an opaque token")
	id, err := v.Verify(ctx, tok.AccessToken, realResource)
	require.NoError(t, err)
	assert.Equal(t, []string{"tools.call"}, id.Scopes)
	assert.Equal(t, oidcprovider.OpaqueAgent, id.ClientID)

	code, _ := callAs(h, realResource, "call", tok.AccessToken)
	assert.Equal(t, http.StatusOK, code)
	code, ch := callAs(h, realResource, "admin", tok.AccessToken)
	assert.Equal(t, http.StatusForbidden, code)
	assert.Equal(t, "tools.admin tools.call", ch["scope"])
	code, ch = callAs(h, otherResource, "call", tok.AccessToken)
	assert.Equal(t, http.StatusUnauthorized, code, "introspected, the token names another resource")
	assert.Equal(t, "invalid_token", ch["error"])

	require.NoError(t, p.Revoke(ctx, oidcprovider.OpaqueAgent, tok.AccessToken))
	code, ch = callAs(h, realResource, "call", tok.AccessToken)
	assert.Equal(t, http.StatusUnauthorized, code, "revoked: introspection says inactive at once")
	assert.Equal(t, "invalid_token", ch["error"])

	_, err = v.Verify(ctx, "not-a-token-the-provider-issued", realResource)
	assert.ErrorIs(t, err, oauth.ErrInvalidToken)

	// Without introspection, an opaque token is refused unchecked.
	plain, _ := realServer(t, p, func(c *oauth.Config) { c.Introspection = nil })
	other, err := p.ClientCredentials(ctx, oidcprovider.OpaqueAgent, "tools.call", realResource)
	require.NoError(t, err)
	_, err = plain.Verify(ctx, other.AccessToken, realResource)
	assert.ErrorIs(t, err, oauth.ErrInvalidToken)
}

// TestRealProviderAuthorizationCodeWithPKCE: a user signs in through the
// authorization code flow with PKCE and the resource parameter; the access
// token is accepted for that resource, the ID token of the same sign-in
// is refused as an access token.
func TestRealProviderAuthorizationCodeWithPKCE(t *testing.T) {
	t.Parallel()
	p := realProvider.Get(t)
	ctx := context.Background()
	v, h := realServer(t, p, nil)

	const redirect = "http://127.0.0.1:33418/callback" // any loopback port: a native client
	verifier := rand.Text() + rand.Text()
	sum := sha256.Sum256([]byte(verifier))
	q := url.Values{"client_id": {oidcprovider.MCPClient}, "response_type": {"code"}, "redirect_uri": {redirect},
		"scope": {"openid tools.call tools.admin"}, "resource": {realResource}, "state": {"s1"}, "nonce": {"n1"},
		"code_challenge": {base64.RawURLEncoding.EncodeToString(sum[:])}, "code_challenge_method": {"S256"}}
	got, err := oidcprovider.SignIn(ctx, p.Issuer+"/auth?"+q.Encode(), redirect)
	require.NoError(t, err)
	assert.Equal(t, "s1", got.State)
	assert.Equal(t, p.Issuer, got.Issuer)

	form := url.Values{"grant_type": {"authorization_code"}, "code": {got.Code}, "redirect_uri": {redirect},
		"client_id": {oidcprovider.MCPClient}, "code_verifier": {verifier}, "resource": {realResource}}
	resp, err := http.PostForm(p.Issuer+"/token", form)
	require.NoError(t, err)
	defer resp.Body.Close()
	var tok oidcprovider.Token
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&tok))
	require.Equal(t, http.StatusOK, resp.StatusCode, "%+v", tok)

	id, err := v.Verify(ctx, tok.AccessToken, realResource)
	require.NoError(t, err)
	assert.Equal(t, "alice", id.Subject)
	assert.Equal(t, oidcprovider.MCPClient, id.ClientID)
	assert.ElementsMatch(t, []string{"tools.call", "tools.admin"}, id.Scopes)
	code, _ := callAs(h, realResource, "admin", tok.AccessToken)
	assert.Equal(t, http.StatusOK, code)

	require.NotEmpty(t, tok.IDToken)
	for _, res := range []string{realResource, otherResource} {
		_, err = v.Verify(ctx, tok.IDToken, res)
		assert.ErrorIs(t, err, oauth.ErrInvalidToken, "an ID token is no access token")
	}
	code, ch := callAs(h, realResource, "call", tok.IDToken)
	assert.Equal(t, http.StatusUnauthorized, code)
	assert.Equal(t, "invalid_token", ch["error"])
}
