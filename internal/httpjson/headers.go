package httpjson

import "net/http"

// Headers holds the values of the two headers every JSON response of a
// toolexec surface carries (Content-Type: application/json and
// X-Content-Type-Options: nosniff), made once per handler and assigned to
// each response's header map instead of allocated per request, as
// SetHeaders does. Its zero value works: it falls back to SetHeaders.
//
// Responses share the values, read-only: each slice's capacity is its
// length, so Header.Add on a response copies before it appends, and
// Header.Set and Header.Del replace or drop the slice; net/http only reads
// them. Only code that writes into w.Header()[key][0] itself would reach
// another response's value.
type Headers struct {
	contentType, noSniff []string
}

// NewHeaders makes the shared values.
func NewHeaders() Headers {
	return Headers{contentType: []string{"application/json"}[:1:1], noSniff: []string{"nosniff"}[:1:1]}
}

// Set marks h as JSON that browsers must not sniff, replacing both headers
// as SetHeaders does.
func (j Headers) Set(h http.Header) {
	if j.contentType == nil {
		SetHeaders(h)
		return
	}
	h["Content-Type"] = j.contentType
	h["X-Content-Type-Options"] = j.noSniff
}

// SetNoSniff sets X-Content-Type-Options: nosniff alone, replacing it.
func (j Headers) SetNoSniff(h http.Header) {
	if j.noSniff == nil {
		h.Set("X-Content-Type-Options", "nosniff")
		return
	}
	h["X-Content-Type-Options"] = j.noSniff
}

// SetJSON sets Content-Type: application/json alone, replacing it.
func (j Headers) SetJSON(h http.Header) {
	if j.contentType == nil {
		h.Set("Content-Type", "application/json")
		return
	}
	h["Content-Type"] = j.contentType
}
