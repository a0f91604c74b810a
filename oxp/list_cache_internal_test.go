package oxp

import (
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolexec/toolexec"
)

// changingTools is a provider that reports no changes; its tools change
// between requests, in place too.
type changingTools struct{ tools []toolexec.Tool }

func (c *changingTools) Tools() []toolexec.Tool { return append([]toolexec.Tool(nil), c.tools...) }

// oldList is GET /tools as it was encoded before encodings were cached.
func oldList(t *testing.T, h *handler) string {
	var items []toolDefinition
	c := h.catalog()
	for i := range c.entries {
		e := &c.entries[i]
		in, out := h.x.SurfaceKit().InputSchema(&e.tool), e.tool.OutputSchema
		if !json.Valid(in) || (len(out) > 0 && !json.Valid(out)) {
			continue
		}
		items = append(items, toolDefinition{ID: e.id(), Name: e.name, Description: e.tool.Description, Version: e.version,
			InputSchema: in, OutputSchema: out, Requirements: requirementsOf(e.tool.Requirements)})
	}
	if items == nil {
		items = []toolDefinition{}
	}
	data, err := json.Marshal(toolList{Items: items})
	require.NoError(t, err)
	return string(data) + "\n"
}

func TestCachedListMatchesMarshalAndFollowsChanges(t *testing.T) {
	p := &changingTools{tools: []toolexec.Tool{
		{Name: "Kit.A", Version: "1.0.0", Description: "a <b> & c", InputSchema: json.RawMessage(`{ "type": "object" }`),
			Requirements: toolexec.Requirements{Secrets: []string{"KEY"}}},
		{Name: "Kit.B", Description: "plain", OutputSchema: json.RawMessage(`{"type":"number"}`)},
		{Name: "Kit.Bad", InputSchema: json.RawMessage(`{`)},
	}}
	hideB := func(r *http.Request, ts []toolexec.Tool) []toolexec.Tool {
		if r.Header.Get("X-Hide") == "" {
			return ts
		}
		return ts[:1]
	}
	x := toolexec.New(p, toolexec.NewRegistry(), toolexec.WithToolFilter(hideB), toolexec.WithLogger(slog.New(slog.DiscardHandler)))
	h := &handler{x: x, toolkit: DefaultToolkit, entries: newEntryCache(x.SurfaceKit())}
	get := func(hide bool) string {
		r := httptest.NewRequest(http.MethodGet, "/tools", nil)
		if hide {
			r.Header.Set("X-Hide", "1")
		}
		w := httptest.NewRecorder()
		h.list(w, r)
		require.Equal(t, http.StatusOK, w.Code)
		return w.Body.String()
	}
	for range 2 { // the second time from the cache
		assert.Equal(t, oldList(t, h), get(false))
		assert.Contains(t, get(true), `"Kit.A@1.0.0"`)
		assert.NotContains(t, get(true), `"Kit.B@0.0.0"`)
	}
	p.tools[0].Requirements.Secrets[0] = "OTHER" // in place
	p.tools[1].Description = "changed"
	p.tools[2].InputSchema = json.RawMessage(`{"type":"object"}`) // now listed
	assert.Equal(t, oldList(t, h), get(false))
	assert.Contains(t, get(false), `"OTHER"`)
	assert.Contains(t, get(false), `"Kit.Bad@0.0.0"`)
	assert.Contains(t, get(false), `"description":"changed"`)
	p.tools[1].Name, p.tools[1].Version = "Kit.C", "2.0.0" // a new name and version: the catalog is built again
	assert.Equal(t, oldList(t, h), get(false))
	assert.Contains(t, get(false), `"Kit.C@2.0.0"`)
	assert.NotContains(t, get(false), `"Kit.B@`)
	p.tools = append(p.tools, toolexec.Tool{Name: "Kit.C", Version: "2.0.0", Description: "same id: not served twice"})
	assert.NotContains(t, get(false), "not served twice")
}
