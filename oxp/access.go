package oxp

import (
	"net/http"

	"github.com/toolexec/toolexec"
)

// visibleEntries tells which of entries may be listed to the caller of r:
// with per-caller lists on (toolexec.WithToolFilter), only the tool
// versions the Executor's filter keeps for r.
func (h *handler) visibleEntries(r *http.Request, entries []entry) visibility {
	if !h.x.SurfaceKit().FiltersTools() {
		return visibility{all: true}
	}
	tools := make([]toolexec.Tool, len(entries))
	for i := range entries {
		tools[i] = entries[i].tool
	}
	kept := h.x.SurfaceKit().VisibleTools(r, tools)
	if len(kept) == len(tools) {
		return visibility{all: true}
	}
	allowed := make(map[toolVersion]bool, len(kept))
	for _, t := range kept {
		allowed[toolVersion{t.Name, t.Version}] = true
	}
	return visibility{allowed: allowed}
}

// visibility is which entries a caller may see: all of them, or those
// allowed.
type visibility struct {
	all     bool
	allowed map[toolVersion]bool
}

type toolVersion struct{ name, version string }

func (v visibility) keep(e *entry) bool {
	return v.all || v.allowed[toolVersion{e.tool.Name, e.tool.Version}]
}

// refuseForbidden answers a call the auth hook refused with 403 (see
// toolexec.WriteChallenge): status 403, the hook's challenge as
// WWW-Authenticate, and OXP's ServerErrorResponse.
func (h *handler) refuseForbidden(w http.ResponseWriter, f *form, e *toolexec.Error) {
	if e.Challenge != "" {
		w.Header().Set("WWW-Authenticate", e.Challenge)
	}
	h.refuse(w, f, http.StatusForbidden, &serverError{
		Message:          "Forbidden",
		DeveloperMessage: "the caller lacks a permission this tool requires; WWW-Authenticate names it",
	})
}
