package oxp_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"runtime"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolexec/toolexec"
	"github.com/toolexec/toolexec/oxp"
)

// roles is a ToolFilter by the X-Role header: "first" sees the first tool
// version only, "careless" filters in place (breaking ToolFilter's
// contract), anyone else sees everything.
func roles(r *http.Request, tools []toolexec.Tool) []toolexec.Tool {
	switch r.Header.Get("X-Role") {
	case "first":
		return tools[:min(1, len(tools))]
	case "careless":
		out := tools[:0]
		for _, t := range tools {
			if t.Name != "Kit.A" {
				out = append(out, t)
			}
		}
		return out
	}
	return tools
}

// twoHandlers serves reg twice, with opts: as the Registry, which reports
// its changes (the list is kept between them), and as a provider that does
// not (the list is made on every request), the reference.
func twoHandlers(reg *toolexec.Registry, opts ...toolexec.Option) (kept, fresh http.Handler) {
	opts = append([]toolexec.Option{toolexec.WithLogger(discardLogger())}, opts...)
	return oxp.NewHandler(toolexec.New(reg, reg, opts...)), oxp.NewHandler(toolexec.New(toolsOnly{reg}, reg, opts...))
}

func listAs(t *testing.T, h http.Handler, role string) string {
	t.Helper()
	w := do(h, http.MethodGet, "/tools", "", "X-Role", role)
	require.Equal(t, http.StatusOK, w.Code, w.Body.String())
	return w.Body.String()
}

// GET /tools kept between a Registry's changes answers what it answers when
// made afresh, after every Add and Remove, for every caller.
func TestListKeptBetweenChangesFollowsEveryChange(t *testing.T) {
	reg := &toolexec.Registry{}
	kept, fresh := twoHandlers(reg, toolexec.WithToolFilter(roles))
	same := func(step string) {
		t.Helper()
		for range 2 {
			for _, role := range []string{"", "first", "careless"} {
				assert.Equal(t, listAs(t, fresh, role), listAs(t, kept, role), "%s, role %q", step, role)
			}
		}
	}
	same("empty")
	reg.MustAdd(toolexec.Tool{Name: "Kit.A", Version: "1.0.0", Description: "a <b> & c"}, okTool)
	same("one tool")
	assert.Contains(t, listAs(t, kept, ""), `"Kit.A@1.0.0"`)
	reg.MustAdd(toolexec.Tool{Name: "Kit.B", Version: "1.0.0", InputSchema: json.RawMessage(`{"type":"object"}`)}, okTool)
	reg.MustAdd(toolexec.Tool{Name: "Kit.A", Version: "2.0.0", Description: "the second"}, okTool)
	same("three versions")
	assert.Contains(t, listAs(t, kept, ""), `"Kit.A@2.0.0"`)
	assert.NotContains(t, listAs(t, kept, "first"), `"Kit.B@1.0.0"`)
	assert.NotContains(t, listAs(t, kept, "careless"), `"Kit.A@`)
	assert.Contains(t, listAs(t, kept, ""), `"Kit.A@1.0.0"`, "the careless filter changed only its own copy")
	require.True(t, reg.Remove("Kit.A", "1.0.0"))
	same("a version removed")
	assert.NotContains(t, listAs(t, kept, ""), `"Kit.A@1.0.0"`)
	reg.MustAdd(toolexec.Tool{Name: "has space", Version: "1.0.0"}, okTool)
	same("a tool OXP cannot serve")
}

// Concurrent lists while the tool set changes always answer a whole list,
// and the last one answers the last tool set.
func TestListsDuringChanges(t *testing.T) {
	reg := &toolexec.Registry{}
	h := oxp.NewHandler(toolexec.New(reg, reg, toolexec.WithToolFilter(roles), toolexec.WithLogger(discardLogger())))
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			for range 50 {
				for _, role := range []string{"", "careless"} {
					w := do(h, http.MethodGet, "/tools", "", "X-Role", role)
					var list struct{ Items []json.RawMessage }
					assert.NoError(t, json.Unmarshal(w.Body.Bytes(), &list))
				}
			}
		})
	}
	for i := range 100 {
		reg.MustAdd(toolexec.Tool{Name: fmt.Sprintf("Kit.T%d", i), Version: "1.0.0"}, okTool)
	}
	wg.Wait()
	var list struct{ Items []json.RawMessage }
	require.NoError(t, json.Unmarshal([]byte(listAs(t, h, "")), &list))
	assert.Len(t, list.Items, 100)
}

// discardWriter is a ResponseWriter that keeps nothing, so that what a
// request allocates is the handler's alone.
type discardWriter struct{ header http.Header }

func (d *discardWriter) Header() http.Header         { return d.header }
func (d *discardWriter) Write(p []byte) (int, error) { return len(p), nil }
func (d *discardWriter) WriteHeader(int)             {}

// GET /tools of 1,000 tool versions from a provider that reports its
// changes neither builds the catalog nor encodes it again: it costs what a
// list of one costs. The bounds are generous; docs/performance.md has the
// measured figures.
func TestAListOfAThousandToolsAllocatesAsMuchAsOfOne(t *testing.T) {
	perRequest := func(n int) (float64, uint64) {
		h := listHandler(n, false)
		r := httptest.NewRequest(http.MethodGet, "/tools", nil)
		w := &discardWriter{header: http.Header{}}
		serve := func() { clear(w.header); h.ServeHTTP(w, r) }
		serve() // the first request of a tool set makes the list
		allocs := testing.AllocsPerRun(50, serve)
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
	t.Logf("per request: %v allocations, %d bytes with 1 tool; %v allocations, %d bytes with 1,000", oneAllocs, oneBytes, allocs, bytes)
	assert.LessOrEqual(t, allocs, oneAllocs+2)
	assert.Less(t, bytes, oneBytes+4096)
}
