package main

import (
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/json"
	"errors"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"
)

// The demo's preregistered client, and what the provider grants.
const (
	clientID     = "demo"
	clientSecret = "demo-secret"
	demoUser     = "alice" // whoever signs in is alice: a demo sign-in, no password

	tokenTTL   = 5 * time.Minute  // access and ID tokens
	codeTTL    = time.Minute      // authorization codes
	requestTTL = 10 * time.Minute // authorization requests awaiting consent, device codes
	refreshTTL = 24 * time.Hour   // refresh tokens
	maxBody    = 64 << 10         // a request body the provider reads
)

// Grant types, as metadata and clients name them.
const (
	grantCode              = "authorization_code"
	grantRefresh           = "refresh_token"
	grantClientCredentials = "client_credentials"
	grantDevice            = "urn:ietf:params:oauth:grant-type:device_code"
)

// toolScopes are the scopes the resource server's tools declare; the
// provider also knows OpenID Connect's openid, profile and email.
var toolScopes = []string{"tools.call", "tools.admin"}

// knownScopes are every scope the provider grants.
var knownScopes = append([]string{"openid", "profile", "email"}, toolScopes...)

// provider is a small OAuth 2.1 authorization server and OpenID Provider
// for the demo, with the issuer base + "/oauth", serving paths relative to
// it (mount it with http.StripPrefix). It signs every user in as alice
// without a password, and shows a consent page that approves itself.
//
//   - authorization code with PKCE (S256 only, always required), the
//     resource parameter (RFC 8707), RFC 9207's iss in the response;
//   - refresh tokens, rotated on each use;
//   - client credentials for the confidential client demo/demo-secret;
//   - the device authorization grant (RFC 8628), approved on a page;
//   - dynamic client registration (RFC 7591), and Client ID Metadata
//     Documents: an https client_id is fetched as the client's metadata;
//   - its metadata at both RFC 8414's and OpenID Connect Discovery's
//     well-known URLs.
//
// Access tokens are JWTs (RFC 9068, typ at+jwt) whose audience is the
// request's resource, one of resources, or all of them when the request
// names none; ID tokens name the client. Everything is kept in memory,
// bounded.
type provider struct {
	issuer    string
	resources []string
	keys      *keyRing
	// fetch gets Client ID Metadata Documents.
	fetch *http.Client

	mu        sync.Mutex
	clients   *expiring[*client]      // registered, and fetched metadata documents
	requests  *expiring[*authRequest] // awaiting consent, by id
	codes     *expiring[*grant]       // authorization codes
	refresh   *expiring[*grant]       // refresh tokens, by SHA-256
	devices   *expiring[*deviceAuth]  // device codes, by SHA-256
	userCodes *expiring[string]       // user code -> device code's key
}

// client is an OAuth client the provider knows.
type client struct {
	id, secret   string // secret "" for a public client
	name         string
	redirectURIs []string
	grantTypes   []string
}

func (c *client) public() bool { return c.secret == "" }

// grant is what a code, refresh token or device code stands for, and what
// the tokens issued for it say.
type grant struct {
	clientID string
	subject  string
	scopes   []string
	audience []string
	nonce    string
	authTime time.Time

	// For authorization codes: where the code went, and the PKCE challenge.
	redirectURI string
	challenge   string
}

func newProvider(issuer string, keys *keyRing, resources []string, fetch *http.Client) *provider {
	if fetch == nil {
		fetch = &http.Client{Timeout: 5 * time.Second}
	}
	f := *fetch
	f.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	return &provider{
		issuer: issuer, resources: resources, keys: keys, fetch: &f,
		clients: newExpiring[*client](1000), requests: newExpiring[*authRequest](1000),
		codes: newExpiring[*grant](1000), refresh: newExpiring[*grant](10000),
		devices: newExpiring[*deviceAuth](1000), userCodes: newExpiring[string](1000),
	}
}

// demoClient is the preregistered client: confidential, every grant, and
// loopback redirect URIs (any port, RFC 8252) at /oauth/callback (where
// mcp-remote listens) and /callback.
var demoClient = &client{
	id: clientID, secret: clientSecret, name: "demo (preregistered)",
	redirectURIs: []string{"http://localhost/oauth/callback", "http://127.0.0.1/oauth/callback",
		"http://localhost/callback", "http://127.0.0.1/callback"},
	grantTypes: []string{grantCode, grantRefresh, grantClientCredentials, grantDevice},
}

// handler serves the provider's endpoints, relative to the issuer.
func (p *provider) handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /.well-known/openid-configuration", p.serveMetadata)
	mux.HandleFunc("GET /.well-known/oauth-authorization-server", p.serveMetadata)
	mux.HandleFunc("GET /keys", func(w http.ResponseWriter, _ *http.Request) { writeJSON(w, http.StatusOK, p.keys.public()) })
	mux.HandleFunc("GET /authorize", p.authorize)
	mux.HandleFunc("POST /authorize/decide", p.decide)
	mux.HandleFunc("POST /token", p.token)
	mux.HandleFunc("POST /register", p.register)
	mux.HandleFunc("POST /device_authorization", p.deviceAuthorization)
	mux.HandleFunc("GET /device", p.devicePage)
	mux.HandleFunc("POST /device", p.deviceDecide)
	return mux
}

