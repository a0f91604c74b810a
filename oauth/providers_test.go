package oauth_test

import (
	"context"
	"maps"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolexec/toolexec"
	"github.com/toolexec/toolexec/oauth"
)

// The resource every provider below issues tokens for, and the clients.
const (
	providerResource = "https://tools.example.com/mcp"
	mcpClient        = "mcp-client"  // the MCP client the user signs in with
	otherClient      = "billing-app" // another application of the same provider
	otherAPI         = "https://billing.example.com/api"
	entraAPIApp      = "6e1a4c52-0f3b-4a0e-9d1e-3c4f5a6b7c8d" // Entra ID: the API's application (client) id
	entraClientApp   = "0b3d2f71-7a55-4c8e-b1a2-9e8d7c6b5a40" // Entra ID: the MCP client's application id
	entraDaemonApp   = "a7c0e6f3-1d2b-4c5a-8e9f-0a1b2c3d4e5f" // Entra ID: a daemon app with an app role
	entraTenant      = "72f988bf-86f1-41af-91ab-2d7cd011db47"
	oktaClient       = "0oa1b2c3d4E5F6g7H8i9"
)

// shaped is a token as a provider issues it: its "typ" header ("" for
// none) and its claims. The test issuer signs it, and fills in iss, iat
// and exp.
type shaped struct {
	typ    string
	claims map[string]any
}

func (s shaped) sign(t *testing.T, is *testIssuer, k *signer) string {
	t.Helper()
	c := maps.Clone(s.claims)
	now := time.Now()
	c["iss"] = is.srv.URL
	c["iat"] = now.Unix()
	c["exp"] = now.Add(time.Hour).Unix()
	return k.Sign(t, s.typ, c)
}

// provider is how one identity provider shapes its tokens, and the
// settings docs/auth.md gives for it.
type provider struct {
	name string
	// config is docs/auth.md's set-up for the provider.
	config func(*oauth.Config)
	// accepted are access tokens it issues, and the scopes each grants.
	accepted map[string]struct {
		token  shaped
		scopes []string
	}
	// refused are tokens it issues that are not access tokens for the
	// resource: ID tokens, other applications' tokens, refresh tokens.
	refused map[string]shaped
	// extraAudiences and parties make the "extra audiences" setting: the
	// audiences an operator might add (the client ids, where Dex and Entra
	// ID put them, and the provider's own further audiences) and the
	// clients the operator's users sign in with.
	extraAudiences, parties []string
}

