package main

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolexec/toolexec/internal/tokentest"
	"github.com/toolexec/toolexec/oauth"
)

// running is the demo served on a loopback port, with its real provider.
type running struct {
	*demo
	base string
}

func start(t *testing.T) *running {
	t.Helper()
	return startWith(t, nil)
}

// send makes a request and returns its response with the body read.
func send(t *testing.T, method, u, token, contentType, body string) (*http.Response, string) {
	t.Helper()
	req, err := http.NewRequest(method, u, strings.NewReader(body))
	require.NoError(t, err)
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return resp, string(data)
}

func getJSON(t *testing.T, u string, v any) int {
	t.Helper()
	resp, body := send(t, http.MethodGet, u, "", "", "")
	if resp.StatusCode == http.StatusOK {
		require.NoError(t, json.Unmarshal([]byte(body), v), body)
	}
	return resp.StatusCode
}

// token asks the provider's token endpoint for a client_credentials token.
func (r *running) token(t *testing.T, tokenEndpoint, scope, resource string) string {
	t.Helper()
	form := url.Values{"grant_type": {"client_credentials"}, "scope": {scope}, "resource": {resource}}
	req, err := http.NewRequest(http.MethodPost, tokenEndpoint, strings.NewReader(form.Encode()))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.SetBasicAuth(clientID, clientSecret)
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	var out struct {
		AccessToken string `json:"access_token"`
		TokenType   string `json:"token_type"`
	}
	body, _ := io.ReadAll(resp.Body)
	require.Equal(t, http.StatusOK, resp.StatusCode, string(body))
	require.NoError(t, json.Unmarshal(body, &out))
	require.NotEmpty(t, out.AccessToken)
	return out.AccessToken
}

func (r *running) tokenFor(t *testing.T, scope, resource string) string {
	return r.token(t, r.base+"/oauth/token", scope, resource)
}

func mcpCall(tool string) string {
	return `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"` + tool + `","arguments":{"text":"hi"}}}`
}

// challengeParams reads the parameters of a Bearer challenge.
func challengeParams(t *testing.T, h string) map[string]string {
	t.Helper()
	require.True(t, strings.HasPrefix(h, "Bearer "), h)
	out := map[string]string{}
	for _, m := range regexp.MustCompile(`(\w+)="([^"]*)"`).FindAllStringSubmatch(h, -1) {
		out[m[1]] = m[2]
	}
	return out
}

