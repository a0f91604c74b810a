package bench

import (
	"context"
	"encoding/json"
	"net/http"

	"github.com/toolexec/toolexec"
	"github.com/toolexec/toolexec/oxp"
)

// ToolexecREST is toolexec's REST surface: POST /tools/{name}/call.
func ToolexecREST() Contender {
	return Contender{
		Name:      "toolexec REST",
		Wire:      WireREST,
		Validates: toolexecValidates,
		New: func(g *Gate) http.Handler {
			return toolexec.NewHandler(toolexecExecutor(g))
		},
		NewList: func(n int) http.Handler {
			return toolexec.NewHandler(toolexecListExecutor(n))
		},
	}
}

// ToolexecOXP is toolexec's OXP 1.0 surface: POST /tools/call.
func ToolexecOXP() Contender {
	return Contender{
		Name:      "toolexec OXP",
		Wire:      WireOXP,
		Validates: toolexecValidates,
		New: func(g *Gate) http.Handler {
			return oxp.NewHandler(toolexecExecutor(g))
		},
		NewList: func(n int) http.Handler {
			return oxp.NewHandler(toolexecListExecutor(n))
		},
	}
}

// toolexecExecutor serves ToolAdd, ToolSum and ToolWait with execution on
// and every other option at its default.
func toolexecExecutor(g *Gate) *toolexec.Executor {
	reg := &toolexec.Registry{}
	addTyped(reg, ToolAdd, "Adds two integers.", addSchema, func(_ context.Context, in AddIn) (SumOut, error) { return add(in), nil })
	addTyped(reg, ToolSum, "Adds a list of integers.", sumSchema, func(_ context.Context, in SumIn) (SumOut, error) { return sum(in), nil })
	addTyped(reg, ToolWait, "Waits for the gate.", waitSchema, func(ctx context.Context, _ WaitIn) (SumOut, error) {
		return SumOut{}, g.wait(ctx)
	})
	return toolexec.New(reg, reg, toolexec.WithAllowExecute(true))
}

// toolexecListExecutor serves n discovery tools.
func toolexecListExecutor(n int) *toolexec.Executor {
	reg := &toolexec.Registry{}
	for i := 0; i < n; i++ {
		addTyped(reg, ListToolName(i), ListToolDescription, addSchema, func(_ context.Context, in AddIn) (SumOut, error) { return add(in), nil })
	}
	return toolexec.New(reg, reg, toolexec.WithAllowExecute(true))
}

var (
	sumSchema    = json.RawMessage(`{"type":"object","properties":{"values":{"type":"array","items":{"type":"integer"}}},"required":["values"],"additionalProperties":false}`)
	waitSchema   = json.RawMessage(`{"type":"object","additionalProperties":false}`)
	sumOutSchema = json.RawMessage(`{"type":"object","properties":{"sum":{"type":"integer"}},"required":["sum"]}`)
)

// toolexecValidates reports whether the toolexec contenders validate
// arguments: true once the validation stage is on main.
const toolexecValidates = false

// addTyped registers a tool with typed input and output. Until toolexec's
// typed tools land, it adapts the untyped handler form by hand: arguments
// re-encoded and decoded into In, Out encoded as a text block.
func addTyped[In, Out any](reg *toolexec.Registry, name, desc string, schema json.RawMessage, fn func(context.Context, In) (Out, error)) {
	reg.MustAdd(toolexec.Tool{Name: name, Description: desc, InputSchema: schema, OutputSchema: sumOutSchema},
		func(ctx context.Context, _ string, args map[string]any) ([]toolexec.Content, bool, string, error) {
			raw, err := json.Marshal(args)
			if err != nil {
				return nil, false, "", err
			}
			var in In
			if err := json.Unmarshal(raw, &in); err != nil {
				return []toolexec.Content{toolexec.Text(err.Error())}, true, "", nil
			}
			out, err := fn(ctx, in)
			if err != nil {
				return nil, false, "", err
			}
			text, err := json.Marshal(out)
			if err != nil {
				return nil, false, "", err
			}
			return []toolexec.Content{toolexec.Text(string(text))}, false, "", nil
		})
}
