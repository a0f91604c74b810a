package toolexec

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"runtime/debug"
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
	// Request is the HTTP request the call arrived with; nil for an
	// in-process call. The auth hook runs only when it is set.
	Request *http.Request
	// Surface names the protocol; "" is SurfaceGo.
	Surface Surface
	// Peer, when set, is the caller's end of the call: where the handler's
	// progress and log messages go and whom its input requests ask (see
	// Peer). It takes precedence over a Peer installed with WithPeer, and
	// costs the call no allocation.
	Peer Peer

	// readArguments, when set, supplies the arguments instead of Arguments.
	// The decode stage calls it after the gate and the lookup, so the REST
	// surface, which reads the arguments from the request body, reads
	// nothing for a call refused earlier. An *Error it returns
	// (CodeTooLarge, say) ends the call as it is; any other error fails
	// StageDecode.
	readArguments func() (json.RawMessage, error)
	// bodyWriter, when set (and readArguments is not), makes Request's
	// body the arguments, as the REST surface sends them: the decode stage
	// reads it (readBody, through bodyWriter) after the gate and the
	// lookup, and reads a body that is not one JSON object as {}. Unlike a
	// readArguments closure it costs the call no allocation.
	bodyWriter http.ResponseWriter
	// interceptors run for this call only (SurfaceKit.Call).
	interceptors []Interceptor
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
// The whole call is observed by the Observer (WithObserver): its start and
// end, and each stage that does work (see docs/pipeline.md). The first
// failing stage ends the call, and nothing
// after it runs. A failed call returns a nil result and an *Error naming
// the stage. A handler that reports a logical failure (isError) is not a
// failed call: its result comes back with IsError set and a nil error.
func (x *Executor) Call(ctx context.Context, req CallRequest) (*CallToolResult, error) {
	ob := x.beginCall(ctx, req)
	res, err := x.call(&ob, req)
	if err != nil {
		if _, ok := AsError(err); !ok {
			err = &Error{Stage: StageIntercept, Code: CodeInternal, Message: err.Error(), Err: err}
		}
		res = nil
	} else if res == nil {
		res = &CallToolResult{}
	}
	if err == nil {
		if id := ob.obs.TraceID(); id != "" && res.TraceID() == "" {
			// The result may be the handler's own, shared value: set the
			// trace id on a copy, never on it.
			cp := *res
			cp.Meta = maps.Clone(res.Meta)
			cp.SetTraceID(id)
			res = &cp
		}
	}
	x.endCall(&ob, res, err)
	return res, err
}

// call runs the stages; ob follows it for the observer and the log.
func (x *Executor) call(ob *observation, req CallRequest) (_ *CallToolResult, err error) {
	ctx := ob.ctx
	// The host's code runs before the interceptors too: its ToolProvider in
	// the lookup, the REST surface's readArguments. A panic there fails the call
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
	// The Call and the context that carries it are one allocation
	// (callContext); the resolved tool lives in it from here on.
	var cc *callContext
	var handler ToolCallHandler // the tool's own handler, when the lookup found it too
	if r := x.registry; r != nil {
		e := r.resolve(req.Name, req.Version)
		if e == nil {
			return nil, notFound(req.Name, req.Version)
		}
		cc = &callContext{}
		cc.call.Tool, handler = e.tool, e.handler
	} else {
		found, ok := x.Lookup(req.Name, req.Version)
		if !ok {
			return nil, notFound(req.Name, req.Version)
		}
		cc = &callContext{}
		cc.call.Tool = found
	}
	call := &cc.call
	tool := &call.Tool
	ob.tool = tool
	ob.obs.Resolved(tool)
	stage = StageDecode
	raw, lenient := req.Arguments, false
	switch {
	case req.readArguments != nil:
		var err error
		if raw, err = req.readArguments(); err != nil {
			if _, ok := AsError(err); !ok {
				err = &Error{Stage: StageDecode, Code: CodeInvalidArguments, Message: "could not read arguments", Err: err}
			}
			return nil, err
		}
	case req.bodyWriter != nil && req.Request != nil:
		var err error
		if raw, err = readBody(req.bodyWriter, req.Request, x.maxBodyBytes); err != nil {
			return nil, err // an *Error: CodeTooLarge, or the read failed
		}
		lenient = true
	}
	// A typed tool may decode its arguments itself, checked against the
	// schema inferred from its input type (checkedInput); the map is then
	// decoded only when something may read it. Arguments it accepts are one
	// well-formed JSON object, so a lenient body needs no other check then.
	var input decodedCall
	ci := x.checkedInputWith(tool, &req, handler)
	if ci != nil {
		input = ci.decodeChecked(raw)
	}
	if input == nil && lenient && !isJSONObject(raw) {
		raw = json.RawMessage("{}") // a body that is not a JSON object is read as {}
		if ci != nil {
			input = ci.decodeChecked(raw)
		}
	}
	var args map[string]any
	if input == nil || x.readsArguments(tool, &req) {
		var err error
		if args, err = decodeArguments(raw); err != nil {
			return nil, err
		}
		ob.obs.Arguments(args)
	}
	httpReq := req.Request
	call.Arguments, call.Request, call.Surface, call.peer, call.obs, call.input = args, httpReq, ob.surface, req.Peer, ob.obs, input
	if httpReq != nil && x.authHook != nil {
		// The hook sees the call it authorizes (CallFromContext), so it can
		// decide per tool.
		actx, st := ob.obs.StartStage(withCall(ctx, call), StageInfo{Stage: StageAuth})
		passed, reason, refusal := authenticate(x.authHook, httpReq.WithContext(actx))
		if passed == nil {
			x.logger.WarnContext(ctx, "toolexec: call refused by auth hook",
				"tool", tool.Name, "surface", ob.surface, "reason", reason)
			st.End(nil, refusal)
			return nil, refusal
		}
		// The hook's request carries the auth stage in its context; the
		// call goes on as the call, with whatever else the hook added.
		ctx = ob.obs.Resume(passed.Context())
		st.End(nil, nil)
		httpReq = passed.WithContext(ctx)
		call.Request = httpReq
	}
	cc.Context = ctx
	ctx = cc
	run := x.run
	if len(req.interceptors) > 0 {
		run = chain(run, req.interceptors)
	}
	return x.guard(ctx, call, run)
}

// builtinInterceptors returns the built-in interceptors, outermost first.
// They are built once, by New; each reads the tool's own settings from
// call.Tool.Options when it runs, and does nothing (beyond calling next)
// when neither the tool nor the Executor configures it. Observing is not in
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
	ctx, st := call.observer().StartStage(ctx, StageInfo{Stage: StageExecute})
	defer func() {
		if p := recover(); p != nil {
			x.logger.ErrorContext(ctx, "toolexec: tool panicked",
				"tool", call.Tool.Name, "surface", call.Surface, "panic", fmt.Sprint(p), "stack", string(debug.Stack()))
			res, err = nil, x.panicError(StageExecute, p, "")
		}
		st.End(res, err)
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
