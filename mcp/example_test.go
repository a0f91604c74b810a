package mcp_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"

	"github.com/toolexec/toolexec"
	"github.com/toolexec/toolexec/mcp"
)

// Mount the MCP surface at /mcp and call a tool the way any MCP client does:
// one JSON-RPC request per POST, no initialize needed.
func ExampleNewHandler() {
	reg := toolexec.NewRegistry()
	reg.MustAdd(toolexec.Tool{
		Name:        "greet",
		Description: "Says hello",
		InputSchema: json.RawMessage(`{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}`),
	}, func(_ string, args map[string]any) ([]toolexec.Content, bool, string, error) {
		return []toolexec.Content{toolexec.Text(fmt.Sprintf("Hello, %v!", args["name"]))}, false, "", nil
	})
	x := toolexec.New(reg, reg, toolexec.WithAllowExecute(true))

	mux := http.NewServeMux()
	mux.Handle("/mcp", mcp.NewHandler(x, mcp.WithServerInfo("greeter", "1.0.0")))
	srv := httptest.NewServer(mux)
	defer srv.Close()

	req, _ := http.NewRequest(http.MethodPost, srv.URL+"/mcp", strings.NewReader(
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"greet","arguments":{"name":"Ada"}}}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		panic(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	fmt.Println(resp.Status)
	fmt.Print(string(body))
	// Output:
	// 200 OK
	// {"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"Hello, Ada!"}],"isError":false}}
}

// The HandsAI-compatible routes sit under the same mount point: GET
// .../tools/list and POST .../tools/call.
func ExampleNewHandler_handsAI() {
	reg := toolexec.NewRegistry()
	reg.MustAdd(toolexec.Tool{Name: "weather_get", Description: "Current weather"},
		func(string, map[string]any) ([]toolexec.Content, bool, string, error) {
			return []toolexec.Content{toolexec.Text(`{"temperature": 18}`)}, false, "", nil
		})
	x := toolexec.New(reg, reg, toolexec.WithAllowExecute(true))

	mux := http.NewServeMux()
	mux.Handle("/mcp/", mcp.NewHandler(x))
	srv := httptest.NewServer(mux)
	defer srv.Close()

	resp, err := http.Post(srv.URL+"/mcp/tools/call", "application/json", strings.NewReader(
		`{"jsonrpc":"2.0","method":"tools/call","params":{"name":"weather_get","arguments":{"location":"Lima"}},"id":"w-1"}`))
	if err != nil {
		panic(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	fmt.Print(string(body))
	// Output:
	// {"jsonrpc":"2.0","result":{"content":[{"type":"text","text":"{\"temperature\": 18}"}]},"id":"w-1"}
}
