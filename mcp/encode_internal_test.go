package mcp

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolexec/toolexec"
)

// The envelopes written around pre-encoded results must be the very bytes
// json.Marshal of the response types wrote before.
func TestEnvelopeMatchesMarshal(t *testing.T) {
	results := []*toolexec.CallToolResult{
		{Content: []toolexec.Content{toolexec.Text("a <b> & \u2028 \"c\"")}},
		{Content: []toolexec.Content{toolexec.Text("x")}, StructuredContent: json.RawMessage(`{ "a" : "<&>" }`), IsError: true},
		{StructuredContent: map[string]any{"k": "<v>"}, Meta: map[string]any{"_trace_id": "t&1"}},
	}
	ids := []json.RawMessage{nil, json.RawMessage(`1`), json.RawMessage(`-2.5e3`), json.RawMessage(`"a<b>&c"`), json.RawMessage("\"\u2028\u2029\"")}
	for _, id := range ids {
		for _, res := range results {
			want, err := json.Marshal(&response{JSONRPC: jsonrpcVersion, ID: id, Result: res})
			require.NoError(t, err)
			h := &handler{x: newX(toolexec.NewRegistry())}
			got := h.encodeToolResult(httptest.NewRequest("POST", "/", nil), id, res, false)
			assert.Equal(t, string(want), string(got))
			raw, err := res.MarshalJSON()
			require.NoError(t, err)
			assert.Equal(t, string(want), string(appendResponse(nil, id, raw)))
			assert.Equal(t, string(want), string(append(append(responseStart(id), raw...), '}')))
		}
	}
}

// listFixture is a tool set with every field MCP lists, characters
// encoding/json escapes, a _meta map and a tool without a schema.
func listFixture() *toolexec.Registry {
	yes := true
	reg := toolexec.NewRegistry()
	reg.MustAdd(toolexec.Tool{Name: "b<tool>", Title: "B & co", Description: "line\u2028two",
		InputSchema:  json.RawMessage(`{ "type" : "object", "properties": {"x": {"type":"string","pattern":"<a>"}} }`),
		OutputSchema: json.RawMessage(`{"type":"object"}`),
		Annotations:  &toolexec.ToolAnnotations{Title: "t", ReadOnlyHint: &yes},
		Meta:         map[string]any{"k": "<v>"}}, func(string, map[string]any) ([]toolexec.Content, bool, string, error) { return nil, false, "", nil })
	reg.MustAdd(toolexec.Tool{Name: "a"}, func(string, map[string]any) ([]toolexec.Content, bool, string, error) { return nil, false, "", nil })
	reg.MustAdd(toolexec.Tool{Name: "c", Description: "plain"}, func(string, map[string]any) ([]toolexec.Content, bool, string, error) { return nil, false, "", nil })
	return reg
}

// oldEncodeTools is how lists encoded tools before they were cached.
func oldEncodeTools(tools []toolexec.Tool) []json.RawMessage {
	out := []json.RawMessage{}
	for _, t := range tools {
		if len(t.InputSchema) == 0 {
			t.InputSchema = json.RawMessage(`{"type":"object"}`)
		}
		data, err := json.Marshal(t)
		if err == nil {
			out = append(out, data)
		}
	}
	return out
}

func TestCachedListsMatchMarshal(t *testing.T) {
	reg := listFixture()
	x := newX(reg)
	h := NewHandler(x, WithPageSize(2), WithCacheHints(time.Minute, CachePublic)).(*handler)
	r := httptest.NewRequest("POST", "/", nil)
	for range 2 { // the second time from the cache
		want := marshalResponse(t, listToolsResult{Tools: oldEncodeTools(x.SurfaceKit().LatestTools()[:2]), NextCursor: encodeCursor(2)})
		assert.Equal(t, want, answerText(h.listTools(r, &message{id: json.RawMessage(`1`)}, viewListed)))

		sorted := []toolexec.Tool{x.SurfaceKit().LatestTools()[1], x.SurfaceKit().LatestTools()[0]} // a, b<tool>
		want = marshalResponse(t, modernListToolsResult{ResultType: resultComplete,
			listToolsResult: listToolsResult{Tools: oldEncodeTools(sorted), NextCursor: encodeCursor(2)},
			TTLMs:           time.Minute.Milliseconds(), CacheScope: CachePublic, Meta: h.serverMeta()})
		assert.Equal(t, want, answerText(h.listToolsModern(r, &message{id: json.RawMessage(`1`)})))
		next := json.RawMessage(`{"cursor":"` + encodeCursor(2) + `"}`)
		want = marshalResponse(t, modernListToolsResult{ResultType: resultComplete,
			listToolsResult: listToolsResult{Tools: oldEncodeTools(x.SurfaceKit().LatestTools()[2:])},
			TTLMs:           time.Minute.Milliseconds(), CacheScope: CachePublic, Meta: h.serverMeta()})
		assert.Equal(t, want, answerText(h.listToolsModern(r, &message{id: json.RawMessage(`1`), params: next})))

		w := httptest.NewRecorder()
		h.handsAIList(w, httptest.NewRequest("GET", "/tools/list", nil))
		hw, err := json.Marshal(&handsAIResponse{JSONRPC: jsonrpcVersion, Result: listToolsResult{Tools: oldEncodeTools(x.SurfaceKit().LatestTools())}})
		require.NoError(t, err)
		assert.Equal(t, string(hw)+"\n", w.Body.String())
	}
	assert.Equal(t, 2, h.tools.Len(), "the tool with _meta is encoded on every use, the others once")
}

