package oauth

import (
	"slices"
	"strings"
)

// challenge builds a Bearer WWW-Authenticate value (RFC 6750 section 3,
// RFC 9728 section 5.1). errCode is "", "invalid_token" or
// "insufficient_scope"; scopes, when any, become the scope parameter.
func challenge(errCode string, scopes []string, metadataURL string) string {
	var b strings.Builder
	b.WriteString("Bearer ")
	sep := ""
	param := func(name, value string) {
		b.WriteString(sep)
		b.WriteString(name)
		b.WriteString(`="`)
		b.WriteString(quote(value))
		b.WriteByte('"')
		sep = ", "
	}
	if errCode != "" {
		param("error", errCode)
	}
	if len(scopes) > 0 {
		param("scope", strings.Join(scopes, " "))
	}
	param("resource_metadata", metadataURL)
	return b.String()
}

// quote escapes a value for a quoted-string (RFC 9110 section 5.6.4).
// Scope tokens and URLs hold neither character; this is a safeguard.
func quote(s string) string {
	if !strings.ContainsAny(s, `"\`) {
		return s
	}
	return strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(s)
}

// stepUpScopes is the scope parameter of an insufficient_scope challenge:
// the scopes the tool needs, then those the token already holds that the
// resource advertises, so that a client asking for exactly these keeps
// what it had (the MCP specification's recommended approach).
func stepUpScopes(needed, granted, supported []string) []string {
	out := slices.Clone(needed)
	for _, s := range granted {
		if slices.Contains(supported, s) && !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	return out
}
