package toolexec

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// listedTools is a provider that reports no changes: its tools may change
// between requests, in place too.
type listedTools struct{ tools []Tool }

func (l *listedTools) Tools() []Tool { return append([]Tool(nil), l.tools...) }

// The REST lists are assembled from cached encodings, byte for byte as
// json.Marshal of the list types wrote them, and follow every change of a
// provider that reports none, in place or not, and per-caller filters.
func TestRESTToolListsFollowChangesByteForByte(t *testing.T) {
	yes := true
	p := &listedTools{tools: []Tool{
		{Name: "a<b>", Description: "x & y \u2028", InputSchema: json.RawMessage(`{ "type": "object" }`), Annotations: &ToolAnnotations{ReadOnlyHint: &yes}},
		{Name: "c", Meta: map[string]any{"k": 1}},
		{Name: "d", Title: "Dee", InputSchema: json.RawMessage(`{"type":"object"}`), OutputSchema: json.RawMessage(`{"type":"object","properties":{"n":{"type":"integer"}}}`)},
	}}
	hideC := func(r *http.Request, ts []Tool) []Tool {
		if r.Header.Get("X-Hide") == "" {
			return ts
		}
		return ts[:1]
	}
	h := NewHandler(New(p, NewRegistry(), WithToolFilter(hideC)))
	get := func(target string, hide bool) string {
		r := httptest.NewRequest(http.MethodGet, target, nil)
		if hide {
			r.Header.Set("X-Hide", "1")
		}
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		require.Equal(t, http.StatusOK, w.Code, w.Body.String())
		return w.Body.String()
	}
	old := func(v any) string {
		data, err := json.Marshal(v)
		require.NoError(t, err)
		return string(data) + "\n"
	}
	oldList := func(tools []Tool) string {
		out := make([]toolSummary, len(tools))
		for i, t := range tools {
			out[i] = toolSummary{Name: t.Name, Description: t.Description, Annotations: t.Annotations}
		}
		return old(out)
	}
	oldDetail := func(t Tool) string {
		return old(toolDetail{Name: t.Name, Title: t.Title, Description: t.Description, InputSchema: t.inputSchemaOrDefault(),
			OutputSchema: t.OutputSchema, Annotations: t.Annotations})
	}
	for range 2 { // the second time from the cache
		assert.Equal(t, oldList(p.tools), get("/tools", false))
		assert.Equal(t, oldList(p.tools[:1]), get("/tools", true))
		assert.Equal(t, oldDetail(p.tools[0]), get("/tools/a%3Cb%3E", false))
		assert.Equal(t, oldDetail(p.tools[1]), get("/tools/c", false))
		assert.Equal(t, oldDetail(p.tools[2]), get("/tools/d", false))
	}
	assert.NotContains(t, get("/tools/c", false), `"title"`, "no title: omitted")
	assert.NotContains(t, get("/tools/c", false), `"outputSchema"`, "no output schema: omitted")
	assert.Contains(t, get("/tools/d", false), `"title":"Dee"`)
	assert.Contains(t, get("/tools/d", false), `"outputSchema":{"type":"object","properties":{"n":{"type":"integer"}}}`, "as the host wrote it")
	no := false
	*p.tools[0].Annotations.ReadOnlyHint = false // in place
	p.tools[0].InputSchema[3] = 'T'              // in place: { "Type": "object" }
	p.tools[1].Description = "now described"
	p.tools[2].OutputSchema[2] = 'T' // in place: {"Type":...}
	p.tools[2].Title = "Dee 2"
	assert.Equal(t, oldList(p.tools), get("/tools", false))
	assert.Equal(t, oldDetail(p.tools[0]), get("/tools/a%3Cb%3E", false))
	assert.Contains(t, get("/tools/a%3Cb%3E", false), `"Type"`)
	assert.Equal(t, oldDetail(p.tools[2]), get("/tools/d", false), "a title and an output schema changed in place")
	assert.Contains(t, get("/tools/d", false), `"outputSchema":{"Type"`)
	p.tools[0].Annotations = &ToolAnnotations{ReadOnlyHint: &no, Title: "t"}
	assert.Equal(t, oldList(p.tools), get("/tools", false))
}
