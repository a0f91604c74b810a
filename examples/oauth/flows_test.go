package main

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"html"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolexec/toolexec/oauth"
)

// browser plays the user's browser: it follows redirects, keeps cookies,
// answers the consent page with decision, and stops at redirectURI.
type browser struct {
	client   *http.Client
	landed   *url.URL
	decision string
}

func newBrowser(t *testing.T, redirectURI, decision string) *browser {
	t.Helper()
	jar, err := cookiejar.New(nil)
	require.NoError(t, err)
	b := &browser{decision: decision}
	b.client = &http.Client{Jar: jar, Timeout: 10 * time.Second, CheckRedirect: func(req *http.Request, _ []*http.Request) error {
		if strings.HasPrefix(req.URL.String(), redirectURI) {
			b.landed = req.URL
			return http.ErrUseLastResponse
		}
		return nil
	}}
	return b
}

var (
	consentForm  = regexp.MustCompile(`<form id="consent" method="post" action="([^"]+)">`)
	consentInput = regexp.MustCompile(`<input type="hidden" name="([^"]+)" value="([^"]+)">`)
)

// answer loads page and, when it is the consent page, submits its form
// with the browser's decision; it returns the last page's status and body.
func (b *browser) answer(t *testing.T, page string) (int, string) {
	t.Helper()
	resp, err := b.client.Get(page)
	require.NoError(t, err)
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	form := consentForm.FindStringSubmatch(string(body))
	if b.landed != nil || form == nil {
		return resp.StatusCode, string(body)
	}
	in := consentInput.FindStringSubmatch(string(body))
	require.NotNil(t, in, string(body))
	action, err := resp.Request.URL.Parse(html.UnescapeString(form[1]))
	require.NoError(t, err)
	resp, err = b.client.PostForm(action.String(), url.Values{in[1]: {html.UnescapeString(in[2])}, "decision": {b.decision}})
	require.NoError(t, err)
	body, _ = io.ReadAll(resp.Body)
	resp.Body.Close()
	return resp.StatusCode, string(body)
}

// pkce is a code verifier and its S256 challenge.
func pkce() (verifier, challenge string) {
	verifier = rand.Text() + rand.Text()
	sum := sha256.Sum256([]byte(verifier))
	return verifier, base64.RawURLEncoding.EncodeToString(sum[:])
}

// postToken posts form to the token endpoint, with basic authentication
// when secret is set, and returns the status and the decoded answer.
func (r *running) postToken(t *testing.T, form url.Values, id, secret string) (int, map[string]any) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, r.base+"/oauth/token", strings.NewReader(form.Encode()))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	if secret != "" {
		req.SetBasicAuth(id, secret)
	} else if id != "" {
		form.Set("client_id", id)
		req.Body = io.NopCloser(strings.NewReader(form.Encode()))
		req.ContentLength = int64(len(form.Encode()))
	}
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	var out map[string]any
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&out))
	return resp.StatusCode, out
}

// registerClient registers a client dynamically (RFC 7591).
func (r *running) registerClient(t *testing.T, meta map[string]any) (int, map[string]any) {
	t.Helper()
	body, _ := json.Marshal(meta)
	resp, err := http.Post(r.base+"/oauth/register", "application/json", strings.NewReader(string(body)))
	require.NoError(t, err)
	defer resp.Body.Close()
	var out map[string]any
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&out))
	return resp.StatusCode, out
}

// authURL is an authorization request of client for scope and resource.
func (r *running) authURL(client, redirect, challenge, scope, resource string) string {
	q := url.Values{"client_id": {client}, "response_type": {"code"}, "redirect_uri": {redirect}, "scope": {scope},
		"state": {"st"}, "nonce": {"nn"}, "code_challenge": {challenge}, "code_challenge_method": {"S256"}}
	if resource != "" {
		q.Set("resource", resource)
	}
	return r.base + "/oauth/authorize?" + q.Encode()
}

