package mcp

import "net/http"

// header returns the first value of the header named key, which must be in
// canonical form (as http.CanonicalHeaderKey writes it): it is what
// h.Get(key) returns, without canonicalizing the name on every request.
func header(h http.Header, key string) string {
	if v := h[key]; len(v) > 0 {
		return v[0]
	}
	return ""
}
