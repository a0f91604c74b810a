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

// countingExecutor serves one tool, "count" (n: an integer from 0 to 1000,
// nothing else), that answers the text "counted" and counts its runs. Its
// body limit is small so the fuzzer reaches it.
func countingExecutor(runs *atomic.Int64) *toolexec.Executor {
	reg := toolexec.NewRegistry()
	reg.MustAdd(toolexec.Tool{
		Name:        "count",
		InputSchema: json.RawMessage(`{"type":"object","properties":{"n":{"type":"integer","minimum":0,"maximum":1000}},"required":["n"],"additionalProperties":false}`),
	}, func(string, map[string]any) ([]toolexec.Content, bool, string, error) {
		runs.Add(1)
		return []toolexec.Content{toolexec.Text("counted")}, false, "", nil
	})
	return toolexec.New(reg, reg, toolexec.WithAllowExecute(true), toolexec.WithMaxBodyBytes(4096), toolexec.WithLogger(quietLogger()))
}

// documentedCodes are the JSON-RPC error codes the MCP surface may answer
// with when nothing on the server is broken: -32603 (internal error) is not
// among them, so a fuzzer that provokes one has found a bug.
var documentedCodes = map[int]bool{
	mcp.CodeParseError: true, mcp.CodeInvalidRequest: true, mcp.CodeMethodNotFound: true,
	mcp.CodeInvalidParams: true, mcp.CodeRequestRejected: true, mcp.CodeExecutionDisabled: true,
	mcp.CodeHeaderMismatch: true, mcp.CodeUnsupportedProtocolVersion: true,
}

