package bench

import (
	"context"
	"net/http"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// MCPGo is mark3labs/mcp-go's Streamable HTTP server in stateless mode
// (server.WithStateLess), with typed tools (schemas from Go types,
// structured output plus a JSON text block). It does not validate
// arguments against the schema: that is opt-in and off by default.
func MCPGo() Contender { return mcpGo("mcp-go", false) }

// MCPGoValidating is MCPGo with its opt-in input validation turned on
// (server.WithInputSchemaValidation), doing the same work toolexec does by
// default.
func MCPGoValidating() Contender { return mcpGo("mcp-go+validation", true) }

func mcpGo(name string, validate bool) Contender {
	opts := []server.ServerOption{server.WithToolCapabilities(false)}
	if validate {
		opts = append(opts, server.WithInputSchemaValidation())
	}
	return Contender{
		Name:      name,
		Wire:      WireJSONRPC,
		Validates: validate,
		New: func(g *Gate) http.Handler {
			s := server.NewMCPServer("bench", "1.0.0", opts...)
			s.AddTool(mcp.NewTool(ToolAdd, mcp.WithDescription("Adds two integers."),
				mcp.WithInputSchema[AddIn](), mcp.WithOutputSchema[SumOut]()),
				mcp.NewStructuredToolHandler(func(_ context.Context, _ mcp.CallToolRequest, in AddIn) (SumOut, error) {
					return g.add(in), nil
				}))
			s.AddTool(mcp.NewTool(ToolSum, mcp.WithDescription("Adds a list of integers."),
				mcp.WithInputSchema[SumIn](), mcp.WithOutputSchema[SumOut]()),
				mcp.NewStructuredToolHandler(func(_ context.Context, _ mcp.CallToolRequest, in SumIn) (SumOut, error) {
					return g.sum(in), nil
				}))
			s.AddTool(mcp.NewTool(ToolWait, mcp.WithDescription("Waits for the gate."),
				mcp.WithInputSchema[WaitIn](), mcp.WithOutputSchema[SumOut]()),
				mcp.NewStructuredToolHandler(func(ctx context.Context, _ mcp.CallToolRequest, _ WaitIn) (SumOut, error) {
					return SumOut{}, g.wait(ctx)
				}))
			return server.NewStreamableHTTPServer(s, server.WithStateLess(true))
		},
		NewList: func(n int) http.Handler {
			s := server.NewMCPServer("bench", "1.0.0", opts...)
			h := mcp.NewStructuredToolHandler(func(_ context.Context, _ mcp.CallToolRequest, in AddIn) (SumOut, error) {
				return add(in), nil
			})
			for i := 0; i < n; i++ {
				s.AddTool(mcp.NewTool(ListToolName(i), mcp.WithDescription(ListToolDescription),
					mcp.WithInputSchema[AddIn](), mcp.WithOutputSchema[SumOut]()), h)
			}
			return server.NewStreamableHTTPServer(s, server.WithStateLess(true))
		},
	}
}
