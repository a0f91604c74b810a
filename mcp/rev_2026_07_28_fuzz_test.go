package mcp_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/toolexec/toolexec"
	"github.com/toolexec/toolexec/mcp"
)

// FuzzModernRequest throws arbitrary bodies and Mcp-Method, Mcp-Name and
// Mcp-Param-N headers at the MCP endpoint at 2026-07-28, for a tool that
// mirrors its n parameter into Mcp-Param-N. Whatever arrives, the answer is
// 202 with no body, or one JSON-RPC response with an error code from the
// documented set and a status that fits it; and the tool runs only for a
// 200 whose result says it did, with a header that matches n.
func FuzzModernRequest(f *testing.F) {
	meta := `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}`
	for _, seed := range []struct{ method, name, param, body string }{
		{"tools/call", "count", "1", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"count","arguments":{"n":1},` + meta + `}}`},
		{"tools/call", "count", "=?base64?MQ==?=", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"count","arguments":{"n":1},` + meta + `}}`},
		{"tools/call", "count", "2", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"count","arguments":{"n":1},` + meta + `}}`},
		{"tools/call", "=?base64?Y291bnQ=?=", "", `{"jsonrpc":"2.0","id":"x","method":"tools/call","params":{"name":"count","arguments":{},` + meta + `}}`},
		{"tools/list", "", "", `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{` + meta + `}}`},
		{"server/discover", "", "", `{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{` + meta + `}}`},
		{"ping", "", "", `{"jsonrpc":"2.0","id":1,"method":"ping"}`},
		{"tools/call", "count", "1", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"count","arguments":{"n":1e999999999},` + meta + `}}`},
		{"", "", "", `{"jsonrpc":"2.0","method":"notifications/cancelled"}`},
		{"tools/list", "", "", `[{"jsonrpc":"2.0","id":1,"method":"tools/list"}]`},
	} {
		f.Add(seed.method, seed.name, seed.param, []byte(seed.body))
	}
	var runs atomic.Int64
	reg := toolexec.NewRegistry()
	reg.MustAdd(toolexec.Tool{
		Name:        "count",
		InputSchema: json.RawMessage(`{"type":"object","properties":{"n":{"type":"integer","x-mcp-header":"N"}}}`),
	}, func(string, map[string]any) ([]toolexec.Content, bool, string, error) {
		runs.Add(1)
		return []toolexec.Content{toolexec.Text("counted")}, false, "", nil
	})
	h := mcp.NewHandler(toolexec.New(reg, reg, toolexec.WithAllowExecute(true), toolexec.WithMaxBodyBytes(4096),
		toolexec.WithLogger(quietLogger())))
	f.Fuzz(func(t *testing.T, method, name, param string, body []byte) {
		before := runs.Load()
		req := httptest.NewRequest(http.MethodPost, "/mcp", strings.NewReader(string(body)))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("MCP-Protocol-Version", "2026-07-28")
		for k, v := range map[string]string{"Mcp-Method": method, "Mcp-Name": name, "Mcp-Param-N": param} {
			if v != "" && !strings.ContainsAny(v, "\r\n\x00") {
				req.Header.Set(k, v)
			}
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		ran := runs.Load() - before
		if rec.Code == http.StatusAccepted {
			if rec.Body.Len() != 0 || ran != 0 {
				t.Fatalf("202 with a body %q or %d runs", rec.Body, ran)
			}
			return
		}
		var m struct {
			JSONRPC string          `json:"jsonrpc"`
			Result  json.RawMessage `json:"result"`
			Error   *struct{ Code int }
		}
		if err := json.Unmarshal(rec.Body.Bytes(), &m); err != nil || m.JSONRPC != "2.0" {
			t.Fatalf("status %d, not one JSON-RPC answer: %s", rec.Code, rec.Body)
		}
		if m.Error != nil {
			if !documentedCodes[m.Error.Code] {
				t.Fatalf("undocumented error: %s", rec.Body)
			}
			switch rec.Code {
			case http.StatusOK, http.StatusBadRequest, http.StatusNotFound, http.StatusRequestEntityTooLarge:
			default:
				t.Fatalf("status %d with an error: %s", rec.Code, rec.Body)
			}
			if ran != 0 {
				t.Fatalf("the tool ran, yet the answer is an error: %s", rec.Body)
			}
			return
		}
		if rec.Code != http.StatusOK || !json.Valid(m.Result) {
			t.Fatalf("status %d with a result: %s", rec.Code, rec.Body)
		}
		if ran > 0 && !strings.Contains(string(m.Result), `"counted"`) {
			t.Fatalf("the tool ran %d times, yet the result does not say so: %s", ran, rec.Body)
		}
		if ran > 1 {
			t.Fatalf("the tool ran %d times for one request", ran)
		}
	})
}