var providers = []provider{
	{
		name: "Dex",
		config: func(c *oauth.Config) {
			c.ScopeClaims = []string{"groups"}
			c.ScopesSupported = []string{"openid", "groups", "audience:server:client_id:{resource}"}
		},
		accepted: map[string]struct {
			token  shaped
			scopes []string
		}{
			// Asked for with the scope audience:server:client_id:<resource>,
			// a static client named by the resource URI trusting mcp-client
			// as a peer: aud holds the peer and the client, azp the client.
			// Dex signs without a typ header and writes at_hash (of a random
			// value) into its access tokens.
			"access token with the audience scope": {shaped{"", map[string]any{
				"sub": "CiQwOGE4Njg0Yi1kYjg4LTRiNzMtOTBhOS0zY2QxNjYxZjU0NjYSBWxvY2Fs",
				"aud": []string{providerResource, mcpClient}, "azp": mcpClient,
				"at_hash": "r7Ho3bCzGmAb2MlPo8eT3g", "jti": "7d1f0a2b-6c3e-4f5a-9b8c-1d2e3f4a5b6c",
				"email": "alice@example.com", "email_verified": true, "groups": []string{"admins", "devs"},
				"name": "alice", "preferred_username": "alice",
			}}, []string{"admins", "devs"}},
		},
		refused: map[string]shaped{
			// The client's own token, without the audience scope: aud is
			// the client, no azp.
			"token for the client itself": {"", map[string]any{
				"sub": "CiQwOGE4Njg0Yi1kYjg4LTRiNzMtOTBhOS0zY2QxNjYxZjU0NjYSBWxvY2Fs", "aud": mcpClient,
				"at_hash": "r7Ho3bCzGmAb2MlPo8eT3g", "groups": []string{"admins"},
			}},
			// The ID token of the same request: c_hash binds the code.
			"ID token with the audience scope": {"", map[string]any{
				"sub": "CiQwOGE4Njg0Yi1kYjg4LTRiNzMtOTBhOS0zY2QxNjYxZjU0NjYSBWxvY2Fs",
				"aud": []string{providerResource, mcpClient}, "azp": mcpClient, "nonce": "n-0S6_WzA2Mj",
				"at_hash": "HK6E_P6Dh8Y93mRNtsDB1Q", "c_hash": "LDktKdoQak3Pk0cnXxCltA", "groups": []string{"admins"},
			}},
			"another application's token": {"", map[string]any{
				"sub": "CgVib2JieRIFbG9jYWw", "aud": otherClient, "groups": []string{"admins"},
			}},
		},
		extraAudiences: []string{mcpClient},
		parties:        []string{mcpClient},
	},
	{
		name: "Keycloak",
		config: func(c *oauth.Config) {
			c.ScopeClaims = []string{"scope", "realm_access.roles", "resource_access.tools-api.roles"}
			c.ScopesSupported = []string{"openid", "tools.call", "tools.write"}
		},
		accepted: map[string]struct {
			token  shaped
			scopes []string
		}{
			// An Audience mapper on a default client scope puts the resource
			// URI in aud; Keycloak adds "account" for the account console's
			// roles. typ "Bearer" is Keycloak's own token-kind claim.
			"access token": {shaped{"JWT", map[string]any{
				"sub": "f1c4f64e-2c0c-4cda-8c9f-9f3f8f3a2b0e", "typ": "Bearer", "azp": mcpClient,
				"aud": []string{providerResource, "account"}, "sid": "4c0a3a8a-3a47-4f2f-8e89-9e5f9b0a0a0a",
				"scope": "openid profile email tools.call", "acr": "1",
				"realm_access":       map[string]any{"roles": []string{"default-roles-tools", "offline_access"}},
				"resource_access":    map[string]any{"tools-api": map[string]any{"roles": []string{"tools.admin"}}, "account": map[string]any{"roles": []string{"manage-account"}}},
				"preferred_username": "alice", "email": "alice@example.com",
			}}, []string{"openid", "profile", "email", "tools.call", "default-roles-tools", "offline_access", "tools.admin"}},
			"service account token": {shaped{"JWT", map[string]any{
				"sub": "5b2d1c7e-3a4f-4e6d-8c9b-0a1f2e3d4c5b", "typ": "Bearer", "azp": "ci-runner", "client_id": "ci-runner",
				"aud": providerResource, "scope": "tools.call", "preferred_username": "service-account-ci-runner",
				"realm_access": map[string]any{"roles": []string{"default-roles-tools"}},
			}}, []string{"tools.call", "default-roles-tools"}},
		},
		refused: map[string]shaped{
			"ID token": {"JWT", map[string]any{
				"sub": "f1c4f64e-2c0c-4cda-8c9f-9f3f8f3a2b0e", "typ": "ID", "azp": mcpClient, "aud": mcpClient,
				"at_hash": "HK6E_P6Dh8Y93mRNtsDB1Q", "sid": "4c0a3a8a-3a47-4f2f-8e89-9e5f9b0a0a0a",
			}},
			// An ID token whose audience mapper also adds to ID tokens.
			"ID token naming the resource": {"JWT", map[string]any{
				"sub": "f1c4f64e-2c0c-4cda-8c9f-9f3f8f3a2b0e", "typ": "ID", "azp": mcpClient,
				"aud": []string{mcpClient, providerResource}, "scope": "tools.call",
			}},
			"refresh token": {"JWT", map[string]any{
				"sub": "f1c4f64e-2c0c-4cda-8c9f-9f3f8f3a2b0e", "typ": "Refresh", "azp": mcpClient,
				"aud": providerResource, "scope": "openid tools.call",
			}},
			"another application's token": {"JWT", map[string]any{
				"sub": "f1c4f64e-2c0c-4cda-8c9f-9f3f8f3a2b0e", "typ": "Bearer", "azp": otherClient,
				"aud": []string{otherAPI, "account"}, "scope": "tools.call",
			}},
		},
		extraAudiences: []string{mcpClient, "account"},
		parties:        []string{mcpClient},
	},
	{
		name: "Entra ID",
		config: func(c *oauth.Config) {
			c.Audiences = []string{entraAPIApp}
			c.AuthorizedParties = []string{entraClientApp, entraDaemonApp}
			c.ScopeClaims = []string{"scp", "roles"}
			c.ScopePrefix = "https://tools.example.com/mcp/"
			c.ScopesSupported = []string{"https://tools.example.com/mcp/tools.call", "https://tools.example.com/mcp/tools.write"}
		},
		accepted: map[string]struct {
			token  shaped
			scopes []string
		}{
			// v2 access tokens: aud is always the API's client id, azp the
			// calling app, scp the delegated scopes without the App ID URI.
			"delegated access token": {shaped{"JWT", map[string]any{
				"aud": entraAPIApp, "azp": entraClientApp, "azpacr": "0", "ver": "2.0",
				"sub": "AAAAAAAAAAAAAAAAAAAAAIkzqFVrSaSaFHy782bbtaQ", "oid": "00000000-0000-0000-66f3-3332eca7ea81",
				"tid": entraTenant, "scp": "tools.call tools.read", "name": "Alice", "preferred_username": "alice@contoso.com",
				"uti": "fqiBqXLPj0eQa82S-IYFAA", "rh": "0.AAAA", "aio": "AXQAi/8UAAAA",
			}}, []string{"tools.call", "tools.read"}},
			// Client credentials: app roles in roles, no scp.
			"application token": {shaped{"JWT", map[string]any{
				"aud": entraAPIApp, "azp": entraDaemonApp, "azpacr": "1", "ver": "2.0", "idtyp": "app",
				"sub": "9f8e7d6c-5b4a-3928-1706-f5e4d3c2b1a0", "oid": "9f8e7d6c-5b4a-3928-1706-f5e4d3c2b1a0",
				"tid": entraTenant, "roles": []string{"tools.admin"},
			}}, []string{"tools.admin"}},
		},
		refused: map[string]shaped{
			// An ID token of the API's own app (signed into as a client):
			// aud is its client id, no azp, a nonce.
			"ID token": {"JWT", map[string]any{
				"aud": entraAPIApp, "ver": "2.0", "sub": "AAAAAAAAAAAAAAAAAAAAAIkzqFVrSaSaFHy782bbtaQ",
				"oid": "00000000-0000-0000-66f3-3332eca7ea81", "tid": entraTenant, "nonce": "678910",
				"roles": []string{"tools.admin"}, "name": "Alice", "preferred_username": "alice@contoso.com",
			}},
			"ID token of the client app": {"JWT", map[string]any{
				"aud": entraClientApp, "ver": "2.0", "sub": "AAAAAAAAAAAAAAAAAAAAAIkzqFVrSaSaFHy782bbtaQ",
				"tid": entraTenant, "nonce": "678910",
			}},
			// A token for this API obtained by an app nobody listed.
			"token of an unlisted app": {"JWT", map[string]any{
				"aud": entraAPIApp, "azp": "11111111-2222-3333-4444-555555555555", "ver": "2.0",
				"sub": "AAAAAAAAAAAAAAAAAAAAAIkzqFVrSaSaFHy782bbtaQ", "tid": entraTenant, "scp": "tools.call",
			}},
			"token for another API": {"JWT", map[string]any{
				"aud": "00000003-0000-0000-c000-000000000000", "azp": entraClientApp, "ver": "2.0",
				"sub": "AAAAAAAAAAAAAAAAAAAAAIkzqFVrSaSaFHy782bbtaQ", "tid": entraTenant, "scp": "User.Read",
			}},
		},
		extraAudiences: []string{entraAPIApp, entraClientApp},
		parties:        []string{entraClientApp},
	},
	{
		name: "Auth0",
		config: func(c *oauth.Config) {
			c.ScopesSupported = []string{"openid", "tools.call"}
		},
		accepted: map[string]struct {
			token  shaped
			scopes []string
		}{
			// The API's identifier is the resource URI; with openid, aud
			// also names the userinfo endpoint. RFC 9068 profile.
			"access token, RFC 9068 profile": {shaped{"at+jwt", map[string]any{
				"sub": "auth0|6541b0f2c1e2a3b4c5d6e7f8", "client_id": mcpClient, "jti": "73WakrfVbNJBaAmhQtEeDv",
				"aud":   []string{providerResource, "https://tenant.us.auth0.com/userinfo"},
				"scope": "openid profile tools.call", "permissions": []string{"tools.call", "tools.admin"},
			}}, []string{"openid", "profile", "tools.call"}},
			"access token, Auth0 profile": {shaped{"JWT", map[string]any{
				"sub": "auth0|6541b0f2c1e2a3b4c5d6e7f8", "azp": mcpClient,
				"aud": []string{providerResource, "https://tenant.us.auth0.com/userinfo"}, "scope": "openid tools.call",
			}}, []string{"openid", "tools.call"}},
			"machine-to-machine token": {shaped{"JWT", map[string]any{
				"sub": "Zb3kq9CIENT@clients", "azp": "Zb3kq9CIENT", "gty": "client-credentials",
				"aud": providerResource, "scope": "tools.call",
			}}, []string{"tools.call"}},
		},
		refused: map[string]shaped{
			"ID token": {"JWT", map[string]any{
				"sub": "auth0|6541b0f2c1e2a3b4c5d6e7f8", "aud": mcpClient, "nonce": "n-0S6_WzA2Mj",
				"name": "Alice", "email": "alice@example.com", "sid": "Hc1VYbvp2cP3kSbq",
			}},
			"another API's token": {"at+jwt", map[string]any{
				"sub": "auth0|6541b0f2c1e2a3b4c5d6e7f8", "client_id": mcpClient, "aud": otherAPI, "scope": "tools.call",
			}},
			"another application's token for the userinfo endpoint": {"JWT", map[string]any{
				"sub": "auth0|6541b0f2c1e2a3b4c5d6e7f8", "azp": otherClient,
				"aud": "https://tenant.us.auth0.com/userinfo", "scope": "openid tools.call",
			}},
		},
		extraAudiences: []string{mcpClient, "https://tenant.us.auth0.com/userinfo"},
		parties:        []string{mcpClient},
	},
	{
		name: "Okta",
		config: func(c *oauth.Config) {
			c.ScopesSupported = []string{"openid", "tools.call"}
		},
		accepted: map[string]struct {
			token  shaped
			scopes []string
		}{
			// A custom authorization server whose audience is the resource
			// URI; no typ header, the client in cid, scp an array.
			"access token": {shaped{"", map[string]any{
				"ver": 1, "jti": "AT.MNAoEQ_jbKqoinrQo1D0XKjMX28U5d7ZszBceot7-Ts", "aud": providerResource,
				"sub": "alice@example.com", "cid": oktaClient, "uid": "00u1a2b3c4D5E6f7G8h9",
				"scp": []string{"openid", "tools.call"}, "auth_time": time.Now().Unix(),
			}}, []string{"openid", "tools.call"}},
			"client credentials token": {shaped{"", map[string]any{
				"ver": 1, "jti": "AT.x7y8z9", "aud": providerResource, "sub": oktaClient, "cid": oktaClient,
				"scp": []string{"tools.call"},
			}}, []string{"tools.call"}},
		},
		refused: map[string]shaped{
			"ID token": {"", map[string]any{
				"ver": 1, "jti": "ID.radCQMOQUmyvcTBmmIL0J6BaS60apUEiC7-vI7pOmkw", "aud": oktaClient,
				"sub": "00u1a2b3c4D5E6f7G8h9", "nonce": "n-0S6_WzA2Mj", "amr": []string{"pwd"},
				"at_hash": "fPlsvVszI29LU2UhDyJ9vg", "preferred_username": "alice@example.com",
			}},
			"org authorization server's token": {"", map[string]any{
				"ver": 1, "jti": "AT.org", "aud": "https://example.okta.com", "sub": "alice@example.com",
				"cid": oktaClient, "scp": []string{"openid", "tools.call"},
			}},
			"token for api://default": {"", map[string]any{
				"ver": 1, "jti": "AT.def", "aud": "api://default", "sub": "alice@example.com",
				"cid": "0oaOTHERAPP", "scp": []string{"tools.call"},
			}},
		},
		extraAudiences: []string{oktaClient},
		parties:        []string{oktaClient},
	},
}

