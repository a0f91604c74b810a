package oauth_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-jose/go-jose/v4"
	"github.com/toolexec/toolexec/internal/tokentest"
)

// testIssuer is an authorization server for tests: OpenID metadata, a key
// set the test can change, and an introspection endpoint.
type testIssuer struct {
	srv  *httptest.Server
	mu   sync.Mutex
	keys []jose.JSONWebKey // published public keys
	// active maps opaque tokens to their introspection answers.
	active map[string]map[string]any
	// jwksHits counts key set fetches.
	jwksHits int
}

func newTestIssuer(t *testing.T) *testIssuer {
	t.Helper()
	is := &testIssuer{active: map[string]map[string]any{}}
	mux := http.NewServeMux()
	mux.HandleFunc("/.well-known/openid-configuration", func(w http.ResponseWriter, _ *http.Request) {
		_ = json.NewEncoder(w).Encode(map[string]any{
			"issuer":                 is.srv.URL,
			"jwks_uri":               is.srv.URL + "/keys",
			"introspection_endpoint": is.srv.URL + "/introspect",
			"scopes_supported":       []string{"openid", "groups", "tools.call", "bad scope"},
		})
	})
	mux.HandleFunc("/keys", func(w http.ResponseWriter, _ *http.Request) {
		is.mu.Lock()
		defer is.mu.Unlock()
		is.jwksHits++
		_ = json.NewEncoder(w).Encode(jose.JSONWebKeySet{Keys: is.keys})
	})
	mux.HandleFunc("/introspect", func(w http.ResponseWriter, r *http.Request) {
		if id, secret, _ := r.BasicAuth(); id != "rs" || secret != "rs-secret" {
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		is.mu.Lock()
		ans, ok := is.active[r.PostFormValue("token")]
		is.mu.Unlock()
		if !ok {
			ans = map[string]any{"active": false}
		}
		_ = json.NewEncoder(w).Encode(ans)
	})
	is.srv = httptest.NewServer(mux)
	t.Cleanup(is.srv.Close)
	return is
}

// signer is a key of the test issuer; sign makes "at+jwt" access tokens.
type signer struct{ *tokentest.Key }

func newRSASigner(t *testing.T, kid string) *signer { return &signer{tokentest.NewRSA(t, kid)} }

func newECSigner(t *testing.T, kid string) *signer { return &signer{tokentest.NewEC(t, kid)} }

// publish adds s's public key to the issuer's key set.
func (is *testIssuer) publish(s *signer) {
	is.mu.Lock()
	defer is.mu.Unlock()
	is.keys = append(is.keys, s.Public())
}

// claimsFor are valid claims for resource, from the test issuer.
func (is *testIssuer) claimsFor(resource string, scope string) map[string]any {
	now := time.Now()
	return map[string]any{
		"iss": is.srv.URL, "sub": "alice", "aud": []string{resource}, "client_id": "demo",
		"exp": now.Add(time.Hour).Unix(), "iat": now.Unix(), "nbf": now.Unix(), "scope": scope,
	}
}

// sign makes a compact JWT of claims signed by s, of type "at+jwt".
func (s *signer) sign(t *testing.T, claims map[string]any) string {
	t.Helper()
	return s.Sign(t, "at+jwt", claims)
}

// newRequest is a request to url whose path, as the handler sees it, is
// path (a prefix stripped), with a bearer token when token is set.
func newRequest(method, url, path, token string) *http.Request {
	r := httptest.NewRequest(method, url, strings.NewReader(`{}`))
	r.URL.Path = path
	r.Header.Set("Content-Type", "application/json")
	if token != "" {
		r.Header.Set("Authorization", "Bearer "+token)
	}
	return r
}

// serve runs r through h.
func serve(h http.Handler, r *http.Request) *httptest.ResponseRecorder {
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	return w
}