// TestAuthorizationCodeFlow: a client registered on its own (public, RFC
// 7591) signs alice in with PKCE for the MCP endpoint; the code is good
// once, with its verifier, at its redirect URI; the access token calls,
// the ID token does not; the refresh token is rotated.
func TestAuthorizationCodeFlow(t *testing.T) {
	r := start(t)
	const redirect = "http://127.0.0.1:49152/callback"
	status, reg := r.registerClient(t, map[string]any{"redirect_uris": []string{redirect}, "client_name": "flow test",
		"token_endpoint_auth_method": "none", "grant_types": []string{"authorization_code", "refresh_token"}})
	require.Equal(t, http.StatusCreated, status, reg)
	id := reg["client_id"].(string)
	assert.NotContains(t, reg, "client_secret", "a public client")

	verifier, challenge := pkce()
	b := newBrowser(t, redirect, "allow")
	b.answer(t, r.authURL(id, redirect, challenge, "openid tools.call", r.base+"/mcp"))
	require.NotNil(t, b.landed, "the browser reached the client")
	q := b.landed.Query()
	assert.Equal(t, "st", q.Get("state"))
	assert.Equal(t, r.base+"/oauth", q.Get("iss"), "RFC 9207")
	code := q.Get("code")

	exchange := url.Values{"grant_type": {"authorization_code"}, "code": {code}, "redirect_uri": {redirect},
		"code_verifier": {verifier}, "resource": {r.base + "/mcp"}}
	wrong := url.Values{"grant_type": {"authorization_code"}, "code": {code}, "redirect_uri": {redirect},
		"code_verifier": {verifier[1:] + "x"}}
	status, out := r.postToken(t, wrong, id, "")
	assert.Equal(t, http.StatusBadRequest, status)
	assert.Equal(t, "invalid_grant", out["error"], "the wrong verifier; the code is now spent")

	verifier, challenge = pkce()
	b = newBrowser(t, redirect, "allow")
	b.answer(t, r.authURL(id, redirect, challenge, "openid tools.call", r.base+"/mcp"))
	exchange.Set("code", b.landed.Query().Get("code"))
	exchange.Set("code_verifier", verifier)
	status, out = r.postToken(t, exchange, id, "")
	require.Equal(t, http.StatusOK, status, out)
	status, again := r.postToken(t, exchange, id, "")
	assert.Equal(t, http.StatusBadRequest, status, "a code is good once")
	assert.Equal(t, "invalid_grant", again["error"])

	access, idToken, refresh := out["access_token"].(string), out["id_token"].(string), out["refresh_token"].(string)
	resp, body := send(t, http.MethodPost, r.base+"/mcp", access, "application/json", mcpCall("echo"))
	require.Equal(t, http.StatusOK, resp.StatusCode, body)
	assert.Contains(t, body, "alice says: hi")
	resp, _ = send(t, http.MethodPost, r.base+"/mcp", idToken, "application/json", mcpCall("echo"))
	assert.Equal(t, http.StatusUnauthorized, resp.StatusCode, "an ID token is not an access token")
	resp, _ = send(t, http.MethodPost, r.base+"/api/tools/echo/call", access, "application/json", `{"text":"x"}`)
	assert.Equal(t, http.StatusUnauthorized, resp.StatusCode, "the token is for /mcp")

	status, out = r.postToken(t, url.Values{"grant_type": {"refresh_token"}, "refresh_token": {refresh}}, id, "")
	require.Equal(t, http.StatusOK, status, out)
	assert.NotEqual(t, refresh, out["refresh_token"], "rotated")
	status, _ = r.postToken(t, url.Values{"grant_type": {"refresh_token"}, "refresh_token": {refresh}}, id, "")
	assert.Equal(t, http.StatusBadRequest, status, "the old refresh token is spent")
}

