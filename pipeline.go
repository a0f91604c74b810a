package toolexec

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"runtime/debug"

	"go.opentelemetry.io/otel/trace"
)

// CallRequest is a tool call as a surface (or the host) hands it to
// Executor.Call.
type CallRequest struct {
	// Name is the tool's name.
	Name string
	// Version selects a version of the tool; "" means the latest.
	Version string
	// Arguments is the JSON object of arguments. Empty or null means {}.
	// Anything else that is not a JSON object fails StageDecode.
	Arguments json.RawMessage
	// ReadArguments, when set, supplies the arguments instead of Arguments.
	// The decode stage calls it after the gate and the lookup, so a surface
	// that reads the arguments from a request body reads nothing for a call
	// refused earlier. An *Error it returns (CodeTooLarge, say) ends the call
	// as it is; any other error fails StageDecode.
	ReadArguments func() (json.RawMessage, error)
	// Request is the HTTP request the call arrived with; nil for an
	// in-process call. The auth hook runs only when it is set.
	Request *http.Request
	// Surface names the protocol; "" is SurfaceGo.
	Surface Surface
	// Interceptors run for this call only, after the auth hook and before
	// every other interceptor: the place for a surface's own checks that
	// need an authenticated call (OXP's tool requirements, say). An error
	// they return that is not an *Error fails StageIntercept.
	Interceptors []Interceptor
}

// Call runs one call through the pipeline and returns its result:
//
//  1. gate: execution allowed? (StageGate, CodeExecutionDisabled)
//  2. resolve the tool by name and version (StageResolve, CodeNotFound)
//  3. decode the arguments (StageDecode, CodeInvalidArguments)
//  4. the auth hook (StageAuth, CodeUnauthorized)
//  5. the interceptors, outermost first: the built-ins (timeout, limit,
//     input transform, validation, cache, output transform), then
//     WithInterceptors, then the tool's own (see Interceptor)
//  6. the handler, with panics recovered (StageExecute, CodeToolError or
//     CodePanic)
//
// The whole call is traced: one span for the call, with a child span for
// each stage that does work (see docs/pipeline.md), and counted in the
// Executor's metrics. The first failing stage ends the call, and nothing
// after it runs. A failed call returns a nil result and an *Error naming
// the stage. A handler that reports a logical failure (isError) is not a
// failed call: its result comes back with IsError set and a nil error.
func (x *Executor) Call(ctx context.Context, req CallRequest) (*CallToolResult, error) {
	ob := x.telemetry.begin(ctx, req)
	res, err := x.call(&ob, req)
	if err != nil {
		if _, ok := AsError(err); !ok {
			err = &Error{Stage: StageIntercept, Code: CodeInternal, Message: err.Error(), Err: err}
		}
		res = nil
	} else if res == nil {
		res = &CallToolResult{}
	}
	if err == nil && x.traceIDFromSpan && res.TraceID() == "" {
		if sc := ob.span.SpanContext(); sc.HasTraceID() {
			// The result may be the handler's own, shared value: set the
			// trace id on a copy, never on it.
			cp := *res
			cp.Meta = maps.Clone(res.Meta)
			cp.SetTraceID(sc.TraceID().String())
			res = &cp
		}
	}
	x.telemetry.end(&ob, res, err)
	return res, err
}

// call runs the stages; ob follows it for the telemetry.
func (x *Executor) call(ob *observation, req CallRequest) (_ *CallToolResult, err error) {
	ctx := ob.ctx
	// The host's code runs before the interceptors too: its ToolProvider in
	// the lookup, a surface's ReadArguments. A panic there fails the call
	// at that stage, like a panic anywhere later, instead of escaping to the
	// surface. (The auth hook recovers its own; guard and execute cover the
	// rest.)
	stage := StageGate
	defer func() {
		if p := recover(); p != nil {
			x.logger.ErrorContext(ctx, "toolexec: call panicked", "stage", stage, "tool", req.Name,
				"surface", ob.surface, "panic", fmt.Sprint(p), "stack", string(debug.Stack()))
			err = x.panicError(stage, p, "")
		}
	}()
	if !x.allowExecute {
		return nil, &Error{Stage: StageGate, Code: CodeExecutionDisabled, Message: "Tool execution is disabled."}
	}
	stage = StageResolve
	tool, ok := x.Lookup(req.Name, req.Version)
	if !ok {
		return nil, notFound(req.Name, req.Version)
	}
	ob.resolved(x.telemetry, &tool)
	stage = StageDecode
	raw := req.Arguments
	if req.ReadArguments != nil {
		var err error
		if raw, err = req.ReadArguments(); err != nil {
			if _, ok := AsError(err); !ok {
				err = &Error{Stage: StageDecode, Code: CodeInvalidArguments, Message: "could not read arguments", Err: err}
			}
			return nil, err
		}
	}
	// A typed tool may decode its arguments itself, checked against the
	// schema inferred from its input type (checkedInput); the map is then
	// decoded only when something may read it.
	var input decodedCall
	if ci := x.checkedInputFor(&tool, &req); ci != nil {
		input = ci.decodeChecked(raw)
	}
	var args map[string]any
	if input == nil || x.readsArguments(&tool, &req) {
		var err error
		if args, err = decodeArguments(raw); err != nil {
			return nil, err
		}
		if x.traceArguments {
			ob.recordArguments(args)
		}
	}
	httpReq := req.Request
	call := &Call{Tool: tool, Arguments: args, Request: httpReq, Surface: ob.surface, input: input}
	if httpReq != nil && x.authHook != nil {
		// The hook sees the call it authorizes (CallFromContext), so it can
		// decide per tool.
		actx, span := x.telemetry.startStage(withCall(ctx, call), StageAuth)
		passed, reason, refusal := authenticate(x.authHook, httpReq.WithContext(actx))
		if passed == nil {
			x.logger.WarnContext(ctx, "toolexec: call refused by auth hook",
				"tool", tool.Name, "surface", ob.surface, "reason", reason)
			endStage(span, nil, refusal)
			return nil, refusal
		}
		endStage(span, nil, nil)
		// The hook's request carries the auth span in its context; the call
		// goes on under the call span, with whatever else the hook added.
		ctx = trace.ContextWithSpan(passed.Context(), ob.span)
		httpReq = passed.WithContext(ctx)
		call.Request = httpReq
	}
	ctx = withCall(ctx, call)
	run := x.run
	if len(req.Interceptors) > 0 {
		run = chain(run, req.Interceptors)
	}
	return x.guard(ctx, call, run)
}