// answerText is an answer as writeAnswer would write it, without the
// newline.
func answerText(out outcome) string {
	out.flatten()
	return string(out.data)
}

// marshalResponse is json.Marshal's encoding of the response to id 1
// carrying result.
func marshalResponse(t *testing.T, result any) string {
	t.Helper()
	data, err := json.Marshal(&response{JSONRPC: jsonrpcVersion, ID: json.RawMessage(`1`), Result: result})
	require.NoError(t, err)
	return string(data)
}

// A changed tool is listed as it is now, whether the provider reports the
// change or not, and per-caller lists are assembled from the same cache.
func TestCachedListFollowsChangesAndFilters(t *testing.T) {
	tools := []toolexec.Tool{{Name: "a", Description: "one"}, {Name: "b", Description: "two"}}
	hideB := func(r *http.Request, ts []toolexec.Tool) []toolexec.Tool {
		if r.Header.Get("X-Hide") == "" {
			return ts
		}
		var out []toolexec.Tool
		for _, t := range ts {
			if t.Name != "b" {
				out = append(out, t)
			}
		}
		return out
	}
	x := newX(staticTools(func() []toolexec.Tool { return tools }), toolexec.WithToolFilter(hideB))
	h := NewHandler(x).(*handler)
	list := func(hide bool) string {
		r := httptest.NewRequest("POST", "/", nil)
		if hide {
			r.Header.Set("X-Hide", "1")
		}
		return strings.TrimSuffix(strings.TrimPrefix(answerText(h.listTools(r, &message{id: json.RawMessage(`1`)}, viewListed)),
			`{"jsonrpc":"2.0","id":1,"result":`), "}")
	}
	assert.Equal(t, `{"tools":[{"name":"a","description":"one","inputSchema":{"type":"object"}},{"name":"b","description":"two","inputSchema":{"type":"object"}}]}`, list(false))
	assert.Equal(t, `{"tools":[{"name":"a","description":"one","inputSchema":{"type":"object"}}]}`, list(true))
	tools = []toolexec.Tool{{Name: "a", Description: "one, changed"}, {Name: "b", Description: "two", InputSchema: json.RawMessage(`{"type":"object","required":["q"]}`)}}
	got := list(false)
	assert.True(t, strings.Contains(got, `"one, changed"`) && strings.Contains(got, `"required":["q"]`), got)
}

// staticTools is a provider that reports no changes.
type staticTools func() []toolexec.Tool

func (s staticTools) Tools() []toolexec.Tool { return s() }

func newX(p toolexec.ToolProvider, opts ...toolexec.Option) *toolexec.Executor {
	return toolexec.New(p, toolexec.NewRegistry(), opts...)
}

// BenchmarkEncodeToolResult compares the response written around the
// result's own encoding with json.Marshal of the envelope, which scans and
// compacts that encoding again.
func BenchmarkEncodeToolResult(b *testing.B) {
	res := &toolexec.CallToolResult{Content: []toolexec.Content{toolexec.Text(`{"sum":42}`)}, StructuredContent: json.RawMessage(`{"sum":42}`)}
	id := json.RawMessage(`7`)
	h := &handler{x: newX(toolexec.NewRegistry())}
	r := httptest.NewRequest("POST", "/", nil)
	b.Run("once", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			_ = h.encodeToolResult(r, id, res, false)
		}
	})
	b.Run("marshal", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			_, _ = json.Marshal(&response{JSONRPC: jsonrpcVersion, ID: id, Result: res})
		}
	})
}

// BenchmarkListTools1000 is tools/list of 1,000 tools, from the cache.
func BenchmarkListTools1000(b *testing.B) {
	reg := toolexec.NewRegistry()
	for i := range 1000 {
		reg.MustAdd(toolexec.Tool{Name: "tool_" + strconv.Itoa(i), Description: "Adds two integers.",
			InputSchema: json.RawMessage(`{"type":"object","properties":{"a":{"type":"integer"},"b":{"type":"integer"}},"required":["a","b"]}`)},
			func(string, map[string]any) ([]toolexec.Content, bool, string, error) { return nil, false, "", nil })
	}
	h := NewHandler(newX(reg)).(*handler)
	r := httptest.NewRequest("POST", "/", nil)
	b.Run("cached", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			_ = h.listTools(r, &message{id: json.RawMessage(`1`)}, viewListed)
		}
	})
	b.Run("marshal", func(b *testing.B) { // as tools/list encoded before
		b.ReportAllocs()
		for b.Loop() {
			_, _ = json.Marshal(&response{JSONRPC: jsonrpcVersion, ID: json.RawMessage(`1`), Result: listToolsResult{Tools: oldEncodeTools(reg.Tools())}})
		}
	})
}
