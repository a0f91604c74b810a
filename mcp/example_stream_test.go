package mcp_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"

	"github.com/toolexec/toolexec"
	"github.com/toolexec/toolexec/mcp"
)

// A tool reports progress through its context. A client that sends a
// progressToken (and accepts text/event-stream) gets the answer as an SSE
// stream: the notifications/progress, then the response. Without a token
// the same call is answered with plain JSON.
func ExampleNewHandler_progress() {
	reg := toolexec.NewRegistry()
	reg.MustAdd(toolexec.Tool{Name: "import", Description: "Imports three files"},
		func(ctx context.Context, _ string, _ map[string]any) ([]toolexec.Content, bool, string, error) {
			for i := 1; i <= 3; i++ {
				_ = toolexec.ReportProgress(ctx, toolexec.Progress{Progress: float64(i), Total: 3})
			}
			return []toolexec.Content{toolexec.Text("imported")}, false, "", nil
		})
	h := mcp.NewHandler(toolexec.New(reg, reg, toolexec.WithAllowExecute(true)))

	req := httptest.NewRequest(http.MethodPost, "/mcp", strings.NewReader(
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"import","_meta":{"progressToken":"t1"}}}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	fmt.Println(rec.Header().Get("Content-Type"))
	// Each event's id is the stream's own (random) id and the event's place
	// in the stream's log: a client that loses the stream resumes it with
	// GET and Last-Event-ID.
	fmt.Print(regexp.MustCompile(`s-[0-9a-f]{16}-[0-9a-f]{32}`).ReplaceAllString(rec.Body.String(), "STREAM"))
	// Output:
	// text/event-stream
	// id: STREAM_2
	// event: message
	// data: {"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"t1","progress":1,"total":3}}
	//
	// id: STREAM_3
	// event: message
	// data: {"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"t1","progress":2,"total":3}}
	//
	// id: STREAM_4
	// event: message
	// data: {"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"t1","progress":3,"total":3}}
	//
	// id: STREAM_5
	// event: message
	// data: {"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"imported"}],"isError":false}}
}

// On protocol 2026-07-28 a tool that asks for input makes the call answer
// with an input-required result. The client retries with the answers and
// the signed requestState, and the tool runs again, this time getting its
// answer. Replicas that share a store (toolexec.WithStore), or are given
// the same WithInputStateKey, can each take a round.
func ExampleNewHandler_inputRequired() {
	reg := toolexec.NewRegistry()
	reg.MustAdd(toolexec.Tool{Name: "greet", Description: "Greets the user by name"},
		func(ctx context.Context, _ string, _ map[string]any) ([]toolexec.Content, bool, string, error) {
			res, err := toolexec.Elicit(ctx, "user_name", toolexec.ElicitRequest{
				Message:         "What is your name?",
				RequestedSchema: json.RawMessage(`{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}`),
			})
			if err != nil {
				return nil, false, "", err // toolexec.ErrInputRequired on the first round
			}
			return []toolexec.Content{toolexec.Text(fmt.Sprintf("Hello, %v!", res.Content["name"]))}, false, "", nil
		})
	h := mcp.NewHandler(toolexec.New(reg, reg, toolexec.WithAllowExecute(true)),
		mcp.WithInputStateKey([]byte("a 32-byte secret shared by every replica")))

	call := func(extra string) map[string]any {
		req := httptest.NewRequest(http.MethodPost, "/mcp", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"greet",`+
			`"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"elicitation":{}}}`+extra+`}}`))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("MCP-Protocol-Version", "2026-07-28")
		req.Header.Set("Mcp-Method", "tools/call")
		req.Header.Set("Mcp-Name", "greet")
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		var resp struct{ Result map[string]any }
		_ = json.Unmarshal(rec.Body.Bytes(), &resp)
		return resp.Result
	}
	first := call("")
	asked, _ := json.Marshal(first["inputRequests"])
	fmt.Println(first["resultType"])
	fmt.Println(string(asked))

	second := call(fmt.Sprintf(`,"inputResponses":{"user_name":{"action":"accept","content":{"name":"Ada"}}},"requestState":%q`, first["requestState"]))
	fmt.Println(second["content"])
	// Output:
	// input_required
	// {"user_name":{"method":"elicitation/create","params":{"message":"What is your name?","requestedSchema":{"properties":{"name":{"type":"string"}},"required":["name"],"type":"object"}}}}
	// [map[text:Hello, Ada! type:text]]
}
