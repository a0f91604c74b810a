package mcp_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"time"

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

// A typed tool over MCP: its outputSchema is inferred from the Go type, a
// call answers structuredContent plus the same JSON as text, and arguments
// that break the inferred inputSchema come back as an isError result listing
// each failure as "/path: message". (The failure list is not repeated in
// structuredContent, which clients check against the outputSchema.)
func ExampleNewHandler_typedTool() {
	type in struct {
		City string `json:"city"`
	}
	type out struct {
		City         string  `json:"city"`
		TemperatureC float64 `json:"temperatureC"`
	}
	reg := toolexec.NewRegistry()
	toolexec.MustAddTool(reg, toolexec.Tool{Name: "forecast"}, func(_ context.Context, in in) (out, error) {
		return out{City: in.City, TemperatureC: 21.5}, nil
	})
	h := mcp.NewHandler(toolexec.New(reg, reg, toolexec.WithAllowExecute(true)))

	for _, args := range []string{`{"city":"Oslo"}`, `{"city":7,"days":2}`} {
		req := httptest.NewRequest(http.MethodPost, "/mcp", strings.NewReader(
			`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"forecast","arguments":`+args+`}}`))
		req.Header.Set("Content-Type", "application/json")
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		fmt.Print(rec.Body.String())
	}
	// Output:
	// {"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"{\"city\":\"Oslo\",\"temperatureC\":21.5}"}],"structuredContent":{"city":"Oslo","temperatureC":21.5},"isError":false}}
	// {"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"/city: got number, want string\n/days: additional properties 'days' not allowed"}],"isError":true}}
}

// A request at MCP 2026-07-28 needs no initialize: it names its version in
// the MCP-Protocol-Version header and in _meta, mirrors its method and tool
// name into Mcp-Method and Mcp-Name, and gets a result marked complete that
// names the server. The same handler keeps answering the 2025 versions.
func ExampleNewHandler_stateless() {
	reg := toolexec.NewRegistry()
	reg.MustAdd(toolexec.Tool{Name: "greet", Description: "Says hello"},
		func(_ string, args map[string]any) ([]toolexec.Content, bool, string, error) {
			return []toolexec.Content{toolexec.Text(fmt.Sprintf("Hello, %v!", args["name"]))}, false, "", nil
		})
	h := mcp.NewHandler(toolexec.New(reg, reg, toolexec.WithAllowExecute(true)),
		mcp.WithServerInfo("greeter", "1.0.0"),
		mcp.WithCacheHints(5*time.Minute, mcp.CachePublic))

	const meta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}`
	for _, c := range []struct{ method, name, params string }{
		{"tools/list", "", `{` + meta + `}`},
		{"tools/call", "greet", `{"name":"greet","arguments":{"name":"Ada"},` + meta + `}`},
	} {
		req := httptest.NewRequest(http.MethodPost, "/mcp", strings.NewReader(
			`{"jsonrpc":"2.0","id":1,"method":"`+c.method+`","params":`+c.params+`}`))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("MCP-Protocol-Version", "2026-07-28")
		req.Header.Set("Mcp-Method", c.method)
		if c.name != "" {
			req.Header.Set("Mcp-Name", c.name)
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		fmt.Print(rec.Body.String())
	}
	// Output:
	// {"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","tools":[{"name":"greet","description":"Says hello","inputSchema":{"type":"object"}}],"ttlMs":300000,"cacheScope":"public","_meta":{"io.modelcontextprotocol/serverInfo":{"name":"greeter","version":"1.0.0"}}}}
	// {"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","content":[{"type":"text","text":"Hello, Ada!"}],"isError":false,"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"greeter","version":"1.0.0"}}}}
}
