package toolexec

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

type benchAddIn struct {
	A int `json:"a"`
	B int `json:"b"`
}

type benchSumOut struct {
	Sum int `json:"sum"`
}

// benchRegistry holds n typed tools, tool_0 to tool_{n-1}.
func benchRegistry(n int) *Registry {
	reg := NewRegistry()
	for i := range n {
		MustAddTool(reg, Tool{Name: fmt.Sprintf("tool_%d", i), Description: "Adds two integers."},
			func(_ context.Context, in benchAddIn) (benchSumOut, error) { return benchSumOut{Sum: in.A + in.B}, nil })
	}
	return reg
}

// unreported hides a provider's change notifications, so that surfaces
// cannot tell when its tools change.
type unreported struct{ p ToolProvider }

func (u unreported) Tools() []Tool { return u.p.Tools() }

// everyOther is a ToolFilter that shows every other tool, in a new slice.
func everyOther(_ *http.Request, tools []Tool) []Tool {
	out := make([]Tool, 0, (len(tools)+1)/2)
	for i := 0; i < len(tools); i += 2 {
		out = append(out, tools[i])
	}
	return out
}

func benchREST(b *testing.B, x *Executor, method, target, body string) {
	h := NewHandler(x)
	b.ReportAllocs()
	// A first request, not timed, makes what the handler keeps between
	// changes (an encoded list, a document).
	h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest(method, target, strings.NewReader(body)))
	for b.Loop() {
		w := httptest.NewRecorder()
		h.ServeHTTP(w, httptest.NewRequest(method, target, strings.NewReader(body)))
		if w.Code != http.StatusOK {
			b.Fatal(w.Code, w.Body.String())
		}
	}
}

// BenchmarkRESTCall is POST /tools/{name}/call of a typed tool; the
// request and recorder are part of each iteration.
func BenchmarkRESTCall(b *testing.B) {
	reg := benchRegistry(1)
	benchREST(b, New(reg, reg, WithAllowExecute(true), WithLogger(discardLogger())), http.MethodPost, "/tools/tool_0/call", `{"a":2,"b":40}`)
}

// BenchmarkRESTList1000 is GET /tools of 1,000 tools from a Registry,
// which reports its changes.
func BenchmarkRESTList1000(b *testing.B) {
	reg := benchRegistry(1000)
	benchREST(b, New(reg, reg, WithLogger(discardLogger())), http.MethodGet, "/tools", "")
}

// BenchmarkRESTList1000Filtered is BenchmarkRESTList1000 with a ToolFilter
// that shows every other tool.
func BenchmarkRESTList1000Filtered(b *testing.B) {
	reg := benchRegistry(1000)
	benchREST(b, New(reg, reg, WithToolFilter(everyOther), WithLogger(discardLogger())), http.MethodGet, "/tools", "")
}

// BenchmarkRESTList1000Unreported is BenchmarkRESTList1000 from a provider
// that does not report changes.
func BenchmarkRESTList1000Unreported(b *testing.B) {
	reg := benchRegistry(1000)
	benchREST(b, New(unreported{reg}, reg, WithLogger(discardLogger())), http.MethodGet, "/tools", "")
}

// BenchmarkOpenAPI1000 is GET /openapi.json of 1,000 tools from a
// Registry, which reports its changes: the document is kept per change.
func BenchmarkOpenAPI1000(b *testing.B) {
	reg := benchRegistry(1000)
	benchREST(b, New(reg, reg, WithLogger(discardLogger())), http.MethodGet, "/openapi.json", "")
}

// BenchmarkOpenAPI1000Filtered is BenchmarkOpenAPI1000 with a ToolFilter
// that shows every other tool: the caller's view is kept per exact list.
func BenchmarkOpenAPI1000Filtered(b *testing.B) {
	reg := benchRegistry(1000)
	benchREST(b, New(reg, reg, WithToolFilter(everyOther), WithLogger(discardLogger())), http.MethodGet, "/openapi.json", "")
}

// BenchmarkOpenAPI1000Unreported is BenchmarkOpenAPI1000 from a provider
// that does not report changes: assembled per request from the per-tool
// parts.
func BenchmarkOpenAPI1000Unreported(b *testing.B) {
	reg := benchRegistry(1000)
	benchREST(b, New(unreported{reg}, reg, WithLogger(discardLogger())), http.MethodGet, "/openapi.json", "")
}

// BenchmarkOpenAPIYAML1000 is BenchmarkOpenAPI1000's document as YAML.
func BenchmarkOpenAPIYAML1000(b *testing.B) {
	reg := benchRegistry(1000)
	benchREST(b, New(reg, reg, WithLogger(discardLogger())), http.MethodGet, "/openapi.yaml", "")
}
