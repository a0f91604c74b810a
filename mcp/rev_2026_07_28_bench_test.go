package mcp_test

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/toolexec/toolexec/mcp"
)

// BenchmarkToolsCallModern is BenchmarkToolsCall at MCP 2026-07-28: the
// same call with its _meta, headers, resultType and serverInfo.
func BenchmarkToolsCallModern(b *testing.B) {
	body := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"add","arguments":{"a":1,"b":2},"_meta":` + validMeta + `}}`
	want := `{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","content":[{"type":"text","text":"{\"sum\":3}"}],"structuredContent":{"sum":3},"isError":false,"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"b","version":"1"}}}}`
	h := mcp.NewHandler(addExecutor(), mcp.WithServerInfo("b", "1"))
	rd := strings.NewReader(body)
	req := httptest.NewRequest(http.MethodPost, "/mcp", rd)
	for k, v := range map[string]string{"Content-Type": "application/json", "Accept": "application/json, text/event-stream",
		"MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/call", "Mcp-Name": "add"} {
		req.Header.Set(k, v)
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	if rec.Code != http.StatusOK || strings.TrimSpace(rec.Body.String()) != want {
		b.Fatalf("%d %s", rec.Code, rec.Body.String())
	}
	b.ReportAllocs()
	for b.Loop() {
		rd.Reset(body)
		req.Body = readCloser{rd}
		h.ServeHTTP(httptest.NewRecorder(), req)
	}
}