// FuzzJSONRPCEnvelope throws arbitrary bodies and MCP-Protocol-Version
// headers at the MCP endpoint. Whatever arrives, the answer is 202 with no
// body, or a 200/400/413 whose body is one JSON-RPC 2.0 response (or, with
// 200, a batch of them) with an id and exactly one of result and error, an
// error code from the documented set, and the tool ran exactly as many times
// as the answer holds results of its runs.
func FuzzJSONRPCEnvelope(f *testing.F) {
	for _, seed := range []struct{ version, body string }{
		{"", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"count","arguments":{"n":1}}}`},
		{"2025-11-25", `{"jsonrpc":"2.0","id":"a","method":"tools/call","params":{"name":"count","arguments":{"n":"1"}}}`},
		{"", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"count","arguments":{"n":1e400}}}`},
		{"", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"count","arguments":{"n":"x","n":2}}}`},
		{"", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"count","arguments":[1]}}`},
		{"", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":["count"]}`},
		{"", `[{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"count","arguments":{"n":1}}},{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"count","arguments":{"n":2}}},{"jsonrpc":"2.0","method":"notifications/initialized"}]`},
		{"2025-06-18", `[{"jsonrpc":"2.0","id":1,"method":"ping"}]`},
		{"", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-03-26"}}`},
		{"", `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"cursor":"x"}}`},
		{"", `{"jsonrpc":"2.0","id":1,"result":{}}`},
		{"", `{"jsonrpc":"2.0","id":null,"method":"ping"}`},
		{"", `{"jsonrpc":"2.0","id":1e400,"method":"ping"}`},
		{"", `{"jsonrpc":"1.0","id":1,"method":"ping"}`},
		{"1999-01-01", `{"jsonrpc":"2.0","id":1,"method":"ping"}`},
		{"2026-07-28", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"count","arguments":{"n":1},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`},
		{"2026-07-28", `{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}`},
		{"", `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}`},
		{"", `[]`},
		{"", ``},
		{"", "\xff\xfe"},
		{"", strings.Repeat("[", 10000) + strings.Repeat("]", 10000)},
	} {
		f.Add(seed.version, []byte(seed.body))
	}
	var runs atomic.Int64
	h := mcp.NewHandler(countingExecutor(&runs))
	f.Fuzz(func(t *testing.T, version string, body []byte) {
		before := runs.Load()
		req := httptest.NewRequest(http.MethodPost, "/mcp", strings.NewReader(string(body)))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		if version != "" && !strings.ContainsAny(version, "\r\n\x00") {
			req.Header.Set("MCP-Protocol-Version", version)
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		ran := runs.Load() - before

		switch rec.Code {
		case http.StatusAccepted:
			if rec.Body.Len() != 0 || ran != 0 {
				t.Fatalf("202 with a body %q or %d runs", rec.Body, ran)
			}
			return
		case http.StatusOK, http.StatusBadRequest, http.StatusNotFound, http.StatusRequestEntityTooLarge:
		default:
			t.Fatalf("status %d: %s", rec.Code, rec.Body)
		}
		if ct := rec.Header().Get("Content-Type"); ct != "application/json" {
			t.Fatalf("Content-Type %q", ct)
		}
		var msgs []map[string]json.RawMessage
		if err := json.Unmarshal(rec.Body.Bytes(), &msgs); err != nil {
			var one map[string]json.RawMessage
			if err := json.Unmarshal(rec.Body.Bytes(), &one); err != nil {
				t.Fatalf("not a JSON-RPC answer: %s", rec.Body)
			}
			msgs = []map[string]json.RawMessage{one}
		} else if rec.Code != http.StatusOK || len(msgs) == 0 {
			t.Fatalf("a batch answer with status %d: %s", rec.Code, rec.Body)
		}
		var counted int64
		for _, m := range msgs {
			if string(m["jsonrpc"]) != `"2.0"` {
				t.Fatalf("jsonrpc is not 2.0: %s", rec.Body)
			}
			if _, ok := m["id"]; !ok {
				t.Fatalf("a response without an id: %s", rec.Body)
			}
			result, hasResult := m["result"]
			rawErr, hasError := m["error"]
			if hasResult == hasError {
				t.Fatalf("not exactly one of result and error: %s", rec.Body)
			}
			if hasError {
				var e struct{ Code int }
				if json.Unmarshal(rawErr, &e) != nil || !documentedCodes[e.Code] {
					t.Fatalf("undocumented error: %s", rawErr)
				}
				switch {
				case rec.Code == http.StatusOK:
				case rec.Code == http.StatusNotFound && e.Code == mcp.CodeMethodNotFound && version == "2026-07-28":
				case rec.Code == http.StatusBadRequest && (e.Code == mcp.CodeParseError || e.Code == mcp.CodeInvalidRequest ||
					e.Code == mcp.CodeHeaderMismatch || e.Code == mcp.CodeUnsupportedProtocolVersion ||
					(e.Code == mcp.CodeInvalidParams && version == "2026-07-28")):
				case rec.Code == http.StatusRequestEntityTooLarge && e.Code == mcp.CodeRequestRejected:
				default:
					t.Fatalf("status %d with code %d", rec.Code, e.Code)
				}
				continue
			}
			var res struct {
				Content []struct{ Text string }
				IsError bool
			}
			if json.Unmarshal(result, &res) == nil && !res.IsError && len(res.Content) == 1 && res.Content[0].Text == "counted" {
				counted++
			}
		}
		if counted != ran {
			t.Fatalf("the tool ran %d times but the answer shows %d runs: %s", ran, counted, rec.Body)
		}
	})
}

// FuzzHandsAICall throws arbitrary bodies at HandsAI's POST .../tools/call.
// Whatever arrives, the answer is a 200 (or 413) HandsAI envelope with
// jsonrpc 2.0 and exactly one of result and error, the error's code is one
// HandsAI clients know (never -32603: the tool never fails), and the tool
// ran exactly when the answer is its result.
func FuzzHandsAICall(f *testing.F) {
	for _, seed := range []string{
		`{"jsonrpc":"2.0","method":"tools/call","params":{"name":"count","arguments":{"n":1}},"id":"h-1"}`,
		`{"jsonrpc":"2.0","method":"tools/call","params":{"name":"count","arguments":{"n":1001}},"id":7}`,
		`{"params":{"name":"count","arguments":{"n":1}}}`,
		`{"jsonrpc":"2.0","method":"tools/call","params":{"name":"count","arguments":{"n":1e400}}}`,
		`{"jsonrpc":"2.0","method":"tools/call","params":{"name":"count","arguments":"x"}}`,
		`{"jsonrpc":"2.0","method":"tools/list","params":{"name":"count"}}`,
		`{"jsonrpc":"2.0","method":"tools/call","params":null,"id":null}`,
		`{"jsonrpc":"2.0","method":"tools/call","params":{"name":1}}`,
		`{"jsonrpc":"2.0","method":"tools/call","params":{"name":"count"},"id":{}}`,
		`[{"jsonrpc":"2.0"}]`,
		`null`, ``, "\xff", `{`,
	} {
		f.Add([]byte(seed))
	}
	var runs atomic.Int64
	h := mcp.NewHandler(countingExecutor(&runs))
	f.Fuzz(func(t *testing.T, body []byte) {
		before := runs.Load()
		req := httptest.NewRequest(http.MethodPost, "/mcp/tools/call", strings.NewReader(string(body)))
		req.Header.Set("Content-Type", "application/json")
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		ran := runs.Load() - before

		if rec.Code != http.StatusOK && rec.Code != http.StatusRequestEntityTooLarge {
			t.Fatalf("status %d: %s", rec.Code, rec.Body)
		}
		var m map[string]json.RawMessage
		if err := json.Unmarshal(rec.Body.Bytes(), &m); err != nil {
			t.Fatalf("not a HandsAI envelope: %s", rec.Body)
		}
		if string(m["jsonrpc"]) != `"2.0"` {
			t.Fatalf("jsonrpc is not 2.0: %s", rec.Body)
		}
		result, hasResult := m["result"]
		rawErr, hasError := m["error"]
		if hasResult == hasError {
			t.Fatalf("not exactly one of result and error: %s", rec.Body)
		}
		if hasError {
			var e struct{ Code int }
			if json.Unmarshal(rawErr, &e) != nil || e.Code == mcp.CodeInternalError || !documentedCodes[e.Code] {
				t.Fatalf("undocumented error: %s", rawErr)
			}
			if ran != 0 {
				t.Fatalf("an error answer, yet the tool ran: %s", rec.Body)
			}
			return
		}
		var res struct{ Content []struct{ Text string } }
		if json.Unmarshal(result, &res) != nil || len(res.Content) != 1 || res.Content[0].Text != "counted" || ran != 1 {
			t.Fatalf("a result %s after %d runs", result, ran)
		}
	})
}