// metadata is the provider's metadata (RFC 8414, OpenID Connect Discovery
// 1.0): what it really offers, every member either names.
func (p *provider) metadata() map[string]any {
	return map[string]any{
		"issuer":                                         p.issuer,
		"authorization_endpoint":                         p.issuer + "/authorize",
		"token_endpoint":                                 p.issuer + "/token",
		"registration_endpoint":                          p.issuer + "/register",
		"device_authorization_endpoint":                  p.issuer + "/device_authorization",
		"jwks_uri":                                       p.issuer + "/keys",
		"scopes_supported":                               knownScopes,
		"response_types_supported":                       []string{"code"},
		"response_modes_supported":                       []string{"query"},
		"grant_types_supported":                          []string{grantCode, grantRefresh, grantClientCredentials, grantDevice},
		"token_endpoint_auth_methods_supported":          []string{"client_secret_basic", "client_secret_post", "none"},
		"code_challenge_methods_supported":               []string{"S256"},
		"client_id_metadata_document_supported":          true,
		"authorization_response_iss_parameter_supported": true,
		"subject_types_supported":                        []string{"public"},
		"id_token_signing_alg_values_supported":          []string{"RS256"},
		"claims_supported":                               []string{"iss", "sub", "aud", "exp", "iat", "auth_time", "nonce", "name", "email"},
	}
}

func (p *provider) serveMetadata(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Access-Control-Allow-Origin", "*") // browser-based clients read it
	writeJSON(w, http.StatusOK, p.metadata())
}

// lookupClient finds a client by id: the preregistered one, one registered
// dynamically, or a Client ID Metadata Document (an https URL with a path),
// fetched and kept for a while.
func (p *provider) lookupClient(r *http.Request, id string) (*client, error) {
	if id == clientID {
		return demoClient, nil
	}
	p.mu.Lock()
	c, ok := p.clients.get(id)
	p.mu.Unlock()
	if ok {
		return c, nil
	}
	if isClientIDURL(id) {
		c, err := p.fetchClient(r.Context(), id)
		if err != nil {
			return nil, err
		}
		p.mu.Lock()
		p.clients.put(id, c, cimdTTL)
		p.mu.Unlock()
		return c, nil
	}
	return nil, errors.New("unknown client")
}

// formClient reads the form of a token or device authorization request
// and authenticates its client (see authenticate); on failure it has
// answered the error, and returns nil.
func (p *provider) formClient(w http.ResponseWriter, r *http.Request) *client {
	e := parseForm(w, r)
	var c *client
	if e == nil {
		c, e = p.authenticate(r)
	}
	if e != nil {
		writeError(w, e)
		return nil
	}
	return c
}

// authenticate identifies the client of a token or device authorization
// request: HTTP Basic (client_secret_basic), client_id and client_secret
// in the form (client_secret_post), or client_id alone for a public
// client. r.PostForm must be parsed.
func (p *provider) authenticate(r *http.Request) (*client, *oauthError) {
	id, secret, basic := r.BasicAuth()
	if basic {
		// RFC 6749 section 2.3.1: form-encoded before Basic encoding.
		var err1, err2 error
		id, err1 = url.QueryUnescape(id)
		secret, err2 = url.QueryUnescape(secret)
		if err1 != nil || err2 != nil {
			return nil, errInvalidClient
		}
	} else {
		id, secret = r.PostForm.Get("client_id"), r.PostForm.Get("client_secret")
	}
	if id == "" {
		return nil, errInvalidClient
	}
	c, err := p.lookupClient(r, id)
	if err != nil {
		return nil, errInvalidClient
	}
	if c.public() {
		if secret != "" {
			return nil, errInvalidClient
		}
		return c, nil
	}
	if subtle.ConstantTimeCompare([]byte(secret), []byte(c.secret)) != 1 {
		return nil, errInvalidClient
	}
	return c, nil
}

// redirectAllowed reports whether c registered uri: exactly, or, for a
// loopback http URI, but for its port (RFC 8252 section 7.3: native
// clients listen on a port of their choosing).
func (c *client) redirectAllowed(uri string) bool {
	if slices.Contains(c.redirectURIs, uri) {
		return true
	}
	u, err := url.Parse(uri)
	if err != nil || u.Scheme != "http" || !isLoopback(u.Hostname()) {
		return false
	}
	for _, reg := range c.redirectURIs {
		ru, err := url.Parse(reg)
		if err == nil && ru.Scheme == "http" && ru.Hostname() == u.Hostname() && ru.EscapedPath() == u.EscapedPath() &&
			ru.RawQuery == u.RawQuery {
			return true
		}
	}
	return false
}

func isLoopback(host string) bool {
	return host == "localhost" || host == "127.0.0.1" || host == "::1"
}