// builtinInterceptors returns the built-in interceptors, outermost first.
// They are built once, by New; each reads the tool's own settings from
// call.Tool.Options when it runs, and does nothing (beyond calling next)
// when neither the tool nor the Executor configures it. Tracing is not in
// this list: it wraps the whole call, stages before the interceptors
// included (see Call).
func (x *Executor) builtinInterceptors() []Interceptor {
	return []Interceptor{
		x.timeoutInterceptor,
		x.limitInterceptor,
		x.inputTransformInterceptor,
		x.validationInterceptor, // validate.go
		x.cacheInterceptor,
		x.outputTransformInterceptor,
	}
}

// runTool is the inner end of the Executor's chain: the tool's own
// interceptors, then the handler.
func (x *Executor) runTool(ctx context.Context, call *Call) (*CallToolResult, error) {
	if ics := call.Tool.Options.Interceptors; len(ics) > 0 {
		return chain(x.execute, ics)(ctx, call)
	}
	return x.execute(ctx, call)
}

// guard runs next and turns a panic in an interceptor into a failed call,
// so that no interceptor can crash the process, on the caller's goroutine
// or on the one a timeout leaves behind. Handler panics are recovered
// closer, by execute.
func (x *Executor) guard(ctx context.Context, call *Call, next CallFunc) (res *CallToolResult, err error) {
	defer func() {
		if p := recover(); p != nil {
			x.logger.ErrorContext(ctx, "toolexec: interceptor panicked",
				"tool", call.Tool.Name, "surface", call.Surface, "panic", fmt.Sprint(p), "stack", string(debug.Stack()))
			res, err = nil, x.panicError(StageIntercept, p, "")
		}
	}()
	return next(ctx, call)
}

// execute is the innermost stage: the handler, with panics recovered.
func (x *Executor) execute(ctx context.Context, call *Call) (res *CallToolResult, err error) {
	ctx, span := x.telemetry.startStage(ctx, StageExecute)
	defer func() {
		if p := recover(); p != nil {
			x.logger.ErrorContext(ctx, "toolexec: tool panicked",
				"tool", call.Tool.Name, "surface", call.Surface, "panic", fmt.Sprint(p), "stack", string(debug.Stack()))
			res, err = nil, x.panicError(StageExecute, p, "")
		}
		endStage(span, res, err)
	}()
	res, herr := x.invoke(ctx, call)
	if herr != nil {
		if cerr := ctx.Err(); cerr != nil && errors.Is(herr, cerr) {
			// The handler gave up because the call's context ended: say
			// why (timed out, or canceled) rather than echo ctx.Err().
			return nil, contextEnded(ctx, StageExecute, call, x.timeoutFor(&call.Tool))
		}
		return nil, &Error{Stage: StageExecute, Code: CodeToolError, Message: herr.Error(), Err: herr}
	}
	return res, nil
}

func trimJSONSpace(b []byte) []byte {
	isSpace := func(c byte) bool { return c == ' ' || c == '\t' || c == '\r' || c == '\n' }
	for len(b) > 0 && isSpace(b[0]) {
		b = b[1:]
	}
	for len(b) > 0 && isSpace(b[len(b)-1]) {
		b = b[:len(b)-1]
	}
	return b
}

func surfaceOf(req CallRequest) Surface {
	if req.Surface == "" {
		return SurfaceGo
	}
	return req.Surface
}

func notFound(name, version string) *Error {
	id := name
	if version != "" {
		id += "@" + version
	}
	return &Error{Stage: StageResolve, Code: CodeNotFound, Message: "Tool not found: " + id}
}
