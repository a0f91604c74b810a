package toolexec

import (
	"context"
	"fmt"
)

// ToolCallHandler executes tool calls: the three-parameter form, with the
// context first. The context carries the call's deadline and
// cancellation (it ends when the HTTP client goes away), the HTTP request
// (RequestFromContext) and anything the auth hook added.
//
// It returns the result's content blocks, whether the result is a logical
// tool error (isError), and an optional trace id ("" omits _meta). A non-nil
// error is a failed call: its message reaches the caller as an isError
// result, so it must not hold secrets.
type ToolCallHandler interface {
	HandleCall(ctx context.Context, name string, args map[string]any) (content []Content, isError bool, traceID string, err error)
}

// BasicToolCallHandler is the two-parameter form (name and arguments), for handlers
// that need neither the context nor the request. New and Registry.Add accept
// it wherever they accept a ToolCallHandler.
type BasicToolCallHandler interface {
	HandleCall(name string, args map[string]any) (content []Content, isError bool, traceID string, err error)
}

// ToolCallHandlerFunc adapts a function to ToolCallHandler.
type ToolCallHandlerFunc func(ctx context.Context, name string, args map[string]any) ([]Content, bool, string, error)

// HandleCall calls f.
func (f ToolCallHandlerFunc) HandleCall(ctx context.Context, name string, args map[string]any) ([]Content, bool, string, error) {
	return f(ctx, name, args)
}

// BasicToolCallHandlerFunc adapts a function to BasicToolCallHandler.
type BasicToolCallHandlerFunc func(name string, args map[string]any) ([]Content, bool, string, error)

// HandleCall calls f.
func (f BasicToolCallHandlerFunc) HandleCall(name string, args map[string]any) ([]Content, bool, string, error) {
	return f(name, args)
}

// basicAdapter lifts a BasicToolCallHandler to the context form; the context
// is simply not passed on.
type basicAdapter struct{ h BasicToolCallHandler }

func (a basicAdapter) HandleCall(_ context.Context, name string, args map[string]any) ([]Content, bool, string, error) {
	return a.h.HandleCall(name, args)
}

// asToolCallHandler tells the two handler forms apart by their Go types
// (the context form or the basic one, two or three parameters) and returns
// a ToolCallHandler for either. It accepts a ToolCallHandler, a
// BasicToolCallHandler, or a plain function of either signature. Anything
// else, including nil, is an error.
func asToolCallHandler(h any) (ToolCallHandler, error) {
	switch h := h.(type) {
	case nil:
		return nil, fmt.Errorf("toolexec: nil tool call handler")
	case ToolCallHandler:
		return h, nil
	case BasicToolCallHandler:
		return basicAdapter{h}, nil
	case func(context.Context, string, map[string]any) ([]Content, bool, string, error):
		return ToolCallHandlerFunc(h), nil
	case func(string, map[string]any) ([]Content, bool, string, error):
		return basicAdapter{BasicToolCallHandlerFunc(h)}, nil
	default:
		return nil, fmt.Errorf("toolexec: %T is not a tool call handler: want ToolCallHandler, BasicToolCallHandler, "+
			"or a func(ctx, name, args) / func(name, args) returning ([]Content, bool, string, error)", h)
	}
}
