package bench

import (
	"context"
	"net/http"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// GoSDK is the official MCP Go SDK's Streamable HTTP handler, stateless,
// answering with JSON instead of an event stream: the configuration its
// documentation gives for a server that keeps no sessions. Its tools are
// typed (mcp.AddTool), so it infers their schemas and validates every
// call's arguments, as it always does for typed tools.
func GoSDK() Contender {
	return Contender{
		Name:      "go-sdk",
		Wire:      WireJSONRPC,
		Validates: true,
		New: func(g *Gate) http.Handler {
			s := newGoSDKServer()
			mcp.AddTool(s, &mcp.Tool{Name: ToolAdd, Description: "Adds two integers."},
				func(_ context.Context, _ *mcp.CallToolRequest, in AddIn) (*mcp.CallToolResult, SumOut, error) {
					return nil, g.add(in), nil
				})
			mcp.AddTool(s, &mcp.Tool{Name: ToolSum, Description: "Adds a list of integers."},
				func(_ context.Context, _ *mcp.CallToolRequest, in SumIn) (*mcp.CallToolResult, SumOut, error) {
					return nil, g.sum(in), nil
				})
			mcp.AddTool(s, &mcp.Tool{Name: ToolWait, Description: "Waits for the gate."},
				func(ctx context.Context, _ *mcp.CallToolRequest, _ WaitIn) (*mcp.CallToolResult, SumOut, error) {
					return nil, SumOut{}, g.wait(ctx)
				})
			return goSDKHandler(s)
		},
		NewList: func(n int) http.Handler {
			s := newGoSDKServer()
			for i := 0; i < n; i++ {
				mcp.AddTool(s, &mcp.Tool{Name: ListToolName(i), Description: ListToolDescription},
					func(_ context.Context, _ *mcp.CallToolRequest, in AddIn) (*mcp.CallToolResult, SumOut, error) {
						return nil, add(in), nil
					})
			}
			return goSDKHandler(s)
		},
	}
}

func newGoSDKServer() *mcp.Server {
	return mcp.NewServer(&mcp.Implementation{Name: "bench", Version: "1.0.0"}, nil)
}

func goSDKHandler(s *mcp.Server) http.Handler {
	return mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s },
		&mcp.StreamableHTTPOptions{Stateless: true, JSONResponse: true})
}
