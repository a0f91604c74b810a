package oxp

import "net/http"

// versionKey is VersionHeader in the canonical form http.Header keys take,
// as Header.Set and Header.Values would spell it; using it directly spares
// them canonicalizing "OXP-Version" on every request.
const versionKey = "Oxp-Version"

// setHeaders sets the headers of every response: OXP-Version, and JSON that
// browsers must not sniff (as httpjson.SetHeaders does). It replaces the
// three, as Header.Set does, with one allocation for their values (each
// slice is capped, so appending to one never reaches another).
func setHeaders(h http.Header) {
	v := make([]string, 3)
	v[0], v[1], v[2] = Version, "application/json", "nosniff"
	h[versionKey] = v[0:1:1]
	h["Content-Type"] = v[1:2:2]
	h["X-Content-Type-Options"] = v[2:3:3]
}