// The audience settings of providerVerifier.
const (
	asDocumented   = iota // docs/auth.md's settings
	resourceOnly          // those, without any extra audience
	extraAudiences        // those, with the provider's extra audiences
)

func providerVerifier(t *testing.T, is *testIssuer, p provider, setting int) *oauth.Verifier {
	t.Helper()
	return newVerifier(t, is, func(c *oauth.Config) {
		c.Resources = []string{providerResource}
		p.config(c)
		switch setting {
		case extraAudiences:
			c.Audiences = append(slices.Clone(c.Audiences), p.extraAudiences...)
			c.AuthorizedParties = append(slices.Clone(c.AuthorizedParties), p.parties...)
		case resourceOnly:
			c.Audiences, c.AuthorizedParties = nil, nil
		}
	})
}

// TestProviderTokenShapes: each provider's access tokens are accepted
// with docs/auth.md's settings and grant the scopes shown; its ID tokens,
// refresh tokens and other applications' tokens are refused under every
// audience setting: the resource URI alone, as documented, and with the
// client ids accepted as audiences and the operator's clients authorized.
func TestProviderTokenShapes(t *testing.T) {
	for _, p := range providers {
		t.Run(p.name, func(t *testing.T) {
			is := newTestIssuer(t)
			k := newRSASigner(t, "k1")
			is.publish(k)
			v := providerVerifier(t, is, p, asDocumented)
			for name, a := range p.accepted {
				id, err := v.Verify(context.Background(), a.token.sign(t, is, k), providerResource)
				require.NoError(t, err, name)
				assert.Equal(t, a.scopes, id.Scopes, name)
			}
			settings := map[string]*oauth.Verifier{
				"audience is the resource":    providerVerifier(t, is, p, resourceOnly),
				"as documented":               providerVerifier(t, is, p, asDocumented),
				"extra audiences and clients": providerVerifier(t, is, p, extraAudiences),
			}
			for setting, v := range settings {
				for name, tok := range p.refused {
					_, err := v.Verify(context.Background(), tok.sign(t, is, k), providerResource)
					assert.ErrorIs(t, err, oauth.ErrInvalidToken, "%s, %s", name, setting)
				}
			}
		})
	}
}

