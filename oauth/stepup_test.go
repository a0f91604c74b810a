package oauth_test

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolexec/toolexec"
	"github.com/toolexec/toolexec/oauth"
)

// stepUpHandler is REST over one Verifier configured by tune, with the
// tools books.read, books.write (each needing its scope), shelve (needing
// books.read and the group librarians) and weed (needing the groups
// librarians and "cur ators", a name no challenge may carry).
func stepUpHandler(t *testing.T, is *testIssuer, tune func(*oauth.Config)) http.Handler {
	t.Helper()
	var opts []func(*oauth.Config)
	if tune != nil {
		opts = append(opts, tune)
	}
	v := newVerifier(t, is, opts...)
	reg := &toolexec.Registry{}
	ok := func(context.Context, string, map[string]any) ([]toolexec.Content, bool, string, error) {
		return []toolexec.Content{toolexec.Text("ok")}, false, "", nil
	}
	for name, scopes := range map[string][]string{
		"read": {"books.read"}, "write": {"books.write"}, "shelve": {"books.read", "librarians"},
		"weed": {"librarians", "cur\u00e1tors"},
	} {
		reg.MustAdd(toolexec.Tool{Name: name, Options: toolexec.ToolOptions{Scopes: scopes}}, toolexec.ToolCallHandlerFunc(ok))
	}
	return toolexec.NewHandler(toolexec.New(reg, reg, toolexec.WithAllowExecute(true), toolexec.WithAuthHook(v.AuthHook)))
}

// TestStepUpKeepsTheScopesTheTokenHolds: with the default settings (no
// ScopesSupported), a token holding books.read that calls a tool needing
// books.write is told to ask for books.write and books.read, not
// books.write alone, which would lose it the scope it had; and every other
// OAuth scope it was granted.
func TestStepUpKeepsTheScopesTheTokenHolds(t *testing.T) {
	is := newTestIssuer(t)
	k := newRSASigner(t, "k1")
	is.publish(k)
	h := stepUpHandler(t, is, nil)
	call := func(tool, scope string) map[string]string {
		w := serve(h, newRequest(http.MethodPost, testResource+"/tools/"+tool+"/call", "/tools/"+tool+"/call",
			k.sign(t, is.claimsFor(testResource, scope))))
		require.Equal(t, http.StatusForbidden, w.Code, w.Body.String())
		return challengeParams(t, w.Header().Get("WWW-Authenticate"))
	}
	assert.Equal(t, "books.write books.read", call("write", "books.read")["scope"])
	assert.Equal(t, "books.write openid books.read", call("write", "openid books.read")["scope"])
	got := call("write", "books.read")
	assert.Equal(t, "insufficient_scope", got["error"])
	assert.NotContains(t, got, "error_description", "every scope is one a client can ask for")
}

// TestStepUpNeverAsksForClaimValues: when scopes are read from a claim of
// groups, a tool scope that ScopesSupported does not list is a group: a
// 403 names it in error_description, never in scope (the authorization
// server would refuse a request for it), and names no scope at all when
// nothing a client could ask for would help.
func TestStepUpNeverAsksForClaimValues(t *testing.T) {
	is := newTestIssuer(t)
	k := newRSASigner(t, "k1")
	is.publish(k)
	h := stepUpHandler(t, is, func(c *oauth.Config) {
		c.ScopeClaims = []string{"scope", "groups"}
		c.ScopesSupported = []string{"openid", "books.read", "books.write"}
	})
	call := func(tool, scope string, groups ...string) map[string]string {
		c := is.claimsFor(testResource, scope)
		c["groups"] = groups
		w := serve(h, newRequest(http.MethodPost, testResource+"/tools/"+tool+"/call", "/tools/"+tool+"/call", k.sign(t, c)))
		require.Equal(t, http.StatusForbidden, w.Code, w.Body.String())
		return challengeParams(t, w.Header().Get("WWW-Authenticate"))
	}

	got := call("shelve", "openid books.read", "devs")
	assert.Equal(t, "insufficient_scope", got["error"])
	assert.NotContains(t, got, "scope", "only the group is missing: no authorization request helps")
	assert.Equal(t, claimValue("librarians"), got["error_description"])

	got = call("shelve", "openid", "devs")
	assert.Equal(t, "books.read openid", got["scope"], "books.read is an OAuth scope; librarians is not")
	assert.Equal(t, claimValue("librarians"), got["error_description"])

	got = call("write", "openid books.read", "librarians")
	assert.Equal(t, "books.write openid books.read", got["scope"], "the groups the token holds are not scopes to ask for")
	assert.NotContains(t, got, "error_description")

	got = call("weed", "openid")
	assert.NotContains(t, got, "scope")
	assert.Equal(t, "the token lacks a group, role or permission that the authorization server grants on its own terms, not an OAuth scope a client can ask for",
		got["error_description"], "a name outside RFC 6750's characters is not repeated")
}

// TestDefaultScopeClaimsReadTheFirstOfScopeAndScp: by default a token's
// scopes come from "scope" or, only when it has none, from "scp" (as
// Spring Security reads them), never their union: a token carrying both
// is granted what its "scope" says.
func TestDefaultScopeClaimsReadTheFirstOfScopeAndScp(t *testing.T) {
	is := newTestIssuer(t)
	k := newRSASigner(t, "k1")
	is.publish(k)
	v := newVerifier(t, is)
	for _, tc := range []struct {
		name  string
		scope any // nil: no scope claim
		scp   any // nil: no scp claim
		want  []string
	}{
		{"scope only", "tools.call", nil, []string{"tools.call"}},
		{"scp only, a string", nil, "tools.call tools.read", []string{"tools.call", "tools.read"}},
		{"scp only, an array", nil, []string{"tools.call"}, []string{"tools.call"}},
		{"both: scope wins", "tools.call", []string{"tools.admin"}, []string{"tools.call"}},
		{"both, scope empty: scope still wins", "", "tools.admin", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := is.claimsFor(testResource, "")
			delete(c, "scope")
			if tc.scope != nil {
				c["scope"] = tc.scope
			}
			if tc.scp != nil {
				c["scp"] = tc.scp
			}
			id, err := v.Verify(context.Background(), k.sign(t, c), testResource)
			require.NoError(t, err)
			assert.Equal(t, tc.want, id.Scopes)
			if strings.HasPrefix(tc.name, "both") {
				assert.False(t, id.HasScope("tools.admin"), "scp does not add to scope")
			}
		})
	}
}
