package toolexec

import (
	"net/http"

	"github.com/toolexec/toolexec/internal/httpjson"
)

// validate is POST /tools/{name}/validate: the body is checked against
// the tool's inputSchema and nothing runs. It is deliberately outside the
// call pipeline: neither the execution gate nor the auth hook applies, and
// no handler or interceptor can be reached.
//
//	unknown tool        404 {"error": "Tool not found: NAME"} (also a tool WithToolFilter hides)
//	body over the limit 413 {"error": ...}
//	body not JSON       400 {"valid": false, "errors": [{"path": "", "message": "Invalid JSON: ...", "keyword": "format"}]}
//	otherwise           200 {"valid": true} or {"valid": false, "errors": [...]}
func (h *restHandler) validate(w http.ResponseWriter, r *http.Request, name string) {
	tool, ok := h.x.Lookup(name, "")
	if !ok || len(h.x.visibleTools(r, []Tool{tool})) == 0 { // a tool hidden from this caller is unknown
		writeError(w, http.StatusNotFound, notFound(name, "").Message)
		return
	}
	body, err := h.x.SurfaceKit().ReadBody(w, r)
	if err != nil {
		h.writeCallError(w, err)
		return
	}
	v, err := decodeJSON(body)
	if err != nil {
		httpjson.Write(w, http.StatusBadRequest, ValidateResult{Errors: []ValidationFailure{invalidJSON(err)}})
		return
	}
	httpjson.Write(w, http.StatusOK, h.x.validateInput(&tool, v))
}