// scopesFor checks the scope parameter: every scope known; none asks for
// tools.call.
func scopesFor(param string) ([]string, *oauthError) {
	scopes := strings.Fields(param)
	if len(scopes) == 0 {
		return []string{"tools.call"}, nil
	}
	for _, s := range scopes {
		if !slices.Contains(knownScopes, s) {
			return nil, &oauthError{code: "invalid_scope", description: "unknown scope " + quoteParam(s)}
		}
	}
	return slices.Compact(scopes), nil
}

// audienceFor checks the resource parameters (RFC 8707): none means every
// resource of the demo; one must be one of them; more are refused (a token
// is for one resource).
func (p *provider) audienceFor(values []string) ([]string, *oauthError) {
	switch {
	case len(values) == 0:
		return slices.Clone(p.resources), nil
	case len(values) == 1 && slices.Contains(p.resources, values[0]):
		return values, nil
	}
	return nil, &oauthError{code: "invalid_target", description: "resource must name one of " + strings.Join(p.resources, ", ")}
}

// tokens issues the access token (and ID and refresh tokens as g allows)
// of a grant to client c, as the token endpoint's answer.
func (p *provider) tokens(c *client, g *grant, withRefresh bool) (map[string]any, error) {
	now := time.Now()
	var aud any = g.audience
	if len(g.audience) == 1 {
		aud = g.audience[0]
	}
	access, err := p.keys.sign("at+jwt", map[string]any{
		"iss": p.issuer, "sub": g.subject, "aud": aud, "client_id": c.id, "scope": strings.Join(g.scopes, " "),
		"iat": now.Unix(), "exp": now.Add(tokenTTL).Unix(), "jti": rand.Text(),
	})
	if err != nil {
		return nil, err
	}
	out := map[string]any{"access_token": access, "token_type": "Bearer", "expires_in": int(tokenTTL.Seconds()),
		"scope": strings.Join(g.scopes, " ")}
	if slices.Contains(g.scopes, "openid") && g.subject != c.id {
		claims := map[string]any{"iss": p.issuer, "sub": g.subject, "aud": c.id, "iat": now.Unix(),
			"exp": now.Add(tokenTTL).Unix(), "auth_time": g.authTime.Unix()}
		if g.nonce != "" {
			claims["nonce"] = g.nonce
		}
		if slices.Contains(g.scopes, "profile") {
			claims["name"] = "Alice (demo)"
		}
		if slices.Contains(g.scopes, "email") {
			claims["email"] = demoUser + "@example.com"
		}
		if out["id_token"], err = p.keys.sign("JWT", claims); err != nil {
			return nil, err
		}
	}
	if withRefresh && slices.Contains(c.grantTypes, grantRefresh) {
		rt := rand.Text() + rand.Text()
		p.mu.Lock()
		p.refresh.put(digest(rt), &grant{clientID: c.id, subject: g.subject, scopes: g.scopes, audience: g.audience,
			authTime: g.authTime}, refreshTTL)
		p.mu.Unlock()
		out["refresh_token"] = rt
	}
	return out, nil
}

// digest is the key a secret value (refresh token, device code) is kept
// under, so that the maps hold none of them.
func digest(s string) string {
	sum := sha256.Sum256([]byte(s))
	return base64.RawURLEncoding.EncodeToString(sum[:])
}

// oauthError is an OAuth error answer (RFC 6749 section 5.2).
type oauthError struct {
	code, description string
}

var errInvalidClient = &oauthError{code: "invalid_client", description: "unknown client, or wrong credentials"}

// writeError answers e as JSON: 401 for invalid_client, else 400.
func writeError(w http.ResponseWriter, e *oauthError) {
	status := http.StatusBadRequest
	if e.code == "invalid_client" {
		status = http.StatusUnauthorized
		w.Header().Set("WWW-Authenticate", `Basic realm="demo"`)
	}
	body := map[string]string{"error": e.code}
	if e.description != "" {
		body["error_description"] = e.description
	}
	writeJSON(w, status, body)
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	data, _ := json.Marshal(v) // maps of strings, slices and numbers: always encodes
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_, _ = w.Write(append(data, '\n'))
}

// parseForm reads a POST form of at most maxBody bytes.
func parseForm(w http.ResponseWriter, r *http.Request) *oauthError {
	r.Body = http.MaxBytesReader(w, r.Body, maxBody)
	if err := r.ParseForm(); err != nil {
		return &oauthError{code: "invalid_request", description: "the body is not a form of at most 64 KiB"}
	}
	return nil
}

// quoteParam shows a value from a request in an error description, bounded
// and without characters RFC 6749 leaves out of descriptions.
func quoteParam(s string) string {
	if len(s) > 64 {
		s = s[:64] + "..."
	}
	return `"` + strings.Map(func(r rune) rune {
		if r < 0x20 || r > 0x7e || r == '"' || r == '\\' {
			return '?'
		}
		return r
	}, s) + `"`
}
