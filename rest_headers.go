package toolexec

import (
	"net/http"

	"github.com/toolexec/toolexec/internal/httpjson"
)

// jsonHeaders holds the values of the two headers every REST response
// carries (Content-Type: application/json and X-Content-Type-Options:
// nosniff), made once per handler and assigned to each response's header
// map rather than allocated per request, as httpjson.SetHeaders does.
//
// The response shares them, read-only: each slice's capacity is its length,
// so Header.Add on the response copies before it appends, and Header.Set
// and Header.Del replace or drop the slice; net/http only reads them.
type jsonHeaders struct {
	contentType, noSniff []string
}

func newJSONHeaders() jsonHeaders {
	return jsonHeaders{contentType: []string{"application/json"}[:1:1], noSniff: []string{"nosniff"}[:1:1]}
}

// set marks h as JSON that browsers must not sniff, replacing both headers
// as httpjson.SetHeaders does.
func (j *jsonHeaders) set(h http.Header) {
	if j.contentType == nil { // a handler not made by NewHandler
		httpjson.SetHeaders(h)
		return
	}
	h["Content-Type"] = j.contentType
	h["X-Content-Type-Options"] = j.noSniff
}
