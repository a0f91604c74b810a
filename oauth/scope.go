package oauth

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// splitScopes splits a scope string on spaces (U+0020 only, RFC 6749
// section 3.3, RFC 9068, RFC 7662), skipping empty fields and dropping
// what is not a scope token (see isScopeToken) whole, never splitting it
// further: "a\u00a0b" is neither "a" nor "b".
func splitScopes(s string) []string {
	var out []string
	for field := range strings.SplitSeq(s, " ") {
		if isScopeToken(field) {
			out = append(out, field)
		}
	}
	return out
}

// isScopeToken reports whether s can be one scope: not empty, valid UTF-8,
// and without whitespace or control characters of any kind. RFC 6749
// section 3.3 narrows scope tokens further, to printable ASCII; characters
// beyond it are kept here, since providers put role and group names in
// scope claims, but nothing that some reader could take for a delimiter.
func isScopeToken(s string) bool {
	if s == "" || !utf8.ValidString(s) {
		return false
	}
	for _, r := range s {
		if unicode.IsSpace(r) || unicode.IsControl(r) {
			return false
		}
	}
	return true
}
