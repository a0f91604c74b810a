package bench

import (
	"context"
	"net/http"

	"github.com/toolexec/toolexec"
	"github.com/toolexec/toolexec/mcp"
	"github.com/toolexec/toolexec/oxp"
)

// toolexec's contenders all serve the same Executor: typed tools
// (toolexec.AddTool, schemas inferred from the Go types), execution on, and
// every other option at its default, which includes validating every
// call's arguments against the tool's input schema and its structured
// result against the output schema.

// ToolexecREST is toolexec's REST surface: POST /tools/{name}/call.
func ToolexecREST() Contender {
	return toolexecContender("toolexec REST", WireREST, toolexec.NewHandler)
}

// ToolexecMCP is toolexec's MCP surface (package mcp): tools/call on
// stateless Streamable HTTP, answered with JSON.
func ToolexecMCP() Contender {
	return toolexecContender("toolexec MCP", WireJSONRPC, func(x *toolexec.Executor) http.Handler {
		return mcp.NewHandler(x)
	})
}

// ToolexecOXP is toolexec's OXP 1.0 surface (package oxp): POST /tools/call.
func ToolexecOXP() Contender {
	return toolexecContender("toolexec OXP", WireOXP, func(x *toolexec.Executor) http.Handler {
		return oxp.NewHandler(x)
	})
}

func toolexecContender(name string, w Wire, surface func(*toolexec.Executor) http.Handler) Contender {
	return Contender{
		Name:      name,
		Wire:      w,
		Validates: true,
		New:       func(g *Gate) http.Handler { return surface(toolexecExecutor(g)) },
		NewList:   func(n int) http.Handler { return surface(toolexecListExecutor(n)) },
	}
}

// toolexecExecutor serves ToolAdd, ToolSum and ToolWait.
func toolexecExecutor(g *Gate) *toolexec.Executor {
	reg := &toolexec.Registry{}
	toolexec.MustAddTool(reg, toolexec.Tool{Name: ToolAdd, Description: "Adds two integers."},
		func(_ context.Context, in AddIn) (SumOut, error) { return g.add(in), nil })
	toolexec.MustAddTool(reg, toolexec.Tool{Name: ToolSum, Description: "Adds a list of integers."},
		func(_ context.Context, in SumIn) (SumOut, error) { return g.sum(in), nil })
	toolexec.MustAddTool(reg, toolexec.Tool{Name: ToolWait, Description: "Waits for the gate."},
		func(ctx context.Context, _ WaitIn) (SumOut, error) { return SumOut{}, g.wait(ctx) })
	return toolexec.New(reg, reg, toolexec.WithAllowExecute(true))
}

// toolexecListExecutor serves n discovery tools.
func toolexecListExecutor(n int) *toolexec.Executor {
	reg := &toolexec.Registry{}
	for i := 0; i < n; i++ {
		toolexec.MustAddTool(reg, toolexec.Tool{Name: ListToolName(i), Description: ListToolDescription},
			func(_ context.Context, in AddIn) (SumOut, error) { return add(in), nil })
	}
	return toolexec.New(reg, reg, toolexec.WithAllowExecute(true))
}
