package oxp

import (
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"slices"

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
// newEntryCache), so a per-caller list comes from the same encodings. When
// the provider reports its changes, the catalog and the encoded list are
// kept until the next change (see listOf).
func (h *handler) list(w http.ResponseWriter, r *http.Request) {
	load := func() []entry { return h.listedEntries(r.Context()) }
	var out []byte
	if s := h.lists.Snapshot(load); s != nil {
		out = h.listOf(r, s)
	} else {
		entries := load()
		visible := h.visibleEntries(r, entries)
		items := entries
		if !visible.all {
			items = make([]entry, 0, len(entries))
			for i := range entries {
				if visible.keep(&entries[i]) {
					items = append(items, entries[i])
				}
			}
		}
		out = h.encodeList(r.Context(), items)
	}
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(out)
}

// listedEntries builds the catalog GET /tools lists, warning about the
// tools it does not serve, and bounds the encoding cache by its size.
func (h *handler) listedEntries(ctx context.Context) []entry {
	c := h.catalog()
	for name, why := range c.skipped {
		h.warnOnce(ctx, "oxp: tool not served", name, why)
	}
	h.entries.Trim(len(c.entries))
	return c.entries
}

// listOf answers GET /tools from s, the catalog of the current generation:
// the list every caller sees, encoded once, without a filter. With one,
// the filter gets its own copy of the tools, and the entries it keeps (by
// name and version, in the catalog's order) are encoded once per exact set.
func (h *handler) listOf(r *http.Request, s *toolenc.Snapshot[entry, toolVersion]) []byte {
	encode := func(items []entry) []byte { return h.encodeList(r.Context(), items) }
	if !h.x.SurfaceKit().FiltersTools() {
		return s.Full(encode)
	}
	tools := make([]toolexec.Tool, len(s.Items))
	for i := range s.Items {
		tools[i] = s.Items[i].tool
	}
	kept := h.x.SurfaceKit().VisibleTools(r, tools)
	if len(kept) == len(tools) {
		return s.Full(encode)
	}
	pos := make([]int32, 0, len(kept))
	for _, t := range kept {
		if p, ok := s.Position(toolVersion{t.Name, t.Version}); ok {
			pos = append(pos, p)
		}
	}
	slices.Sort(pos)
	pos = slices.Compact(pos)
	return s.Subset(pos, func() []byte {
		items := make([]entry, len(pos))
		for i, p := range pos {
			items[i] = s.Items[p]
		}
		return encode(items)
	})
}

// encodeList encodes items as GET /tools answers them, newline included. An
// entry that cannot be encoded is left out, and warned about.
func (h *handler) encodeList(ctx context.Context, items []entry) []byte {
	out := append(make([]byte, 0, 64), `{"items":[`...)
	out = h.entries.AppendList(out, items, 3, func(e *entry, _ error) {
		h.warnOnce(ctx, "oxp: tool not listed", e.id(), "its schema is not valid JSON")
	})
	return append(httpjson.ValidUTF8(append(out, "]}"...)), '\n')
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
