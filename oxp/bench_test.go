package oxp_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/toolexec/toolexec"
	"github.com/toolexec/toolexec/oxp"
)

// benchCall measures one POST /tools/call through the whole OXP handler,
// with n tools registered (each with an input schema, as real tools have)
// and the call naming the last one, by its latest version.
func benchCall(b *testing.B, n int) {
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
	b.ReportAllocs()
	for b.Loop() {
		r := httptest.NewRequest(http.MethodPost, "/tools/call", strings.NewReader(body))
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		if w.Code != http.StatusOK || !strings.Contains(w.Body.String(), `"success":true`) {
			b.Fatalf("%d %s", w.Code, w.Body)
		}
	}
}

func BenchmarkCall1Tool(b *testing.B)     { benchCall(b, 1) }
func BenchmarkCall100Tools(b *testing.B)  { benchCall(b, 100) }
func BenchmarkCall1000Tools(b *testing.B) { benchCall(b, 1000) }
