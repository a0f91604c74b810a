package mcp_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"

	"github.com/toolexec/toolexec"
	"github.com/toolexec/toolexec/mcp"
)

// Serve the tools over MCP's stdio transport, as a process an MCP client
// starts does with its standard input and output (here a fixed input, one
// message a line, and os.Stdout).
func ExampleServeStdio() {
	reg := toolexec.NewRegistry()
	reg.MustAdd(toolexec.Tool{
		Name:        "greet",
		Description: "Says hello",
		InputSchema: json.RawMessage(`{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}`),
	}, func(_ string, args map[string]any) ([]toolexec.Content, bool, string, error) {
		return []toolexec.Content{toolexec.Text(fmt.Sprintf("Hello, %v!", args["name"]))}, false, "", nil
	})
	x := toolexec.New(reg, reg, toolexec.WithAllowExecute(true))

	in := strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"greet","arguments":{"name":"Ada"}}}` + "\n")
	if err := mcp.ServeStdio(context.Background(), x, in, os.Stdout, mcp.WithServerInfo("greeter", "1.0.0")); err != nil {
		fmt.Println(err)
	}
	// Output:
	// {"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"Hello, Ada!"}],"isError":false}}
}