// TestAuthorizationRequestsTheProviderRefuses: errors before the client
// and its redirect URI are known stay on the provider's page; later ones
// go back to the client.
func TestAuthorizationRequestsTheProviderRefuses(t *testing.T) {
	r := start(t)
	const redirect = "http://localhost:5555/oauth/callback"
	_, challenge := pkce()
	for name, u := range map[string]string{
		"unknown client":          r.authURL("nobody", redirect, challenge, "tools.call", ""),
		"unregistered redirect":   r.authURL(clientID, "https://evil.example.com/cb", challenge, "tools.call", ""),
		"loopback, another path":  r.authURL(clientID, "http://localhost:5555/elsewhere", challenge, "tools.call", ""),
		"CIMD URL nobody answers": r.authURL("https://127.0.0.1:1/client.json", redirect, challenge, "tools.call", ""),
	} {
		resp, body := send(t, http.MethodGet, u, "", "", "")
		assert.Equal(t, http.StatusBadRequest, resp.StatusCode, name)
		assert.Contains(t, body, "toolexec OAuth demo", name)
	}
	for name, c := range map[string]struct{ url, decision, want string }{
		"no PKCE":          {strings.Replace(r.authURL(clientID, redirect, challenge, "tools.call", ""), "code_challenge_method=S256", "code_challenge_method=plain", 1), "allow", "invalid_request"},
		"unknown scope":    {r.authURL(clientID, redirect, challenge, "root", ""), "allow", "invalid_scope"},
		"unknown resource": {r.authURL(clientID, redirect, challenge, "tools.call", "https://elsewhere.example.com"), "allow", "invalid_target"},
		"declined":         {r.authURL(clientID, redirect, challenge, "tools.call", r.base+"/mcp"), "deny", "access_denied"},
	} {
		b := newBrowser(t, "http://localhost:5555/oauth/callback", c.decision)
		b.answer(t, c.url)
		require.NotNil(t, b.landed, name)
		assert.Equal(t, c.want, b.landed.Query().Get("error"), name)
		assert.Equal(t, "st", b.landed.Query().Get("state"), name)
	}
}

// TestClientIDMetadataDocuments: a client whose id is the https URL of its
// metadata document signs in without registering; a document that names
// another client_id is refused.
func TestClientIDMetadataDocuments(t *testing.T) {
	const redirect = "http://127.0.0.1:5556/callback"
	var docs *httptest.Server
	docs = httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		id := docs.URL + req.URL.Path
		if req.URL.Path == "/liar.json" {
			id = docs.URL + "/other.json"
		}
		writeJSON(w, http.StatusOK, map[string]any{"client_id": id, "client_name": "CIMD test",
			"redirect_uris": []string{redirect}, "token_endpoint_auth_method": "none", "grant_types": []string{"authorization_code"}})
	}))
	t.Cleanup(docs.Close)
	r := startWith(t, docs.Client())
	id := docs.URL + "/client.json"
	verifier, challenge := pkce()
	b := newBrowser(t, redirect, "allow")
	_, page := b.answer(t, r.authURL(id, redirect, challenge, "tools.call", r.base+"/mcp"))
	require.NotNil(t, b.landed, page)
	status, out := r.postToken(t, url.Values{"grant_type": {"authorization_code"}, "code": {b.landed.Query().Get("code")},
		"redirect_uri": {redirect}, "code_verifier": {verifier}}, id, "")
	require.Equal(t, http.StatusOK, status, out)
	resp, _ := send(t, http.MethodPost, r.base+"/mcp", out["access_token"].(string), "application/json", mcpCall("echo"))
	assert.Equal(t, http.StatusOK, resp.StatusCode)

	resp, _ = send(t, http.MethodGet, r.authURL(docs.URL+"/liar.json", redirect, challenge, "tools.call", ""), "", "", "")
	assert.Equal(t, http.StatusBadRequest, resp.StatusCode, "a document naming another client_id")
}

