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

// scopesIn returns the scopes of claims read from the claims named by
// paths (see Config.ScopeClaims), in order and without repeats. A scope
// that starts with prefix counts without it.
func scopesIn(claims map[string]any, paths []string, prefix string) []string {
	var out []string
	for _, p := range paths {
		v, ok := claimAt(claims, p)
		if !ok {
			continue
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
