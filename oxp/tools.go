package oxp

import (
	"encoding/json"
	"net/http"
)

// list is GET /tools: every version of every tool OXP can serve, in the
// provider's order. A body sent with the request (one published client
// sends {}) is ignored, as GET bodies carry no meaning.
func (h *handler) list(w http.ResponseWriter, r *http.Request) {
	c := h.catalog()
	for name, why := range c.skipped {
		h.x.Logger().WarnContext(r.Context(), "oxp: tool not served", "tool", name, "reason", why)
	}
	items := make([]toolDefinition, 0, len(c.entries))
	for i := range c.entries {
		e := &c.entries[i]
		in, out := e.tool.InputSchema, e.tool.OutputSchema
		if len(in) == 0 {
			in = json.RawMessage(`{"type":"object"}`)
		}
		if !json.Valid(in) || (len(out) > 0 && !json.Valid(out)) {
			h.x.Logger().WarnContext(r.Context(), "oxp: tool not listed: its schema is not valid JSON", "tool", e.id())
			continue
		}
		items = append(items, toolDefinition{
			ID:           e.id(),
			Name:         e.name,
			Description:  e.tool.Description,
			Version:      e.version,
			InputSchema:  in,
			OutputSchema: out, // nil marshals as null: no declared output
			Requirements: requirementsOf(e.tool.Requirements),
		})
	}
	writeJSON(w, http.StatusOK, toolList{Items: items})
}
