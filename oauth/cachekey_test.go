package oauth_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolexec/toolexec"
	"github.com/toolexec/toolexec/oauth"
)

// cachedServer serves REST with one cached tool, whoami, that answers
// "client/subject" of its caller and counts its runs.
type cachedServer struct {
	h    http.Handler
	runs atomic.Int32
}

func newCachedServer(t *testing.T, v *oauth.Verifier) *cachedServer {
	t.Helper()
	s := &cachedServer{}
	reg := &toolexec.Registry{}
	reg.MustAdd(toolexec.Tool{Name: "whoami", Options: toolexec.ToolOptions{Cache: true}},
		toolexec.ToolCallHandlerFunc(func(ctx context.Context, _ string, _ map[string]any) ([]toolexec.Content, bool, string, error) {
			s.runs.Add(1)
			id, _ := oauth.FromContext(ctx)
			return []toolexec.Content{toolexec.Text(id.ClientID + "/" + id.Subject)}, false, "", nil
		}))
	x := toolexec.New(reg, reg, toolexec.WithAllowExecute(true), toolexec.WithAuthHook(v.AuthHook),
		toolexec.WithCache(toolexec.NewMemoryCache(16)))
	s.h = toolexec.NewHandler(x)
	return s
}

// call calls whoami with token and returns its text.
func (s *cachedServer) call(t *testing.T, token string) string {
	t.Helper()
	r := httptest.NewRequest(http.MethodPost, "https://tools.example.com/api/tools/whoami/call", strings.NewReader(`{}`))
	r.URL.Path = "/tools/whoami/call"
	r.Header.Set("Authorization", "Bearer "+token)
	w := httptest.NewRecorder()
	s.h.ServeHTTP(w, r)
	require.Equal(t, http.StatusOK, w.Code, w.Body.String())
	var res struct{ Content []struct{ Text string } }
	require.NoError(t, json.Unmarshal(w.Body.Bytes(), &res))
	require.Len(t, res.Content, 1)
	return res.Content[0].Text
}

// TestCachedResultsStayWithTheirClient: tokens without "sub" (a
// client_credentials JWT, an introspected token) are told apart by their
// client, so one client is never served another's cached result, while
// the same client is; a token naming neither subject nor client is never
// cached.
func TestCachedResultsStayWithTheirClient(t *testing.T) {
	const resource = "https://tools.example.com/api"
	is := newTestIssuer(t)
	k := newRSASigner(t, "k1")
	is.publish(k)
	jwtFor := func(clientClaim, client string) string {
		c := is.claimsFor(resource, "tools.call")
		delete(c, "sub")
		delete(c, "client_id")
		if clientClaim != "" {
			c[clientClaim] = client
		}
		return k.sign(t, c)
	}
	opaqueFor := func(client string) string {
		tok := "opaque-" + client
		ans := map[string]any{"active": true, "aud": resource, "scope": "tools.call",
			"exp": time.Now().Add(time.Hour).Unix()}
		if client != "" {
			ans["client_id"] = client
		}
		is.mu.Lock()
		is.active[tok] = ans
		is.mu.Unlock()
		return tok
	}
	for name, token := range map[string]func(client string) string{
		"client_id":  func(c string) string { return jwtFor("client_id", c) },
		"azp":        func(c string) string { return jwtFor("azp", c) },
		"introspect": opaqueFor,
	} {
		t.Run(name, func(t *testing.T) {
			v := newVerifier(t, is, func(c *oauth.Config) {
				c.Resources = []string{resource}
				c.Introspection = &oauth.Introspection{ClientID: "rs", ClientSecret: "rs-secret"}
			})
			s := newCachedServer(t, v)
			assert.Equal(t, "app-a/", s.call(t, token("app-a")))
			assert.Equal(t, "app-a/", s.call(t, token("app-a")))
			assert.EqualValues(t, 1, s.runs.Load(), "the same client is served from the cache")
			assert.Equal(t, "app-b/", s.call(t, token("app-b")), "another client never gets app-a's result")
			assert.EqualValues(t, 2, s.runs.Load())

			s.call(t, token(""))
			s.call(t, token(""))
			assert.EqualValues(t, 4, s.runs.Load(), "a token naming no caller is never cached")
		})
	}
}

// TestCacheIdentityIsUnambiguous: the identity names issuer, subject and
// client each in full, so claims holding the separator of a plain
// concatenation do not make two callers one; an incomplete identity
// replaces one set before with none.
func TestCacheIdentityIsUnambiguous(t *testing.T) {
	is := newTestIssuer(t)
	k := newRSASigner(t, "k1")
	is.publish(k)
	v := newVerifier(t, is)
	identityOf := func(sub, client string) (string, bool) {
		c := is.claimsFor(testResource, "")
		delete(c, "sub")
		delete(c, "client_id")
		if sub != "" {
			c["sub"] = sub
		}
		if client != "" {
			c["client_id"] = client
		}
		var got string
		var ok bool
		h := v.AuthHook(http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) {
			got, ok = toolexec.IdentityFromContext(r.Context())
		}))
		r := httptest.NewRequest(http.MethodPost, testResource, nil)
		r = r.WithContext(toolexec.ContextWithIdentity(r.Context(), "set by an outer hook"))
		r.Header.Set("Authorization", "Bearer "+k.sign(t, c))
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		require.Equal(t, http.StatusOK, w.Code)
		return got, ok
	}
	a, ok := identityOf("x y", "z")
	require.True(t, ok)
	b, ok := identityOf("x", "y z")
	require.True(t, ok)
	assert.NotEqual(t, a, b)
	c, ok := identityOf("x y z", "")
	require.True(t, ok)
	assert.NotEqual(t, a, c)
	assert.NotEqual(t, b, c)
	d, ok := identityOf("", "x y z")
	require.True(t, ok)
	assert.NotEqual(t, c, d, "a subject is not a client")
	_, ok = identityOf("", "")
	assert.False(t, ok, "no subject and no client: no identity, not the outer one")
}
