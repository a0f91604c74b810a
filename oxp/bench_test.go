package oxp_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/toolexec/toolexec"
	"github.com/toolexec/toolexec/oxp"
)

// callHandler serves n tools, Kit.Tool0 to Kit.Tool{n-1}, each with an
// input schema, as real tools have, and returns a POST /tools/call that
// calls the last one by its latest version.
func callHandler(n int) (http.Handler, func() *http.Request) {
	reg := &toolexec.Registry{}
	schema := []byte(`{"type":"object","properties":{"city":{"type":"string"}}}`)
	for i := range n {
		reg.MustAdd(toolexec.Tool{Name: fmt.Sprintf("Kit.Tool%d", i), Version: "1.0.0", InputSchema: schema},
			func(context.Context, string, map[string]any) ([]toolexec.Content, bool, string, error) {
				return []toolexec.Content{toolexec.Text("ok")}, false, "", nil
			})
	}
	h := oxp.NewHandler(toolexec.New(reg, reg, toolexec.WithAllowExecute(true), toolexec.WithLogger(discardLogger())))
	body := fmt.Sprintf(`{"tool_id": "Kit.Tool%d", "call_id": "c", "input": {"city": "Oslo"}}`, n-1)
	return h, func() *http.Request {
		return httptest.NewRequest(http.MethodPost, "/tools/call", strings.NewReader(body))
	}
}

// TestACallAllocatesAsMuchWithManyToolsAsWithOne: resolving the tool id
// builds nothing per tool, whatever the provider holds (it used to build
// the whole catalog).
func TestACallAllocatesAsMuchWithManyToolsAsWithOne(t *testing.T) {
	allocs := func(n int) float64 {
		h, req := callHandler(n)
		return testing.AllocsPerRun(20, func() {
			w := httptest.NewRecorder()
			h.ServeHTTP(w, req())
			if w.Code != http.StatusOK {
				t.Fatalf("%d %s", w.Code, w.Body)
			}
		})
	}
	one, many := allocs(1), allocs(500)
	assert.LessOrEqual(t, many, one+2, "allocations per call: %v with 1 tool, %v with 500", one, many)
}

// benchCall measures one POST /tools/call through the whole OXP handler,
// with n tools registered (see callHandler).
func benchCall(b *testing.B, n int) {
	h, req := callHandler(n)
	b.ReportAllocs()
	for b.Loop() {
		w := httptest.NewRecorder()
		h.ServeHTTP(w, req())
		if w.Code != http.StatusOK || !strings.Contains(w.Body.String(), `"success":true`) {
			b.Fatalf("%d %s", w.Code, w.Body)
		}
	}
}

func BenchmarkCall1Tool(b *testing.B)     { benchCall(b, 1) }
func BenchmarkCall100Tools(b *testing.B)  { benchCall(b, 100) }
func BenchmarkCall1000Tools(b *testing.B) { benchCall(b, 1000) }

// listHandler serves n tools, as callHandler does, with opts on the
// Executor; unreported hides the Registry's change notifications.
func listHandler(n int, unreported bool, opts ...toolexec.Option) http.Handler {
	reg := &toolexec.Registry{}
	schema := []byte(`{"type":"object","properties":{"city":{"type":"string"}}}`)
	for i := range n {
		reg.MustAdd(toolexec.Tool{Name: fmt.Sprintf("Kit.Tool%d", i), Version: "1.0.0", InputSchema: schema},
			func(context.Context, string, map[string]any) ([]toolexec.Content, bool, string, error) {
				return nil, false, "", nil
			})
	}
	var p toolexec.ToolProvider = reg
	if unreported {
		p = toolsOnly{reg}
	}
	return oxp.NewHandler(toolexec.New(p, reg, append([]toolexec.Option{toolexec.WithLogger(discardLogger())}, opts...)...))
}

// toolsOnly hides a provider's change notifications.
type toolsOnly struct{ p toolexec.ToolProvider }

func (t toolsOnly) Tools() []toolexec.Tool { return t.p.Tools() }

// everyOther is a ToolFilter that shows every other tool, in a new slice.
func everyOther(_ *http.Request, tools []toolexec.Tool) []toolexec.Tool {
	out := make([]toolexec.Tool, 0, (len(tools)+1)/2)
	for i := 0; i < len(tools); i += 2 {
		out = append(out, tools[i])
	}
	return out
}

func benchList(b *testing.B, h http.Handler) {
	b.ReportAllocs()
	for b.Loop() {
		w := httptest.NewRecorder()
		h.ServeHTTP(w, httptest.NewRequest(http.MethodGet, "/tools", nil))
		if w.Code != http.StatusOK {
			b.Fatalf("%d %s", w.Code, w.Body)
		}
	}
}

// BenchmarkList1000Tools is GET /tools of 1,000 tools from a Registry,
// which reports its changes.
func BenchmarkList1000Tools(b *testing.B) { benchList(b, listHandler(1000, false)) }

// BenchmarkList1000ToolsFiltered is BenchmarkList1000Tools with a
// ToolFilter that shows every other tool.
func BenchmarkList1000ToolsFiltered(b *testing.B) {
	benchList(b, listHandler(1000, false, toolexec.WithToolFilter(everyOther)))
}

// BenchmarkList1000ToolsUnreported is BenchmarkList1000Tools from a
// provider that does not report changes.
func BenchmarkList1000ToolsUnreported(b *testing.B) { benchList(b, listHandler(1000, true)) }
