package toolexec

import "net/http"

// validate is POST /tools/{name}/validate (F7).
func (h *restHandler) validate(w http.ResponseWriter, r *http.Request, name string) {
	writeError(w, http.StatusNotImplemented, "validate is not implemented yet")
}
