package oxp

import (
	"context"
	"encoding/json"
	"log/slog"
	"net/http"

	"github.com/toolexec/toolexec/internal/httpjson"
)

// list is GET /tools: every version of every tool OXP can serve, in the
// provider's order. A body sent with the request (one published client
// sends {}) is ignored, as GET bodies carry no meaning.
func (h *handler) list(w http.ResponseWriter, r *http.Request) {
	c := h.catalog()
	for name, why := range c.skipped {
		h.warnOnce(r.Context(), "oxp: tool not served", name, why)
	}
	visible := h.visibleEntries(r, c)
	items := make([]toolDefinition, 0, len(c.entries))
	for i := range c.entries {
		e := &c.entries[i]
		if !visible(e) {
			continue
		}
		in, out := h.x.SurfaceKit().InputSchema(&e.tool), e.tool.OutputSchema
		if !json.Valid(in) || (len(out) > 0 && !json.Valid(out)) {
			h.warnOnce(r.Context(), "oxp: tool not listed", e.id(), "its schema is not valid JSON")
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
	httpjson.Write(w, http.StatusOK, toolList{Items: items})
}

// warnOnce logs a tool this surface does not serve: at warning level the
// first time this handler sees that tool with that reason, at debug level
// after, so discovery, which needs no credentials, cannot flood the log.
func (h *handler) warnOnce(ctx context.Context, msg, tool, reason string) {
	level := slog.LevelDebug
	if h.logged.first(msg + "\x00" + tool + "\x00" + reason) {
		level = slog.LevelWarn
	}
	h.x.SurfaceKit().Logger().Log(ctx, level, msg, "tool", tool, "reason", reason)
}
