package toolexec

import (
	"context"
)

// ToolResultHandler is an optional interface of a ToolCallHandler whose
// handler builds the whole CallToolResult itself, structured content and
// _meta included, rather than content blocks alone. When the Executor's
// handler implements it, the pipeline calls HandleCallResult instead of
// HandleCall; a nil result with a nil error is an empty result.
//
// Registry implements it, which is how typed tools (AddTool) return
// structuredContent. A host with its own dispatcher may implement it too.
type ToolResultHandler interface {
	HandleCallResult(ctx context.Context, name string, args map[string]any) (*CallToolResult, error)
}

// HandleCallResult implements ToolResultHandler: it runs the handler
// registered for the tool the pipeline resolved (see HandleCall) and returns
// its whole result. A typed tool's result carries its structuredContent;
// any other handler's return values become a result as NewResult maps them.
func (r *Registry) HandleCallResult(ctx context.Context, name string, args map[string]any) (*CallToolResult, error) {
	h, err := r.handlerFor(ctx, name)
	if err != nil {
		return nil, err
	}
	return callResult(ctx, h, name, args)
}

// invoke runs the Executor's handler for call and returns its result.
func (x *Executor) invoke(ctx context.Context, call *Call) (*CallToolResult, error) {
	if call.input != nil {
		return call.input.run(ctx) // a typed handler on its checked input
	}
	return callResult(ctx, x.handler, call.Tool.Name, call.Arguments)
}

// callResult asks h for a whole result when it can give one, and otherwise
// builds one from its content, isError and trace id.
func callResult(ctx context.Context, h ToolCallHandler, name string, args map[string]any) (*CallToolResult, error) {
	if rh, ok := h.(ToolResultHandler); ok {
		return rh.HandleCallResult(ctx, name, args)
	}
	content, isError, traceID, err := h.HandleCall(ctx, name, args)
	if err != nil {
		return nil, err
	}
	return NewResult(content, isError, traceID), nil
}
