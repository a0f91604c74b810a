package oxp

import (
	"net/http"

	"github.com/toolexec/toolexec"
)

// visibleEntries returns whether an entry of c may be listed to the caller
// of r: with per-caller lists on (toolexec.WithToolFilter), only the tool
// versions the Executor's filter keeps for r.
func (h *handler) visibleEntries(r *http.Request, c *catalog) func(*entry) bool {
	tools := make([]toolexec.Tool, len(c.entries))
	for i := range c.entries {
		tools[i] = c.entries[i].tool
	}
	kept := h.x.VisibleTools(r, tools)
	if len(kept) == len(tools) {
		return func(*entry) bool { return true }
	}
	type key struct{ name, version string }
	allowed := make(map[key]bool, len(kept))
	for _, t := range kept {
		allowed[key{t.Name, t.Version}] = true
	}
	return func(e *entry) bool { return allowed[key{e.tool.Name, e.tool.Version}] }
}

// refuseForbidden answers a call the auth hook refused with 403 (see
// toolexec.WriteChallenge): status 403, the hook's challenge as
// WWW-Authenticate, and OXP's ServerErrorResponse.
func (h *handler) refuseForbidden(w http.ResponseWriter, req callRequest, e *toolexec.Error) {
	if e.Challenge != "" {
		w.Header().Set("WWW-Authenticate", e.Challenge)
	}
	h.refuse(w, req, http.StatusForbidden, &serverError{
		Message:          "Forbidden",
		DeveloperMessage: "the caller lacks a permission this tool requires; WWW-Authenticate names it",
	})
}