// TestMCPClientDiscoveryFlow plays an MCP client that knows nothing but the
// MCP URL, as the MCP authorization specification describes it.
func TestMCPClientDiscoveryFlow(t *testing.T) {
	r := start(t)
	mcpURL := r.base + "/mcp"

	// 1. The first request is refused, and so is a call; the challenge
	// names the metadata, and for a call the scope the tool needs.
	resp, _ := send(t, http.MethodPost, mcpURL, "", "application/json",
		`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	require.Equal(t, http.StatusUnauthorized, resp.StatusCode)
	assert.Equal(t, r.base+"/.well-known/oauth-protected-resource/mcp",
		challengeParams(t, resp.Header.Get("WWW-Authenticate"))["resource_metadata"])
	resp, _ = send(t, http.MethodPost, mcpURL, "", "application/json", mcpCall("echo"))
	require.Equal(t, http.StatusUnauthorized, resp.StatusCode)
	ch := challengeParams(t, resp.Header.Get("WWW-Authenticate"))
	require.Equal(t, r.base+"/.well-known/oauth-protected-resource/mcp", ch["resource_metadata"])
	require.Equal(t, "tools.call", ch["scope"])

	// 2. The protected resource metadata (RFC 9728).
	var prm oauth.ProtectedResourceMetadata
	require.Equal(t, http.StatusOK, getJSON(t, ch["resource_metadata"], &prm))
	require.Equal(t, mcpURL, prm.Resource)
	require.Len(t, prm.AuthorizationServers, 1)

	// 3. The authorization server metadata, at the well-known URLs in the
	// order the specification lists for an issuer with a path.
	as, err := url.Parse(prm.AuthorizationServers[0])
	require.NoError(t, err)
	origin := as.Scheme + "://" + as.Host
	var asMeta struct {
		Issuer        string `json:"issuer"`
		TokenEndpoint string `json:"token_endpoint"`
	}
	found := false
	for _, u := range []string{
		origin + "/.well-known/oauth-authorization-server" + as.Path,
		origin + "/.well-known/openid-configuration" + as.Path,
		origin + as.Path + "/.well-known/openid-configuration",
	} {
		if getJSON(t, u, &asMeta) == http.StatusOK {
			found = true
			break
		}
	}
	require.True(t, found, "no authorization server metadata")
	require.Equal(t, prm.AuthorizationServers[0], asMeta.Issuer)

	// 4. A token for the scope challenged, with the resource parameter.
	tok := r.token(t, asMeta.TokenEndpoint, ch["scope"], prm.Resource)

	// 5. The call succeeds.
	resp, body := send(t, http.MethodPost, mcpURL, tok, "application/json", mcpCall("echo"))
	require.Equal(t, http.StatusOK, resp.StatusCode, body)
	assert.Contains(t, body, `demo says: hi`)
	assert.Contains(t, body, `"isError":false`)

	// 6. secret needs tools.admin: 403 insufficient_scope says so.
	resp, body = send(t, http.MethodPost, mcpURL, tok, "application/json", mcpCall("secret"))
	require.Equal(t, http.StatusForbidden, resp.StatusCode, body)
	ch = challengeParams(t, resp.Header.Get("WWW-Authenticate"))
	assert.Equal(t, "insufficient_scope", ch["error"])
	assert.Contains(t, strings.Fields(ch["scope"]), "tools.admin")
	assert.Equal(t, r.base+"/.well-known/oauth-protected-resource/mcp", ch["resource_metadata"])

	// 7. Step-up: a token for the scopes challenged calls secret.
	tok = r.token(t, asMeta.TokenEndpoint, ch["scope"], prm.Resource)
	resp, body = send(t, http.MethodPost, mcpURL, tok, "application/json", mcpCall("secret"))
	require.Equal(t, http.StatusOK, resp.StatusCode, body)
	assert.Contains(t, body, "the secret is 42")
}

func TestRESTAndOXPWithRealTokens(t *testing.T) {
	r := start(t)
	apiTok := r.tokenFor(t, "tools.call", r.base+"/api")
	resp, body := send(t, http.MethodPost, r.base+"/api/tools/echo/call", apiTok, "application/json", `{"text":"rest"}`)
	require.Equal(t, http.StatusOK, resp.StatusCode, body)
	assert.Contains(t, body, "demo says: rest")

	resp, _ = send(t, http.MethodPost, r.base+"/api/tools/secret/call", apiTok, "application/json", `{}`)
	require.Equal(t, http.StatusForbidden, resp.StatusCode)
	assert.Equal(t, "insufficient_scope", challengeParams(t, resp.Header.Get("WWW-Authenticate"))["error"])

	oxpTok := r.tokenFor(t, "tools.call", r.base+"/oxp")
	resp, body = send(t, http.MethodPost, r.base+"/oxp/tools/call", oxpTok, "application/json", `{"tool_id":"Tools.echo","input":{"text":"oxp"}}`)
	require.Equal(t, http.StatusOK, resp.StatusCode, body)
	assert.Contains(t, body, `"success":true`)

	resp, _ = send(t, http.MethodPost, r.base+"/oxp/tools/call", apiTok, "application/json", `{"tool_id":"Tools.echo","input":{"text":"oxp"}}`)
	// OXP answers refused credentials with 400, as its specification says,
	// and still names where to authenticate.
	require.Equal(t, http.StatusBadRequest, resp.StatusCode, "a token for /api is not one for /oxp")
	assert.Equal(t, "invalid_token", challengeParams(t, resp.Header.Get("WWW-Authenticate"))["error"])
}

// mint signs claims with key, as the provider would, for the tokens the
// provider never issues.
func mint(t *testing.T, key *rsa.PrivateKey, kid string, claims map[string]any) string {
	t.Helper()
	return (&tokentest.Key{ID: kid, Private: key}).Sign(t, "", claims)
}

func TestTokensTheVerifierRefuses(t *testing.T) {
	r := start(t)
	mcpURL := r.base + "/mcp"
	issuer := r.base + "/oauth"
	key := r.keys.current()
	claims := func(mod func(map[string]any)) map[string]any {
		now := time.Now()
		c := map[string]any{"iss": issuer, "sub": "demo", "aud": []string{mcpURL}, "scope": "tools.call",
			"iat": now.Unix(), "nbf": now.Unix(), "exp": now.Add(time.Minute).Unix()}
		if mod != nil {
			mod(c)
		}
		return c
	}
	// The control: a token minted this way is accepted.
	resp, body := send(t, http.MethodPost, mcpURL, mint(t, key.key, key.id, claims(nil)), "application/json", mcpCall("echo"))
	require.Equal(t, http.StatusOK, resp.StatusCode, body)

	stranger, err := rsa.GenerateKey(rand.Reader, 2048)
	require.NoError(t, err)
	der, err := x509.MarshalPKIXPublicKey(&key.key.PublicKey)
	require.NoError(t, err)
	pubPEM := pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: der})
	real := r.tokenFor(t, "tools.call", mcpURL)
	parts := strings.Split(real, ".")
	payload, err := base64.RawURLEncoding.DecodeString(parts[1])
	require.NoError(t, err)
	elevated := strings.Replace(string(payload), `"scope":"tools.call"`, `"scope":"tools.call tools.admin"`, 1)
	require.NotEqual(t, string(payload), elevated)

	refused := map[string]string{
		"expired":                   mint(t, key.key, key.id, claims(func(c map[string]any) { c["exp"] = time.Now().Add(-2 * time.Minute).Unix() })),
		"not yet valid":             mint(t, key.key, key.id, claims(func(c map[string]any) { c["nbf"] = time.Now().Add(2 * time.Minute).Unix() })),
		"wrong issuer":              mint(t, key.key, key.id, claims(func(c map[string]any) { c["iss"] = r.base + "/other" })),
		"wrong audience (minted)":   mint(t, key.key, key.id, claims(func(c map[string]any) { c["aud"] = []string{"https://elsewhere.example"} })),
		"wrong audience (provider)": r.tokenFor(t, "tools.call", r.base+"/api"),
		"unknown key":               mint(t, stranger, "key-unknown", claims(nil)),
		"unknown key, known kid":    mint(t, stranger, key.id, claims(nil)),
		"alg none":                  tokentest.Forge(map[string]any{"alg": "none", "typ": "JWT"}, claims(nil), func(string) []byte { return nil }),
		"HS256 with the public key": tokentest.Forge(map[string]any{"alg": "HS256", "typ": "JWT", "kid": key.id}, claims(nil), func(in string) []byte {
			m := hmac.New(sha256.New, pubPEM)
			m.Write([]byte(in))
			return m.Sum(nil)
		}),
		"tampered payload": parts[0] + "." + base64.RawURLEncoding.EncodeToString([]byte(elevated)) + "." + parts[2],
	}
	for name, tok := range refused {
		t.Run(name, func(t *testing.T) {
			resp, body := send(t, http.MethodPost, mcpURL, tok, "application/json", mcpCall("echo"))
			require.Equal(t, http.StatusUnauthorized, resp.StatusCode, body)
			assert.Equal(t, "invalid_token", challengeParams(t, resp.Header.Get("WWW-Authenticate"))["error"])
		})
	}
	t.Run("missing scope", func(t *testing.T) {
		resp, _ := send(t, http.MethodPost, mcpURL, real, "application/json", mcpCall("secret"))
		require.Equal(t, http.StatusForbidden, resp.StatusCode)
		ch := challengeParams(t, resp.Header.Get("WWW-Authenticate"))
		assert.Equal(t, "insufficient_scope", ch["error"])
		assert.Contains(t, strings.Fields(ch["scope"]), "tools.admin")
	})
}

func TestRotatedProviderKey(t *testing.T) {
	r := start(t)
	mcpURL := r.base + "/mcp"
	before := r.tokenFor(t, "tools.call", mcpURL)
	resp, _ := send(t, http.MethodPost, mcpURL, before, "application/json", mcpCall("echo"))
	require.Equal(t, http.StatusOK, resp.StatusCode, "the verifier has fetched the first key")

	_, err := r.keys.rotate()
	require.NoError(t, err)
	after := r.tokenFor(t, "tools.call", mcpURL)
	require.NotEqual(t, kidOf(t, before), kidOf(t, after), "the provider signs with the new key")
	resp, body := send(t, http.MethodPost, mcpURL, after, "application/json", mcpCall("echo"))
	require.Equal(t, http.StatusOK, resp.StatusCode, "a token signed with the rotated key is accepted: %s", body)
	resp, _ = send(t, http.MethodPost, mcpURL, before, "application/json", mcpCall("echo"))
	require.Equal(t, http.StatusOK, resp.StatusCode, "the old key is still published")
}

func kidOf(t *testing.T, tok string) string {
	t.Helper()
	p, err := jwt.ParseSigned(tok, []jose.SignatureAlgorithm{jose.RS256})
	require.NoError(t, err)
	return p.Headers[0].KeyID
}

func TestPerCallerToolLists(t *testing.T) {
	r := start(t)
	mcpURL := r.base + "/mcp"
	list := func(token string) []string {
		resp, body := send(t, http.MethodPost, mcpURL, token, "application/json", `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)
		require.Equal(t, http.StatusOK, resp.StatusCode, body)
		var out struct {
			Result struct{ Tools []struct{ Name string } }
		}
		require.NoError(t, json.Unmarshal([]byte(body), &out))
		names := []string{}
		for _, tl := range out.Result.Tools {
			names = append(names, tl.Name)
		}
		return names
	}
	resp, _ := send(t, http.MethodPost, mcpURL, "", "application/json", `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)
	assert.Equal(t, http.StatusUnauthorized, resp.StatusCode, "the MCP endpoint needs a token for everything")
	resp, body := send(t, http.MethodGet, r.base+"/api/tools", "", "", "")
	require.Equal(t, http.StatusOK, resp.StatusCode)
	assert.JSONEq(t, `[]`, body, "anonymous, on REST: every tool needs a scope")
	resp, body = send(t, http.MethodGet, r.base+"/oxp/tools", r.tokenFor(t, "tools.admin", r.base+"/oxp"), "", "")
	require.Equal(t, http.StatusOK, resp.StatusCode)
	assert.Contains(t, body, `"Tools_secret"`)
	assert.NotContains(t, body, `"Tools_echo"`, "OXP lists only what the caller may call")
	assert.Equal(t, []string{"echo"}, list(r.tokenFor(t, "tools.call", mcpURL)))
	assert.Equal(t, []string{"echo", "secret"}, list(r.tokenFor(t, "tools.call tools.admin", mcpURL)))
	assert.Equal(t, []string{"secret"}, list(r.tokenFor(t, "tools.admin", mcpURL)))
}

func TestProviderRefusesUnknownResourcesAndScopes(t *testing.T) {
	r := start(t)
	for name, form := range map[string]url.Values{
		"two resources":    {"grant_type": {"client_credentials"}, "scope": {"tools.call"}, "resource": {r.base + "/mcp", r.base + "/api"}},
		"unknown resource": {"grant_type": {"client_credentials"}, "scope": {"tools.call"}, "resource": {"https://elsewhere.example"}},
		"unknown scope":    {"grant_type": {"client_credentials"}, "scope": {"root"}, "resource": {r.base + "/mcp"}},
	} {
		req, err := http.NewRequest(http.MethodPost, r.base+"/oauth/token", strings.NewReader(form.Encode()))
		require.NoError(t, err)
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.SetBasicAuth(clientID, clientSecret)
		resp, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		resp.Body.Close()
		assert.Equal(t, http.StatusBadRequest, resp.StatusCode, name)
	}
}

func TestTheDemoListensOnLoopbackUnlessToldOtherwise(t *testing.T) {
	assert.Equal(t, "127.0.0.1:8080", listenAddr("", "8080"))
	assert.Equal(t, "0.0.0.0:9000", listenAddr("0.0.0.0", "9000"))
	assert.Equal(t, "[::1]:8080", listenAddr("::1", "8080"))
}

// TestTheProviderMetadataSaysWhatItServes: the same metadata at RFC 8414's
// URL and at both OpenID Connect Discovery URLs MCP clients try, with
// every member OpenID Connect Discovery requires, and what MCP clients
// check: PKCE S256, registration, Client ID Metadata Documents.
func TestTheProviderMetadataSaysWhatItServes(t *testing.T) {
	r := start(t)
	var docs []map[string]any
	for _, u := range []string{
		r.base + "/.well-known/oauth-authorization-server/oauth",
		r.base + "/.well-known/openid-configuration/oauth",
		r.base + "/oauth/.well-known/openid-configuration",
	} {
		var meta map[string]any
		require.Equal(t, http.StatusOK, getJSON(t, u, &meta), u)
		docs = append(docs, meta)
	}
	assert.Equal(t, docs[0], docs[1])
	assert.Equal(t, docs[0], docs[2])
	meta := docs[0]
	issuer := r.base + "/oauth"
	assert.Equal(t, issuer, meta["issuer"])
	for member, want := range map[string]any{
		"authorization_endpoint":                issuer + "/authorize",
		"token_endpoint":                        issuer + "/token",
		"registration_endpoint":                 issuer + "/register",
		"device_authorization_endpoint":         issuer + "/device_authorization",
		"jwks_uri":                              issuer + "/keys",
		"response_types_supported":              []any{"code"},
		"subject_types_supported":               []any{"public"},
		"id_token_signing_alg_values_supported": []any{"RS256"},
		"code_challenge_methods_supported":      []any{"S256"},
		"client_id_metadata_document_supported": true,
		"grant_types_supported": []any{"authorization_code", "refresh_token", "client_credentials",
			"urn:ietf:params:oauth:grant-type:device_code"},
		"token_endpoint_auth_methods_supported":          []any{"client_secret_basic", "client_secret_post", "none"},
		"authorization_response_iss_parameter_supported": true,
	} {
		assert.Equal(t, want, meta[member], member)
	}
	assert.Subset(t, meta["scopes_supported"], []any{"openid", "tools.call", "tools.admin"})
	for _, member := range []string{"authorization_endpoint", "token_endpoint", "registration_endpoint", "device_authorization_endpoint", "jwks_uri"} {
		resp, _ := send(t, http.MethodOptions, meta[member].(string), "", "", "")
		assert.NotEqual(t, http.StatusNotFound, resp.StatusCode, "%s is served", member)
	}
}
