package oauth

import (
	"slices"
	"strings"
)

// challenge builds a Bearer WWW-Authenticate value (RFC 6750 section 3,
// RFC 9728 section 5.1). errCode is "", "invalid_token" or
// "insufficient_scope"; scopes, when any, become the scope parameter, and
// description, when set, the error_description parameter.
func challenge(errCode string, scopes []string, description, metadataURL string) string {
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
	if description != "" {
		param("error_description", description)
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

// stepUp returns the scope and error_description parameters of the
// insufficient_scope challenge for a call needing needed by a token with
// identity id, on resource res.
//
// A scope a client cannot ask for is never named in scope: with
// Config.ScopeClaims reading claim values (groups, roles, permissions),
// only the scopes ScopesSupported lists count as OAuth scopes, and a
// missing one that is not among them is a claim value the authorization
// server grants on its own terms, which a client asking for it would only
// get refused (invalid_scope). The description says so instead; when
// every missing scope is such a value, there is no scope parameter, since
// no authorization request can help.
//
// Otherwise scope names the tool's scopes a client can ask for (each after
// Config.ScopePrefix), then those the token holds that the resource
// advertises, in the advertised form, then every OAuth scope the token was
// granted (from its scope or scp claim), so that a client asking for
// exactly these keeps what it had (the MCP specification's recommended
// approach).
func (v *Verifier) stepUp(needed []string, id *Identity, res *resource) (scopes []string, description string) {
	prefix := v.s.ScopePrefix
	var askable, claimValues []string
	for _, s := range id.missing(needed) {
		if v.requestable(s, res) {
			askable = append(askable, s)
		} else {
			claimValues = append(claimValues, s)
		}
	}
	if len(claimValues) > 0 {
		description = claimValuesDescription(claimValues)
	}
	if len(askable) == 0 {
		return nil, description
	}
	add := func(s string) {
		if !slices.Contains(scopes, s) {
			scopes = append(scopes, s)
		}
	}
	for _, s := range needed {
		if v.requestable(s, res) {
			add(prefix + s)
		}
	}
	for _, s := range res.scopes {
		held := slices.Contains(id.Scopes, s) ||
			(prefix != "" && strings.HasPrefix(s, prefix) && slices.Contains(id.Scopes, s[len(prefix):]))
		if held {
			add(s)
		}
	}
	for _, s := range grantedScopes(id.Claims, v.s.ScopeClaims, prefix) {
		add(prefix + s)
	}
	return scopes, description
}

// requestable reports whether the tool scope s is an OAuth scope a client
// can ask the authorization server for: any scope, when Config.ScopeClaims
// reads only the claims of OAuth scopes; else only one that the resource's
// ScopesSupported lists (as requested, or as it is).
func (v *Verifier) requestable(s string, res *resource) bool {
	if v.s.scopesOnly {
		return true
	}
	return slices.Contains(res.scopes, v.s.ScopePrefix+s) || slices.Contains(res.scopes, s)
}

// claimValuesDescription is the error_description of a 403 whose missing
// scopes include claim values: it names them when every character of them
// may appear in the parameter (RFC 6750 section 3), else says what they are.
func claimValuesDescription(values []string) string {
	const what = "a group, role or permission that the authorization server grants on its own terms, not an OAuth scope a client can ask for"
	names := strings.Join(values, ", ")
	if len(names) > 200 || strings.IndexFunc(names, func(r rune) bool {
		return r < 0x20 || r > 0x7e || r == '"' || r == '\\'
	}) >= 0 {
		return "the token lacks " + what
	}
	if len(values) == 1 {
		return "the token lacks " + names + ": " + what
	}
	return "the token lacks " + names + ": each " + what
}