// TestProviderScopesGateTools: over REST, each provider's access token
// calls the tool whose scope it holds and gets 403 for one it lacks; the
// challenges ask only for what the provider can be asked for: a 403 for a
// scope that is a claim value (a group, a role) names no scope and says
// why, one for an OAuth scope names it and every scope the token holds.
func TestProviderScopesGateTools(t *testing.T) {
	tests := []struct {
		provider        string
		token           string // a key of the provider's accepted tokens
		allowed, denied string // a scope the token grants, one it lacks
		challenge401    string // the scope parameter of a 401 for the denied tool
		challenge403    string // and of the 403 ("": none)
		description     string // the 403's error_description ("": none)
	}{
		{"Dex", "access token with the audience scope", "admins", "auditors",
			"openid groups audience:server:client_id:" + providerResource, "", claimValue("auditors")},
		{"Keycloak", "access token", "tools.admin", "tools.delete", "openid tools.call tools.write", "", claimValue("tools.delete")},
		{"Keycloak", "access token", "tools.call", "tools.write", "openid tools.call tools.write",
			"tools.write openid tools.call profile email", ""},
		{"Entra ID", "delegated access token", "tools.read", "tools.admin",
			"https://tools.example.com/mcp/tools.call https://tools.example.com/mcp/tools.write", "", claimValue("tools.admin")},
		{"Entra ID", "delegated access token", "tools.read", "tools.write",
			"https://tools.example.com/mcp/tools.call https://tools.example.com/mcp/tools.write",
			"https://tools.example.com/mcp/tools.write https://tools.example.com/mcp/tools.call https://tools.example.com/mcp/tools.read", ""},
		{"Auth0", "access token, RFC 9068 profile", "tools.call", "tools.delete", "openid tools.call", "tools.delete openid tools.call profile", ""},
		{"Okta", "access token", "tools.call", "tools.admin", "openid tools.call", "tools.admin openid tools.call", ""},
	}
	for _, tc := range tests {
		t.Run(tc.provider+" "+tc.denied, func(t *testing.T) {
			i := slices.IndexFunc(providers, func(p provider) bool { return p.name == tc.provider })
			require.GreaterOrEqual(t, i, 0)
			p := providers[i]
			is := newTestIssuer(t)
			k := newRSASigner(t, "k1")
			is.publish(k)
			v := providerVerifier(t, is, p, asDocumented)
			reg := &toolexec.Registry{}
			ok := func(context.Context, string, map[string]any) ([]toolexec.Content, bool, string, error) {
				return []toolexec.Content{toolexec.Text("ok")}, false, "", nil
			}
			reg.MustAdd(toolexec.Tool{Name: "allowed", Options: toolexec.ToolOptions{Scopes: []string{tc.allowed}}}, toolexec.ToolCallHandlerFunc(ok))
			reg.MustAdd(toolexec.Tool{Name: "denied", Options: toolexec.ToolOptions{Scopes: []string{tc.denied}}}, toolexec.ToolCallHandlerFunc(ok))
			h := toolexec.NewHandler(toolexec.New(reg, reg, toolexec.WithAllowExecute(true), toolexec.WithAuthHook(v.AuthHook)))
			call := func(tool, token string) (int, string) {
				r := newRequest(http.MethodPost, providerResource+"/tools/"+tool+"/call", "/tools/"+tool+"/call", token)
				w := serve(h, r)
				return w.Code, w.Header().Get("WWW-Authenticate")
			}
			tok := p.accepted[tc.token].token.sign(t, is, k)
			code, _ := call("allowed", tok)
			assert.Equal(t, http.StatusOK, code)
			code, chal := call("denied", tok)
			assert.Equal(t, http.StatusForbidden, code)
			params := challengeParams(t, chal)
			assert.Equal(t, "insufficient_scope", params["error"])
			assert.Equal(t, tc.challenge403, params["scope"], chal)
			assert.Equal(t, tc.description, params["error_description"], chal)
			code, chal = call("denied", "")
			assert.Equal(t, http.StatusUnauthorized, code)
			assert.Contains(t, chal, `scope="`+tc.challenge401+`"`)
		})
	}
}

