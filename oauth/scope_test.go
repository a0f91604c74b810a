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

// TestScopesSplitOnSpaceOnly: a scope string is delimited by U+0020 alone
// (RFC 6749 section 3.3). A token holding any other whitespace or a control
// character is not a scope at all, so "tools.call<NBSP>tools.admin" grants
// neither, and never tools.admin.
func TestScopesSplitOnSpaceOnly(t *testing.T) {
	is := newTestIssuer(t)
	k := newRSASigner(t, "k1")
	is.publish(k)
	v := newVerifier(t, is, func(c *oauth.Config) {
		c.Introspection = &oauth.Introspection{ClientID: "rs", ClientSecret: "rs-secret"}
	})
	tests := []struct {
		name  string
		scope any // the claim's value
		want  []string
	}{
		{"spaces", "tools.call tools.read", []string{"tools.call", "tools.read"}},
		{"repeated and edge spaces", " tools.call  tools.read ", []string{"tools.call", "tools.read"}},
		{"no-break space", "tools.call\u00a0tools.admin", nil},
		{"tab", "tools.call\ttools.admin", nil},
		{"newline", "tools.call\ntools.admin", nil},
		{"carriage return", "tools.call\rtools.admin", nil},
		{"vertical tab and form feed", "tools.call\v\ftools.admin", nil},
		{"next line", "tools.call\u0085tools.admin", nil},
		{"em space", "tools.call\u2003tools.admin", nil},
		{"ideographic space", "tools.call\u3000tools.admin", nil},
		{"line separator", "tools.call\u2028tools.admin", nil},
		{"NUL", "tools.call\x00tools.admin", nil},
		{"one bad token among good ones", "tools.read tools.call\u00a0tools.admin", []string{"tools.read"}},
		{"array", []string{"tools.call", "tools.read"}, []string{"tools.call", "tools.read"}},
		{"array element with a space", []string{"tools.call tools.admin"}, nil},
		{"array element with a no-break space", []string{"tools.read", "tools.call\u00a0tools.admin"}, []string{"tools.read"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := is.claimsFor(testResource, "")
			c["scope"] = tc.scope
			id, err := v.Verify(context.Background(), k.sign(t, c), testResource)
			require.NoError(t, err)
			assert.Equal(t, tc.want, id.Scopes)
			assert.False(t, id.HasScope("tools.admin"))

			if s, ok := tc.scope.(string); ok {
				tok := "opaque-" + tc.name
				is.mu.Lock()
				is.active[tok] = map[string]any{"active": true, "sub": "bob", "scope": s, "aud": testResource,
					"exp": time.Now().Add(time.Hour).Unix()}
				is.mu.Unlock()
				id, err := v.Verify(context.Background(), tok, testResource)
				require.NoError(t, err)
				assert.Equal(t, tc.want, id.Scopes, "introspected")
			}
		})
	}
}

// TestUnicodeSpacesGrantNoToolScope: on every surface, a token whose scope
// string hides tools.admin behind a no-break space is refused the admin
// tool with 403.
func TestUnicodeSpacesGrantNoToolScope(t *testing.T) {
	is := newTestIssuer(t)
	k := newRSASigner(t, "k1")
	is.publish(k)
	s := newServer(t, is)
	for res, call := range map[string][2]string{
		"/api": {"/api/tools/secret/call", `{}`},
		"/mcp": {"/mcp", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"secret","arguments":{}}}`},
		"/oxp": {"/oxp/tools/call", `{"tool_id":"Tools.secret"}`},
	} {
		tok := k.sign(t, is.claimsFor(s.base+res, "tools.call\u00a0tools.admin"))
		w := s.do(http.MethodPost, call[0], tok, call[1])
		assert.Equal(t, http.StatusForbidden, w.Code, res)
	}
}
