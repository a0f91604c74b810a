package toolexec

import (
	"context"
	"fmt"
	"runtime/debug"
)

// InputTransform rewrites a call's arguments before they are validated: the
// map it returns replaces call.Arguments for every later stage (validation,
// the cache key, the handler); nil stands for {}. It may read anything in
// call and ctx (the tool, the surface, the HTTP request and what the auth
// hook stored) and may modify call.Arguments in place and return it.
//
// An error ends the call as an *Error with StageTransform: an *Error the
// transform returns keeps its Code, Message and Failures; any other error
// becomes CodeInternal with the error's message, which the caller sees, so
// it must not hold secrets. A panic ends it the same way with CodePanic.
type InputTransform func(ctx context.Context, call *Call) (map[string]any, error)

// OutputTransform rewrites a call's result: the result it returns replaces
// res (nil stands for an empty result). It runs on every result the
// handler returns, isError ones included (res.IsError tells them apart), and
// never after a failed call. It may modify res in place and return it.
//
// Its errors end the call as InputTransform's do.
type OutputTransform func(ctx context.Context, call *Call, res *CallToolResult) (*CallToolResult, error)

// WithInputTransforms adds transforms that rewrite the arguments of every
// call, in the order given, before validation. A tool's own
// ToolOptions.InputTransforms run after these.
func WithInputTransforms(ts ...InputTransform) Option {
	return func(x *Executor) { x.inputTransforms = append(x.inputTransforms, ts...) }
}

// WithOutputTransforms adds transforms that rewrite the result of every
// call, in the order given. A tool's own ToolOptions.OutputTransforms run
// before these, so the Executor's see the tool's final word.
//
// Output transforms run inside the cache: a cached result is one already
// transformed, and a cache hit is not transformed again.
func WithOutputTransforms(ts ...OutputTransform) Option {
	return func(x *Executor) { x.outputTransforms = append(x.outputTransforms, ts...) }
}

// transformsInput reports whether input transforms apply to calls of t.
func (x *Executor) transformsInput(t *Tool) bool {
	return len(x.inputTransforms)+len(t.Options.InputTransforms) > 0
}

// transformsOutput reports whether output transforms apply to calls of t.
func (x *Executor) transformsOutput(t *Tool) bool {
	return len(x.outputTransforms)+len(t.Options.OutputTransforms) > 0
}

// inputTransformInterceptor is the input-transform stage: the Executor's
// transforms, then the tool's.
func (x *Executor) inputTransformInterceptor(next CallFunc) CallFunc {
	return func(ctx context.Context, call *Call) (*CallToolResult, error) {
		if !x.transformsInput(&call.Tool) {
			return next(ctx, call)
		}
		global, own := x.inputTransforms, call.Tool.Options.InputTransforms
		sctx, st := call.observer().StartStage(ctx, StageInfo{Stage: StageTransform, Direction: "input"})
		err := x.transformInput(sctx, call, global)
		if err == nil {
			err = x.transformInput(sctx, call, own)
		}
		st.End(nil, err)
		if err != nil {
			return nil, err
		}
		return next(ctx, call)
	}
}

func (x *Executor) transformInput(ctx context.Context, call *Call, ts []InputTransform) error {
	for _, t := range ts {
		args, err := runTransform(ctx, x, call, "input", func() (map[string]any, error) { return t(ctx, call) })
		if err != nil {
			return err
		}
		if args == nil {
			args = map[string]any{}
		}
		call.Arguments = args
	}
	return nil
}

// outputTransformInterceptor is the output-transform stage: the tool's
// transforms, then the Executor's.
func (x *Executor) outputTransformInterceptor(next CallFunc) CallFunc {
	return func(ctx context.Context, call *Call) (*CallToolResult, error) {
		if !x.transformsOutput(&call.Tool) {
			return next(ctx, call)
		}
		global, own := x.outputTransforms, call.Tool.Options.OutputTransforms
		res, err := next(ctx, call)
		if err != nil {
			return nil, err
		}
		if res == nil {
			res = &CallToolResult{}
		}
		sctx, st := call.observer().StartStage(ctx, StageInfo{Stage: StageTransform, Direction: "output"})
		res, err = x.transformOutput(sctx, call, res, own)
		if err == nil {
			res, err = x.transformOutput(sctx, call, res, global)
		}
		st.End(nil, err)
		if err != nil {
			return nil, err
		}
		return res, nil
	}
}

func (x *Executor) transformOutput(ctx context.Context, call *Call, res *CallToolResult, ts []OutputTransform) (*CallToolResult, error) {
	for _, t := range ts {
		out, err := runTransform(ctx, x, call, "output", func() (*CallToolResult, error) { return t(ctx, call, res) })
		if err != nil {
			return nil, err
		}
		if out == nil {
			out = &CallToolResult{}
		}
		res = out
	}
	return res, nil
}

// runTransform runs one transform, turning its error or panic into a
// StageTransform *Error.
func runTransform[T any](ctx context.Context, x *Executor, call *Call, dir string, f func() (T, error)) (out T, err error) {
	defer func() {
		if p := recover(); p != nil {
			x.logger.ErrorContext(ctx, "toolexec: "+dir+" transform panicked",
				"tool", call.Tool.Name, "surface", call.Surface, "panic", fmt.Sprint(p), "stack", string(debug.Stack()))
			var zero T
			out, err = zero, x.panicError(StageTransform, p, dir+" transform panicked: ")
		}
	}()
	out, err = f()
	if err != nil {
		var zero T
		return zero, transformError(dir, err)
	}
	return out, nil
}

// transformError makes err a StageTransform *Error.
func transformError(dir string, err error) *Error {
	if e, ok := AsError(err); ok {
		c := *e
		c.Stage = StageTransform
		if c.Err == nil {
			c.Err = err
		}
		return &c
	}
	return &Error{Stage: StageTransform, Code: CodeInternal, Message: dir + " transform: " + err.Error(), Err: err}
}
