package oauth

import (
	"errors"
	"fmt"
	"slices"
	"strings"
)

// maxClaimPathDots bounds the dots of a ScopeClaims entry, and so the
// ways of reading it as a path (see claimAt).
const maxClaimPathDots = 8

// checkClaimPath checks a ScopeClaims entry: a claim name or a dotted
// path, without empty segments.
func checkClaimPath(name string) error {
	if name == "" {
		return errors.New("an empty claim name")
	}
	if strings.Count(name, ".") > maxClaimPathDots {
		return fmt.Errorf("%q: more than %d dots", name, maxClaimPathDots)
	}
	if strings.HasPrefix(name, ".") || strings.HasSuffix(name, ".") || strings.Contains(name, "..") {
		return fmt.Errorf("%q: an empty path segment", name)
	}
	return nil
}

// claimAt returns the value at path in claims: the claim named path when
// there is one, else, for each dot from the last to the first, the value
// at the rest of the path inside the object claim named by what comes
// before it. So "realm_access.roles" reads {"realm_access": {"roles": ...}},
// "resource_access.tools.example.com.roles" finds the client
// "tools.example.com", and a claim named "https://example.com/roles"
// is read as it is.
func claimAt(claims map[string]any, path string) (any, bool) {
	if v, ok := claims[path]; ok {
		return v, true
	}
	for i := strings.LastIndexByte(path, '.'); i > 0; i = strings.LastIndexByte(path[:i], '.') {
		if inner, ok := claims[path[:i]].(map[string]any); ok {
			if v, ok := claimAt(inner, path[i+1:]); ok {
				return v, true
			}
		}
	}
	return nil, false
}

// oauthScopeClaims are the claims that hold OAuth scopes: RFC 9068's and
// RFC 7662's "scope", and "scp", which Entra ID and Okta write instead.
// They are two names for one thing, so a token's scopes are read from the
// first of them it carries (see scopesIn).
var oauthScopeClaims = []string{"scope", "scp"}

// isOAuthScopeClaim reports whether the ScopeClaims entry p names a claim
// of OAuth scopes, not of claim values (groups, roles, permissions).
func isOAuthScopeClaim(p string) bool {
	return slices.Contains(oauthScopeClaims, p)
}

// scopesIn returns the scopes of claims read from the claims named by
// paths (see Config.ScopeClaims), in order and without repeats. Of "scope"
// and "scp", only the first the token carries is read (as Spring Security
// does): a token carrying both gets no scope from the second, so that a
// claim some other party added cannot widen the one the authorization
// server wrote. A scope that starts with prefix counts without it.
func scopesIn(claims map[string]any, paths []string, prefix string) []string {
	var out []string
	readScopes := false // a claim of OAuth scopes has been read
	for _, p := range paths {
		v, ok := claimAt(claims, p)
		if !ok || v == nil {
			continue
		}
		if isOAuthScopeClaim(p) {
			if readScopes {
				continue
			}
			readScopes = true
		}
		for _, s := range scopeValues(v) {
			if prefix != "" {
				if rest, ok := strings.CutPrefix(s, prefix); ok && rest != "" {
					s = rest
				}
			}
			if !slices.Contains(out, s) {
				out = append(out, s)
			}
		}
	}
	return out
}

// grantedScopes returns the OAuth scopes of claims: those read from the
// first of the claims of OAuth scopes (see oauthScopeClaims) that paths
// name and the token carries; never claim values.
func grantedScopes(claims map[string]any, paths []string, prefix string) []string {
	var scopeOnly []string
	for _, p := range paths {
		if isOAuthScopeClaim(p) {
			scopeOnly = append(scopeOnly, p)
		}
	}
	return scopesIn(claims, scopeOnly, prefix)
}

// scopeValues reads one scope claim's value: a string of scope tokens
// delimited by spaces (see splitScopes), or an array whose elements are
// each one scope token. Anything else holds no scope.
func scopeValues(v any) []string {
	switch v := v.(type) {
	case string:
		return splitScopes(v)
	case []any:
		var out []string
		for _, e := range v {
			if s, ok := e.(string); ok && isScopeToken(s) {
				out = append(out, s)
			}
		}
		return out
	}
	return nil
}
