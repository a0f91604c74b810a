package toolexec

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
)

// summariesOf is GET /tools of tools as json.Marshal writes it.
func summariesOf(t *testing.T, tools []Tool) string {
	out := make([]toolSummary, len(tools))
	for i, tool := range tools {
		out[i] = toolSummary{Name: tool.Name, Description: tool.Description, Annotations: tool.Annotations}
	}
	data, err := json.Marshal(out)
	require.NoError(t, err)
	return string(data) + "\n"
}

// noop is a handler for tools that are only listed.
func noop(string, map[string]any) ([]Content, bool, string, error) { return nil, false, "", nil }

func getList(t *testing.T, h http.Handler, role string) string {
	t.Helper()
	r := httptest.NewRequest(http.MethodGet, "/tools", nil)
	if role != "" {
		r.Header.Set("X-Role", role)
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	require.Equal(t, http.StatusOK, w.Code, w.Body.String())
	return w.Body.String()
}

// A Registry reports its changes, so GET /tools is kept between them: the
// kept list is what json.Marshal writes, and every Add and Remove changes
// it.
func TestRESTListKeptBetweenChangesFollowsEveryChange(t *testing.T) {
	reg := NewRegistry()
	reg.MustAdd(Tool{Name: "a", Description: "x < y & \u2028"}, noop)
	h := NewHandler(New(reg, reg, WithLogger(discardLogger())))
	for range 2 {
		assert.Equal(t, summariesOf(t, reg.Tools()), getList(t, h, ""))
	}

	reg.MustAdd(Tool{Name: "b", Annotations: &ToolAnnotations{ReadOnlyHint: Bool(true)}}, noop)
	assert.Equal(t, summariesOf(t, reg.Tools()), getList(t, h, ""), "an added tool is listed")

	reg.MustAdd(Tool{Name: "a", Version: "2.0.0", Description: "the second"}, noop)
	assert.Equal(t, summariesOf(t, []Tool{{Name: "a", Description: "the second"}, reg.Tools()[1]}), getList(t, h, ""),
		"a new version is the one listed")

	require.True(t, reg.Remove("b", ""))
	assert.Equal(t, `[{"name":"a","description":"the second"}]`+"\n", getList(t, h, ""), "a removed tool is not")

	require.True(t, reg.Remove("a", "2.0.0"))
	require.True(t, reg.Remove("a", ""))
	assert.Equal(t, "[]\n", getList(t, h, ""))
}

// With a ToolFilter, each caller still gets its own list, and a list the
// filter changed, or a change of the tool set, is never answered from
// another caller's.
func TestRESTFilteredListsKeptBetweenChangesArePerCaller(t *testing.T) {
	reg := NewRegistry()
	for _, name := range []string{"a", "b", "c"} {
		reg.MustAdd(Tool{Name: name, Description: name + " does things"}, noop)
	}
	filter := func(r *http.Request, tools []Tool) []Tool {
		switch role := r.Header.Get("X-Role"); role {
		case "first":
			return tools[:1]
		case "reworded": // changes what it shows
			out := make([]Tool, len(tools))
			copy(out, tools)
			out[0].Description = "reworded"
			return out
		case "careless": // breaks the contract: filters in place
			out := tools[:0]
			for _, tool := range tools {
				if tool.Name != "a" {
					out = append(out, tool)
				}
			}
			return out
		default:
			return tools
		}
	}
	h := NewHandler(New(reg, reg, WithToolFilter(filter), WithLogger(discardLogger())))
	all := reg.Tools()
	for range 2 {
		assert.Equal(t, summariesOf(t, all), getList(t, h, ""))
		assert.Equal(t, summariesOf(t, all[:1]), getList(t, h, "first"))
		assert.Contains(t, getList(t, h, "reworded"), `{"name":"a","description":"reworded"}`)
		assert.Equal(t, summariesOf(t, all[1:]), getList(t, h, "careless"))
		assert.Equal(t, summariesOf(t, all), getList(t, h, ""), "the careless filter changed only its own copy")
	}

	reg.MustAdd(Tool{Name: "a", Version: "1.0.0", Description: "a, versioned"}, noop)
	assert.Equal(t, `[{"name":"a","description":"a, versioned"}]`+"\n", getList(t, h, "first"), "a change reaches filtered lists")
	assert.Contains(t, getList(t, h, ""), `"a, versioned"`)
}

// Concurrent lists while the tool set changes always answer a whole list,
// and the last one answers the last tool set.
func TestRESTListsDuringChanges(t *testing.T) {
	reg := NewRegistry()
	h := NewHandler(New(reg, reg, WithToolFilter(func(_ *http.Request, ts []Tool) []Tool { return ts[:len(ts)/2] }),
		WithLogger(discardLogger())))
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			for range 50 {
				for _, role := range []string{"", "half"} {
					r := httptest.NewRequest(http.MethodGet, "/tools", nil)
					r.Header.Set("X-Role", role)
					w := httptest.NewRecorder()
					h.ServeHTTP(w, r)
					var list []toolSummary
					assert.NoError(t, json.Unmarshal(w.Body.Bytes(), &list))
				}
			}
		})
	}
	for i := range 100 {
		reg.MustAdd(Tool{Name: fmt.Sprint("t", i)}, noop)
	}
	wg.Wait()
	var list []toolSummary
	require.NoError(t, json.Unmarshal([]byte(getList(t, h, "")), &list))
	assert.Len(t, list, 50)
}

// discardWriter is a ResponseWriter that keeps nothing, so that what a
// request allocates is the handler's alone.
type discardWriter struct{ header http.Header }

func (d *discardWriter) Header() http.Header         { return d.header }
func (d *discardWriter) Write(p []byte) (int, error) { return len(p), nil }
func (d *discardWriter) WriteHeader(int)             {}

// perRequest returns the allocations and bytes one GET /tools costs h on
// average.
func perRequest(h http.Handler) (allocs float64, bytes uint64) {
	r := httptest.NewRequest(http.MethodGet, "/tools", nil)
	w := &discardWriter{header: http.Header{}}
	serve := func() { clear(w.header); h.ServeHTTP(w, r) }
	serve() // the first request of a tool set makes the list
	allocs = testing.AllocsPerRun(50, serve)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for range 50 {
		serve()
	}
	runtime.ReadMemStats(&after)
	return allocs, (after.TotalAlloc - before.TotalAlloc) / 50
}

// GET /tools of 1,000 tools from a provider that reports its changes
// neither lists the provider's tools (320 KB per request, twice over) nor
// encodes them again: it costs what a list of one tool costs. The bounds
// are generous; docs/performance.md has the measured figures.
func TestRESTListOfAThousandToolsAllocatesAsMuchAsOfOne(t *testing.T) {
	handler := func(n int) http.Handler {
		reg := benchRegistry(n)
		return NewHandler(New(reg, reg, WithLogger(discardLogger())))
	}
	oneAllocs, oneBytes := perRequest(handler(1))
	allocs, bytes := perRequest(handler(1000))
	t.Logf("per request: %v allocations, %d bytes with 1 tool; %v allocations, %d bytes with 1,000", oneAllocs, oneBytes, allocs, bytes)
	assert.LessOrEqual(t, allocs, oneAllocs+2, "allocations per request: %v with 1 tool, %v with 1,000", oneAllocs, allocs)
	assert.Less(t, bytes, oneBytes+4096, "bytes per request: %d with 1 tool, %d with 1,000", oneBytes, bytes)
}