// claimValue is the error_description of a 403 whose tool needs the claim
// value name.
func claimValue(name string) string {
	return "the token lacks " + name + ": a group, role or permission that the authorization server grants on its own terms, not an OAuth scope a client can ask for"
}

// challengeParams reads the parameters of a Bearer challenge whose values
// hold no quote.
func challengeParams(t *testing.T, h string) map[string]string {
	t.Helper()
	require.True(t, strings.HasPrefix(h, "Bearer "), h)
	out := map[string]string{}
	for _, m := range regexp.MustCompile(`(\w+)="([^"]*)"`).FindAllStringSubmatch(h, -1) {
		out[m[1]] = m[2]
	}
	return out
}

// TestExtraAudiencesNeedAuthorizedParties: Config.Audiences alone is
// refused, so that no configuration accepts every token naming a client.
func TestExtraAudiencesNeedAuthorizedParties(t *testing.T) {
	_, err := oauth.NewVerifier(oauth.Config{Issuer: "https://as.example.com", Resources: []string{providerResource},
		Audiences: []string{entraAPIApp}})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "AuthorizedParties")
}

// TestTokensThatAreNotAccessTokensAreRefused: whatever the audience, a
// JWT typed as something else, marked by Keycloak as another kind, or
// carrying c_hash is refused; through an extra audience, one carrying a
// nonce or issued to an unlisted client is refused too.
func TestTokensThatAreNotAccessTokensAreRefused(t *testing.T) {
	is := newTestIssuer(t)
	k := newRSASigner(t, "k1")
	is.publish(k)
	v := newVerifier(t, is, func(c *oauth.Config) {
		c.Audiences = []string{"api-app"}
		c.AuthorizedParties = []string{mcpClient}
	})
	base := map[string]any{"sub": "alice", "aud": testResource, "azp": mcpClient}
	with := func(aud any, kv ...any) map[string]any {
		c := maps.Clone(base)
		c["aud"] = aud
		for i := 0; i < len(kv); i += 2 {
			c[kv[i].(string)] = kv[i+1]
		}
		return c
	}
	for _, typ := range []string{"", "JWT", "jwt", "application/jwt", "at+jwt", "AT+JWT", "application/at+jwt"} {
		_, err := v.Verify(context.Background(), shaped{typ, base}.sign(t, is, k), testResource)
		assert.NoError(t, err, "typ header %q", typ)
	}
	for name, tok := range map[string]shaped{
		"typ id_token+jwt":         {"id_token+jwt", base},
		"typ logout+jwt":           {"logout+jwt", base},
		"typ secevent+jwt":         {"secevent+jwt", base},
		"typ dpop+jwt":             {"dpop+jwt", base},
		"typ claim ID":             {"JWT", with(testResource, "typ", "ID")},
		"typ claim Refresh":        {"JWT", with(testResource, "typ", "Refresh")},
		"typ claim not a string":   {"JWT", with(testResource, "typ", 1)},
		"c_hash":                   {"JWT", with(testResource, "c_hash", "LDktKdoQak3Pk0cnXxCltA")},
		"extra audience, nonce":    {"JWT", with("api-app", "nonce", "n-0S6")},
		"extra audience, no azp":   {"JWT", with("api-app", "azp", nil)},
		"extra audience, other":    {"JWT", with("api-app", "azp", otherClient)},
		"unknown audience":         {"JWT", with("https://other.example.com")},
		"extra audience among two": {"JWT", with([]string{"api-app", "https://other.example.com"}, "azp", otherClient)},
	} {
		c := tok.claims
		if c["azp"] == nil {
			c = maps.Clone(c)
			delete(c, "azp")
		}
		_, err := v.Verify(context.Background(), shaped{tok.typ, c}.sign(t, is, k), testResource)
		assert.ErrorIs(t, err, oauth.ErrInvalidToken, name)
	}
	_, err := v.Verify(context.Background(), shaped{"JWT", with(testResource, "nonce", "n-0S6")}.sign(t, is, k), testResource)
	assert.NoError(t, err, "a nonce is Dex's, on a token whose audience is the resource")
	_, err = v.Verify(context.Background(), shaped{"", with("api-app", "typ", "bearer")}.sign(t, is, k), testResource)
	assert.NoError(t, err, "an authorized client's token for the extra audience")
}

