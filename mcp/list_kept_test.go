package mcp_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolexec/toolexec"
	"github.com/toolexec/toolexec/mcp"
)

// listKinds are the ways a client lists tools: tools/list at each
// protocol revision and HandsAI's GET .../tools/list.
var listKinds = []string{"2025-06-18", "2025-11-25", "2026-07-28", "handsai"}

// listTools lists the tools the handler shows a caller (X-Caller: caller),
// following cursors, and returns each tool's name and description.
func listTools(t *testing.T, h http.Handler, kind, caller string) []string {
	t.Helper()
	var out []string
	cursor := ""
	for range 100 {
		var rec *httptest.ResponseRecorder
		params := ""
		if cursor != "" {
			params = `"cursor":` + strconv.Quote(cursor)
		}
		switch kind {
		case "handsai":
			rec = send(t, h, http.MethodGet, "/tools/list", "", "X-Caller", caller)
		case modern:
			rec = postModern(t, h, "tools/list", "", modernBody("tools/list", params), "X-Caller", caller)
		default:
			rec = post(t, h, `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{`+params+`}}`,
				"MCP-Protocol-Version", kind, "X-Caller", caller)
		}
		require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
		require.True(t, json.Valid(rec.Body.Bytes()), rec.Body.String())
		var res struct {
			Tools []struct {
				Name        string `json:"name"`
				Description string `json:"description"`
			} `json:"tools"`
			NextCursor string `json:"nextCursor"`
		}
		require.NoError(t, json.Unmarshal(decodeReply(t, rec).Result, &res))
		for _, tool := range res.Tools {
			out = append(out, tool.Name+": "+tool.Description)
		}
		if cursor = res.NextCursor; cursor == "" {
			return out
		}
	}
	t.Fatal("the cursors never end")
	return nil
}

func noop(string, map[string]any) ([]toolexec.Content, bool, string, error) {
	return nil, false, "", nil
}

// A Registry reports its changes, so every list is kept between them; a
// tool added or removed is listed, or not, on the very next request.
func TestKeptListsFollowRegistryChangesAtOnce(t *testing.T) {
	for _, pageSize := range []int{0, 1} {
		reg := toolexec.NewRegistry()
		reg.MustAdd(toolexec.Tool{Name: "b", Description: "two"}, noop)
		reg.MustAdd(toolexec.Tool{Name: "a", Description: "one"}, noop)
		h := mcp.NewHandler(toolexec.New(reg, reg, toolexec.WithLogger(quietLogger())), mcp.WithPageSize(pageSize))
		for _, kind := range listKinds {
			name := fmt.Sprintf("page size %d, %s", pageSize, kind)
			sorted := kind == modern
			want := []string{"b: two", "a: one"}
			if sorted {
				want = []string{"a: one", "b: two"}
			}
			assert.Equal(t, want, listTools(t, h, kind, ""), name)
			assert.Equal(t, want, listTools(t, h, kind, ""), name+", kept")

			reg.MustAdd(toolexec.Tool{Name: "c", Description: "three"}, noop)
			assert.Equal(t, append(want, "c: three"), listTools(t, h, kind, ""), name+", added")
			reg.Remove("c", "")
			assert.Equal(t, want, listTools(t, h, kind, ""), name+", removed")
		}
	}
}

// callerFilter shows each caller (X-Caller) its own tools: alice a and b,
// bob c, carol every tool with a's description rewritten; anyone else
// every tool.
func callerFilter(r *http.Request, tools []toolexec.Tool) []toolexec.Tool {
	keep := func(names ...string) []toolexec.Tool {
		var out []toolexec.Tool
		for _, t := range tools {
			for _, n := range names {
				if t.Name == n {
					out = append(out, t)
				}
			}
		}
		return out
	}
	switch r.Header.Get("X-Caller") {
	case "alice":
		return keep("b", "a")
	case "bob":
		return keep("c")
	case "carol":
		for i := range tools {
			if tools[i].Name == "a" {
				tools[i].Description = "for carol"
			}
		}
		return tools
	}
	return tools
}

