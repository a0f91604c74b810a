package oxp

import (
	"context"
	"encoding/json"
	"log/slog"
	"net/http"

	"github.com/toolexec/toolexec"
	"github.com/toolexec/toolexec/internal/httpjson"
	"github.com/toolexec/toolexec/internal/sametool"
	"github.com/toolexec/toolexec/internal/toolenc"
)

// list is GET /tools: every version of every tool OXP can serve, in the
// provider's order. A body sent with the request (one published client
// sends {}) is ignored, as GET bodies carry no meaning.
//
// The answer is assembled from each entry's encoding, made once and reused
// while the provider describes the tool version as before (see
// newEntryCache), so a per-caller list comes from the same encodings.
func (h *handler) list(w http.ResponseWriter, r *http.Request) {
	c := h.catalog()
	for name, why := range c.skipped {
		h.warnOnce(r.Context(), "oxp: tool not served", name, why)
	}
	h.entries.Trim(len(c.entries))
	visible := h.visibleEntries(r, c)
	items := c.entries
	if !visible.all {
		items = make([]entry, 0, len(c.entries))
		for i := range c.entries {
			if visible.keep(&c.entries[i]) {
				items = append(items, c.entries[i])
			}
		}
	}
	out := append(make([]byte, 0, 64), `{"items":[`...)
	out = h.entries.AppendList(out, items, 3, func(e *entry, _ error) {
		h.warnOnce(r.Context(), "oxp: tool not listed", e.id(), "its schema is not valid JSON")
	})
	out = append(httpjson.ValidUTF8(append(out, "]}"...)), '\n')
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(out)
}

// newEntryCache returns the cache of each tool version's encoding in
// GET /tools. An encoding is reused while the tool is described exactly as
// before (internal/sametool), whether or not the provider reports changes.
func newEntryCache(kit toolexec.SurfaceKit) *toolenc.Cache[entry] {
	return &toolenc.Cache[entry]{
		Key: func(e *entry) string { return e.id() },
		Same: func(a, b *entry) bool {
			return a.base == b.base && a.name == b.name && a.version == b.version && sametool.Same(&a.tool, &b.tool)
		},
		Encode: func(e *entry) ([]byte, error) { return encodeEntry(kit, e) },
		Clone: func(e *entry) entry {
			c := *e
			c.tool = sametool.Clone(&e.tool)
			return c
		},
	}
}

// encodeEntry writes e as an OXP ToolDefinition. A schema that is not JSON
// fails it.
func encodeEntry(kit toolexec.SurfaceKit, e *entry) ([]byte, error) {
	return json.Marshal(toolDefinition{
		ID:           e.id(),
		Name:         e.name,
		Description:  e.tool.Description,
		Version:      e.version,
		InputSchema:  kit.InputSchema(&e.tool),
		OutputSchema: e.tool.OutputSchema, // nil marshals as null: no declared output
		Requirements: requirementsOf(e.tool.Requirements),
	})
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