// TestScopeClaims: scopes come from each configured claim, a name or a
// dotted path, a string or an array, in order and once each; of "scope"
// and "scp", only the first listed that the token carries.
func TestScopeClaims(t *testing.T) {
	is := newTestIssuer(t)
	k := newRSASigner(t, "k1")
	is.publish(k)
	claims := map[string]any{"sub": "alice", "aud": testResource,
		"scope":                           "a b",
		"scp":                             []any{"b", "c", 7, "d e"},
		"groups":                          []string{"g1", "g2"},
		"realm_access":                    map[string]any{"roles": []string{"r1"}},
		"resource_access":                 map[string]any{"tools.example.com": map[string]any{"roles": "c1 c2"}},
		"https://tools.example.com/roles": []string{"n1"},
		"nested":                          map[string]any{"deeper": map[string]any{"list": []string{"x"}}},
		"notalist":                        map[string]any{"roles": true},
	}
	tok := shaped{"JWT", claims}.sign(t, is, k)
	for _, tc := range []struct {
		claims []string
		want   []string
	}{
		{nil, []string{"a", "b"}},
		{[]string{"scope", "scp"}, []string{"a", "b"}},
		{[]string{"scp", "scope"}, []string{"b", "c"}},
		{[]string{"scp"}, []string{"b", "c"}},
		{[]string{"scope", "groups", "scp"}, []string{"a", "b", "g1", "g2"}},
		{[]string{"groups"}, []string{"g1", "g2"}},
		{[]string{"realm_access.roles"}, []string{"r1"}},
		{[]string{"resource_access.tools.example.com.roles"}, []string{"c1", "c2"}},
		{[]string{"https://tools.example.com/roles"}, []string{"n1"}},
		{[]string{"nested.deeper.list", "groups", "scope"}, []string{"x", "g1", "g2", "a", "b"}},
		{[]string{"notalist.roles", "missing", "realm_access.missing"}, nil},
	} {
		v := newVerifier(t, is, func(c *oauth.Config) { c.ScopeClaims = tc.claims })
		id, err := v.Verify(context.Background(), tok, testResource)
		require.NoError(t, err)
		assert.Equal(t, tc.want, id.Scopes, "%v", tc.claims)
	}
	for _, bad := range []string{"", ".roles", "realm_access.", "a..b", strings.Repeat("a.", 9) + "a"} {
		_, err := oauth.NewVerifier(oauth.Config{Issuer: "https://as.example.com", Resources: []string{testResource},
			ScopeClaims: []string{bad}})
		assert.Error(t, err, "%q", bad)
	}
}