// Per-caller lists (WithToolFilter) kept between changes still give each
// caller its own list, request after request, in any order, and follow
// a change at once; a filter that rewrites a tool is listed as it
// rewrote it, and does not change what anyone else is shown.
func TestKeptListsArePerCaller(t *testing.T) {
	for _, kind := range listKinds {
		reg := toolexec.NewRegistry()
		for _, n := range []string{"c", "a", "b"} {
			reg.MustAdd(toolexec.Tool{Name: n, Description: n + "!"}, noop)
		}
		h := mcp.NewHandler(toolexec.New(reg, reg, toolexec.WithLogger(quietLogger()), toolexec.WithToolFilter(callerFilter)))
		order := func(provider, sorted []string) []string {
			if kind == modern {
				return sorted
			}
			return provider
		}
		want := map[string][]string{
			"alice": {"a: a!", "b: b!"},
			"bob":   {"c: c!"},
			"carol": order([]string{"c: c!", "a: for carol", "b: b!"}, []string{"a: for carol", "b: b!", "c: c!"}),
			"":      order([]string{"c: c!", "a: a!", "b: b!"}, []string{"a: a!", "b: b!", "c: c!"}),
		}
		for range 3 {
			for _, caller := range []string{"alice", "", "bob", "carol", "alice", "bob"} {
				assert.Equal(t, want[caller], listTools(t, h, kind, caller), "%s, caller %q", kind, caller)
			}
		}
		reg.Remove("a", "")
		reg.MustAdd(toolexec.Tool{Name: "a", Description: "a, changed"}, noop)
		assert.Equal(t, order([]string{"b: b!", "a: a, changed"}, []string{"a: a, changed", "b: b!"}), listTools(t, h, kind, "alice"), kind)
		assert.Equal(t, []string{"c: c!"}, listTools(t, h, kind, "bob"), kind)
	}
}

// countingTools is a provider that reports no changes and counts how
// often it is asked for its tools.
type countingTools struct {
	asked atomic.Int64
	tools atomic.Pointer[[]toolexec.Tool]
}

func (c *countingTools) Tools() []toolexec.Tool {
	c.asked.Add(1)
	return *c.tools.Load()
}

// A provider that does not report its changes is asked for its tools on
// every list request, so a change is listed at once there too.
func TestAProviderThatReportsNoChangesIsAskedOnEveryList(t *testing.T) {
	p := &countingTools{}
	p.tools.Store(&[]toolexec.Tool{{Name: "a", Description: "one"}})
	h := mcp.NewHandler(toolexec.New(p, toolexec.NewRegistry(), toolexec.WithLogger(quietLogger())))
	for _, kind := range listKinds {
		before := p.asked.Load()
		assert.Equal(t, []string{"a: one"}, listTools(t, h, kind, ""), kind)
		assert.Equal(t, []string{"a: one"}, listTools(t, h, kind, ""), kind)
		assert.Equal(t, int64(2), p.asked.Load()-before, kind)
	}
	p.tools.Store(&[]toolexec.Tool{{Name: "a", Description: "one, changed"}})
	for _, kind := range listKinds {
		assert.Equal(t, []string{"a: one, changed"}, listTools(t, h, kind, ""), kind)
	}
}

// thousandTools is a Registry of n tools with schemas.
func thousandTools(n int) *toolexec.Registry {
	reg := toolexec.NewRegistry()
	for i := range n {
		reg.MustAdd(toolexec.Tool{Name: "tool_" + strconv.Itoa(i), Description: "Adds two integers.",
			InputSchema: json.RawMessage(`{"type":"object","properties":{"a":{"type":"integer"},"b":{"type":"integer"}},"required":["a","b"]}`)}, noop)
	}
	return reg
}

// tools/list of 1,000 tools from a provider that reports its changes costs
// what a list of one tool costs: the list is neither listed from the
// provider nor encoded nor copied per request, at every revision.
func TestAListOfAThousandToolsAllocatesAsMuchAsOfOne(t *testing.T) {
	for _, version := range []string{"2025-06-18", "2025-11-25", modern} {
		perRequest := func(n int) (allocs float64, bytes uint64) {
			reg := thousandTools(n)
			h := mcp.NewHandler(toolexec.New(reg, reg, toolexec.WithLogger(quietLogger())))
			body := `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`
			if version == modern {
				body = modernBody("tools/list", "")
			}
			rd := strings.NewReader(body)
			req := httptest.NewRequest(http.MethodPost, "/mcp", rd)
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Accept", "application/json, text/event-stream")
			req.Header.Set("MCP-Protocol-Version", version)
			req.Header.Set("Mcp-Method", "tools/list")
			w := &discardWriter{header: http.Header{}}
			serve := func() {
				rd.Reset(body)
				req.Body = readCloser{rd}
				clear(w.header)
				h.ServeHTTP(w, req)
			}
			serve() // the first request of a tool set makes the list
			require.Equal(t, http.StatusOK, w.status)
			allocs = testing.AllocsPerRun(50, serve)
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			for range 50 {
				serve()
			}
			runtime.ReadMemStats(&after)
			return allocs, (after.TotalAlloc - before.TotalAlloc) / 50
		}
		oneAllocs, oneBytes := perRequest(1)
		allocs, bytes := perRequest(1000)
		t.Logf("%s, per request: %v allocations, %d bytes with 1 tool; %v allocations, %d bytes with 1,000", version, oneAllocs, oneBytes, allocs, bytes)
		assert.LessOrEqual(t, allocs, oneAllocs, version)
		assert.Less(t, bytes, uint64(1024), version)
	}
}