// TestDeviceFlow: a device asks for a code; its polls are pending until
// alice approves on the page, then get tokens, once.
func TestDeviceFlow(t *testing.T) {
	r := start(t)
	device := func(client, scope string) map[string]any {
		form := url.Values{"scope": {scope}, "resource": {r.base + "/mcp"}}
		req, err := http.NewRequest(http.MethodPost, r.base+"/oauth/device_authorization", strings.NewReader(form.Encode()))
		require.NoError(t, err)
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.SetBasicAuth(client, clientSecret)
		resp, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		defer resp.Body.Close()
		var out map[string]any
		require.NoError(t, json.NewDecoder(resp.Body).Decode(&out))
		require.Equal(t, http.StatusOK, resp.StatusCode, out)
		return out
	}
	poll := func(code string) (int, map[string]any) {
		return r.postToken(t, url.Values{"grant_type": {"urn:ietf:params:oauth:grant-type:device_code"}, "device_code": {code}}, clientID, clientSecret)
	}
	auth := device(clientID, "tools.call")
	_, out := poll(auth["device_code"].(string))
	assert.Equal(t, "authorization_pending", out["error"])
	_, out = poll(auth["device_code"].(string))
	assert.Equal(t, "slow_down", out["error"], "polled sooner than the interval")

	status, body := newBrowser(t, "http://unused.invalid/", "allow").answer(t, auth["verification_uri_complete"].(string))
	require.Equal(t, http.StatusOK, status)
	assert.Contains(t, body, "Done")
	time.Sleep(time.Second)
	status, out = poll(auth["device_code"].(string))
	require.Equal(t, http.StatusOK, status, out)
	resp, body := send(t, http.MethodPost, r.base+"/mcp", out["access_token"].(string), "application/json", mcpCall("echo"))
	require.Equal(t, http.StatusOK, resp.StatusCode, body)
	assert.Contains(t, body, "alice says: hi")
	_, out = poll(auth["device_code"].(string))
	assert.Equal(t, "expired_token", out["error"], "tokens once")

	denied := device(clientID, "tools.call")
	newBrowser(t, "http://unused.invalid/", "deny").answer(t, denied["verification_uri_complete"].(string))
	_, out = poll(denied["device_code"].(string))
	assert.Equal(t, "access_denied", out["error"])
}

// TestRegistrationRefusals: what a client may register.
func TestRegistrationRefusals(t *testing.T) {
	r := start(t)
	for name, c := range map[string]struct {
		meta map[string]any
		want string
	}{
		"no redirect for the code grant":    {map[string]any{"client_name": "x"}, "invalid_client_metadata"},
		"http redirect off loopback":        {map[string]any{"redirect_uris": []string{"http://example.com/cb"}}, "invalid_redirect_uri"},
		"implicit grant":                    {map[string]any{"redirect_uris": []string{"https://example.com/cb"}, "grant_types": []string{"implicit"}}, "invalid_client_metadata"},
		"public client, client credentials": {map[string]any{"token_endpoint_auth_method": "none", "grant_types": []string{"client_credentials"}}, "invalid_client_metadata"},
		"private_key_jwt":                   {map[string]any{"redirect_uris": []string{"https://example.com/cb"}, "token_endpoint_auth_method": "private_key_jwt"}, "invalid_client_metadata"},
	} {
		status, out := r.registerClient(t, c.meta)
		assert.Equal(t, http.StatusBadRequest, status, name)
		assert.Equal(t, c.want, out["error"], name)
	}
	status, out := r.registerClient(t, map[string]any{"grant_types": []string{"client_credentials"}, "client_name": "agent"})
	require.Equal(t, http.StatusCreated, status, out)
	status, tok := r.postToken(t, url.Values{"grant_type": {"client_credentials"}, "scope": {"tools.call"}, "resource": {r.base + "/mcp"}},
		out["client_id"].(string), out["client_secret"].(string))
	require.Equal(t, http.StatusOK, status, tok)
	status, tok = r.postToken(t, url.Values{"grant_type": {"authorization_code"}, "code": {"x"}}, out["client_id"].(string), out["client_secret"].(string))
	assert.Equal(t, http.StatusBadRequest, status)
	assert.Equal(t, "unauthorized_client", tok["error"], "a grant it did not register")
	status, _ = r.postToken(t, url.Values{"grant_type": {"client_credentials"}}, out["client_id"].(string), "wrong")
	assert.Equal(t, http.StatusUnauthorized, status)
}

// startWith is start with the client the provider fetches Client ID
// Metadata Documents with.
func startWith(t *testing.T, fetch *http.Client) *running {
	t.Helper()
	srv := httptest.NewUnstartedServer(nil)
	base := "http://" + srv.Listener.Addr().String()
	d, err := newDemo(base, fetch, func(c *oauth.Config) { c.MinRefreshInterval = -1 })
	require.NoError(t, err)
	srv.Config.Handler = d.handler
	srv.Start()
	t.Cleanup(srv.Close)
	return &running{demo: d, base: base}
}
