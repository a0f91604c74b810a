package toolexec

import (
	"bytes"
	"encoding/json"
	"net/http"

	"github.com/toolexec/toolexec/internal/httpjson"
)

// The REST tool list and tool descriptions are assembled from each tool's
// encoding, made once and reused while the provider describes the tool as
// before (internal/toolenc compares the tool it gets with the one it
// encoded), so no change notification is needed and per-caller lists come
// from the same encodings. A tool with _meta is compared as any other: REST
// does not show _meta.

// list is GET /tools: [{name, description, annotations?}].
func (h *restHandler) list(w http.ResponseWriter, r *http.Request) {
	latest := h.x.LatestTools()
	h.summaries.Trim(len(latest))
	tools := h.x.VisibleTools(r, latest)
	out := append(make([]byte, 0, 64), '[')
	out = h.summaries.AppendList(out, tools, 2, func(*Tool, error) {}) // a summary always encodes
	out = append(httpjson.ValidUTF8(append(out, ']')), '\n')
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(out)
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
