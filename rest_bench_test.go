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

func benchREST(b *testing.B, n int, method, target, body string) {
	reg := NewRegistry()
	for i := range n {
		MustAddTool(reg, Tool{Name: fmt.Sprintf("tool_%d", i), Description: "Adds two integers."},
			func(_ context.Context, in benchAddIn) (benchSumOut, error) { return benchSumOut{Sum: in.A + in.B}, nil })
	}
	h := NewHandler(New(reg, reg, WithAllowExecute(true), WithLogger(discardLogger())))
	b.ReportAllocs()
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
	benchREST(b, 1, http.MethodPost, "/tools/tool_0/call", `{"a":2,"b":40}`)
}

// BenchmarkRESTList1000 is GET /tools of 1,000 tools.
func BenchmarkRESTList1000(b *testing.B) { benchREST(b, 1000, http.MethodGet, "/tools", "") }
