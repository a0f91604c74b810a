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
// the scopes the tool needs (as requested: see requested), then those the
// token already holds that the resource advertises, in the advertised
// form, so that a client asking for exactly these keeps what it had (the
// MCP specification's recommended approach).
func stepUpScopes(needed, granted, supported []string, prefix string) []string {
	out := requested(needed, prefix)
	for _, s := range supported {
		held := slices.Contains(granted, s) ||
			(prefix != "" && strings.HasPrefix(s, prefix) && slices.Contains(granted, s[len(prefix):]))
		if held && !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	return out
}

// requested returns scopes as a client asks the authorization server for
// them: each with prefix (Config.ScopePrefix) before it.
func requested(scopes []string, prefix string) []string {
	if prefix == "" {
		return slices.Clone(scopes)
	}
	out := make([]string, len(scopes))
	for i, s := range scopes {
		out[i] = prefix + s
	}
	return out
}
