package toolexec

import (
	"bytes"
	"encoding/json"
	"net/http"

	"github.com/toolexec/toolexec/internal/httpjson"
	"github.com/toolexec/toolexec/internal/toolenc"
)

// The REST tool list and tool descriptions are assembled from each tool's
// encoding, made once and reused while the provider describes the tool as
// before (internal/toolenc compares the tool it gets with the one it
// encoded), so per-caller lists come from the same encodings. A tool with
// _meta is compared as any other: REST does not show _meta.
//
// When the provider reports its changes (ToolsChangedNotifier, as Registry
// does), GET /tools goes further: the latest tools and the encoded list are
// kept until the next change (internal/toolenc.Lists), so a request neither
// lists the provider's tools nor encodes anything; a filtered list is kept
// by the exact tools the filter kept.

// list is GET /tools: [{name, description, annotations?}].
func (h *restHandler) list(w http.ResponseWriter, r *http.Request) {
	var out []byte
	if s := h.lists.Snapshot(h.latestTools); s != nil {
		out = h.listOf(r, s)
	} else {
		out = h.encodeList(h.x.visibleTools(r, h.latestTools()))
	}
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(out)
}

// latestTools lists the provider's latest tools, bounding the summary
// cache and the documents' per-tool parts by their number.
func (h *restHandler) latestTools() []Tool {
	latest := h.x.latestTools()
	h.summaries.Trim(len(latest))
	if h.docs != nil {
		h.docs.tools.Trim(len(latest))
	}
	return latest
}

// listOf answers GET /tools from s, the tools of the current generation:
// the list every caller sees, encoded once, or without a filter. With one,
// the filter gets its own copy of the tools (it may keep or change what it
// returns), and the list it keeps is encoded once per exact list of
// unchanged tools; a list in which the filter changed a tool is encoded
// from the per-tool encodings.
func (h *restHandler) listOf(r *http.Request, s *toolenc.Snapshot[Tool, string]) []byte {
	if h.x.toolFilter == nil {
		return s.Full(h.encodeList)
	}
	kept, pos, unchanged := filterSnapshot(h.x, r, s, sameSummary)
	if !unchanged {
		return h.encodeList(kept)
	}
	return s.Subset(pos, func() []byte { return h.encodeList(kept) })
}

// encodeList encodes tools as GET /tools answers them, newline included.
func (h *restHandler) encodeList(tools []Tool) []byte {
	out := append(make([]byte, 0, 64), '[')
	out = h.summaries.AppendList(out, tools, 2, func(*Tool, error) {}) // a summary always encodes
	return append(httpjson.ValidUTF8(append(out, ']')), '\n')
}

// writeDetail answers GET /tools/{name} for t.
func (h *restHandler) writeDetail(w http.ResponseWriter, t *Tool) {
	data, err := h.details.Get(t)
	if err != nil { // a schema that is not JSON: the generic 500, as httpjson.Write answers it
		httpjson.Write(w, http.StatusOK, detailOf(t))
		return
	}
	w.WriteHeader(http.StatusOK)
	out := make([]byte, 0, len(data)+1)
	_, _ = w.Write(append(httpjson.ValidUTF8(append(out, data...)), '\n'))
}

func encodeSummary(t *Tool) ([]byte, error) {
	return json.Marshal(toolSummary{Name: t.Name, Description: t.Description, Annotations: t.Annotations})
}

func encodeDetail(t *Tool) ([]byte, error) {
	return json.Marshal(detailOf(t))
}

// detailOf is what GET /tools/{name} shows of t.
func detailOf(t *Tool) toolDetail {
	return toolDetail{Name: t.Name, Title: t.Title, Description: t.Description, InputSchema: t.inputSchemaOrDefault(),
		OutputSchema: t.OutputSchema, Annotations: t.Annotations}
}

// sameSummary reports whether b's summary is a's.
func sameSummary(a, b *Tool) bool {
	return a.Name == b.Name && a.Description == b.Description && sameAnnotations(a.Annotations, b.Annotations)
}

// sameDetail reports whether b's description is a's.
func sameDetail(a, b *Tool) bool {
	return sameSummary(a, b) && a.Title == b.Title &&
		bytes.Equal(a.InputSchema, b.InputSchema) && (a.InputSchema == nil) == (b.InputSchema == nil) &&
		bytes.Equal(a.OutputSchema, b.OutputSchema)
}

func sameAnnotations(a, b *ToolAnnotations) bool {
	if a == nil || b == nil {
		return a == b
	}
	return a.Title == b.Title && sameHint(a.ReadOnlyHint, b.ReadOnlyHint) && sameHint(a.DestructiveHint, b.DestructiveHint) &&
		sameHint(a.IdempotentHint, b.IdempotentHint) && sameHint(a.OpenWorldHint, b.OpenWorldHint)
}

func sameHint(a, b *bool) bool {
	if a == nil || b == nil {
		return a == b
	}
	return *a == *b
}

// cloneListed copies what REST lists of t (name, title, description,
// annotations, input and output schemas), deeply enough that a change the
// provider makes in place later is seen by sameDetail.
func cloneListed(t *Tool) Tool {
	c := Tool{Name: t.Name, Title: t.Title, Description: t.Description,
		InputSchema: bytes.Clone(t.InputSchema), OutputSchema: bytes.Clone(t.OutputSchema)}
	if a := t.Annotations; a != nil {
		ca := *a
		ca.ReadOnlyHint, ca.DestructiveHint = cloneHint(a.ReadOnlyHint), cloneHint(a.DestructiveHint)
		ca.IdempotentHint, ca.OpenWorldHint = cloneHint(a.IdempotentHint), cloneHint(a.OpenWorldHint)
		c.Annotations = &ca
	}
	return c
}

func cloneHint(b *bool) *bool {
	if b == nil {
		return nil
	}
	v := *b
	return &v
}
