package mcp_test

import (
	"encoding/json"
	"net/http"
	"testing"

	"github.com/toolexec/toolexec/mcp"
)

// Whatever the body, the MCP endpoint answers in its documented shape: 202
// with no body, or JSON that is a JSON-RPC response (or a batch of them),
// and never a 500.
func FuzzMCPEndpoint(f *testing.F) {
	for _, seed := range []string{
		pingBody,
		initializeBody("2025-11-25"),
		callBody("weather_get", `{"location":"x"}`),
		callBody("explode", `{}`),
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","method":"x"}]`,
		`{"jsonrpc":"2.0","id":{"a":[1,{"b":null}]},"method":7,"params":"x"}`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"cursor":"dG9vbGV4ZWMvb2Zmc2V0Lzk5OTk5OTk5OTk5OTk5OTk5OTk5"}}`,
		`[[]]`, `[null]`, `null`, `"`, `{}`, `[]`, "\x00",
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"weather_get","arguments":{"location":"x"},` +
			`"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"elicitation":{}},` +
			`"io.modelcontextprotocol/logLevel":"info","progressToken":1},"inputResponses":{"a":{"action":"accept"}},"requestState":"e30.AAAA"}}`,
		`{"jsonrpc":"2.0","id":1,"method":"subscriptions/listen","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"},"notifications":{"toolsListChanged":true}}}`,
		`{"jsonrpc":"2.0","id":"toolexec-00","result":{"action":"accept"}}`,
		`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}`,
	} {
		f.Add(seed)
	}
	h := mcp.NewHandler(newExecutor())
	f.Fuzz(func(t *testing.T, body string) {
		rec := post(t, h, body)
		if rec.Code == http.StatusInternalServerError {
			t.Fatalf("500 for %q: %s", body, rec.Body.String())
		}
		if rec.Code == http.StatusAccepted {
			if rec.Body.Len() != 0 {
				t.Fatalf("202 with a body for %q", body)
			}
			return
		}
		var one map[string]json.RawMessage
		var many []map[string]json.RawMessage
		if json.Unmarshal(rec.Body.Bytes(), &one) != nil && json.Unmarshal(rec.Body.Bytes(), &many) != nil {
			t.Fatalf("answer to %q is not a JSON-RPC response: %s", body, rec.Body.String())
		}
		if one != nil && string(one["jsonrpc"]) != `"2.0"` && string(one["error"]) != `"Unauthorized"` {
			t.Fatalf("answer to %q lacks jsonrpc 2.0: %s", body, rec.Body.String())
		}
	})
}
