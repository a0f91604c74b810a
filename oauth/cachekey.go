package oauth

import (
	"strconv"
	"strings"
)

// cacheIdentity is the name toolexec.ContextWithIdentity gives the caller of id:
// the issuer, the subject and the client the token was issued to, each
// written length-first, so that no two different triples give the same
// name whatever their claims hold (a space, a colon, anything). It is ""
// (no identity, so the call's result is not cached unless its tool
// declares shared results) when the token names no issuer, or neither a
// subject nor a client: such a token does not say whose result it would
// be.
func cacheIdentity(id *Identity) string {
	if id.Issuer == "" || (id.Subject == "" && id.ClientID == "") {
		return ""
	}
	var b strings.Builder
	b.Grow(len("oauth") + len(id.Issuer) + len(id.Subject) + len(id.ClientID) + 4*8)
	for _, field := range [...]string{"oauth", id.Issuer, id.Subject, id.ClientID} {
		b.WriteString(strconv.Itoa(len(field)))
		b.WriteByte(':')
		b.WriteString(field)
	}
	return b.String()
}
