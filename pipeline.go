package toolexec

import (
	"context"
	"encoding/json"
	"errors"
	"maps"
	"net/http"
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
	// Peer). It takes precedence over a Peer installed with ContextWithPeer, and
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
	// task is set when the call may become a task (SurfaceKit.CallTask).
	task *taskRun
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
// Where tools are hidden per caller (WithToolFilter with an auth hook), the
// hook answers before stages 2 and 3 can refuse: a caller it refuses learns
// neither whether the tool exists nor what was wrong with its arguments
// (see AuthHook).
//
// The whole call is observed by the Observer (WithObserver): its start and
// end, and each stage that does work (see docs/pipeline.md). The first
// failing stage ends the call, and nothing
// after it runs. A failed call returns a nil result and an *Error naming
// the stage. A handler that reports a logical failure (isError) is not a
// failed call: its result comes back with IsError set and a nil error.
func (x *Executor) Call(ctx context.Context, req CallRequest) (*CallToolResult, error) {
	ob := x.beginCall(ctx, &req)
	res, err := x.call(&ob, &req)
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
			res = withTraceID(res, id)
		}
	}
	x.endCall(&ob, res, err)
	return res, err
}

// withTraceID returns a copy of res that carries the trace id: the result
// may be the handler's own, shared value, which is never changed.
func withTraceID(res *CallToolResult, id string) *CallToolResult {
	cp := *res
	cp.Meta = maps.Clone(res.Meta)
	cp.SetTraceID(id)
	return &cp
}

// call runs the stages; ob follows it for the observer and the log.
//
// Its frame, like every frame between a surface and the handler, is kept
// small: everything that happens before the interceptors run (reading and
// decoding the arguments, the auth hook) is done by functions that have
// returned by the time the handler runs. net/http serves a keep-alive
// connection on one goroutine whose stack the garbage collector shrinks
// while it waits, so a call that needs a deeper stack pays to grow it
// again after every collection.
func (x *Executor) call(ob *observation, req *CallRequest) (_ *CallToolResult, err error) {
	// The host's code runs before the interceptors too: its ToolProvider in
	// the lookup, the REST surface's readArguments. A panic there fails the call
	// at that stage, like a panic anywhere later, instead of escaping to the
	// surface. (The auth hook recovers its own; guard and execute cover the
	// rest.)
	stage := StageGate
	defer func() {
		if p := recover(); p != nil {
			err = x.recovered(ob.ctx, "call", stage, req.Name, ob.surface, p)
		}
	}()
	if !x.allowExecute {
		return nil, &Error{Stage: StageGate, Code: CodeExecutionDisabled, Message: "Tool execution is disabled."}
	}
	stage = StageResolve
	cc, handler, err := x.resolveCall(req)
	if err != nil {
		return nil, x.unresolved(ob, req, err)
	}
	call := &cc.call
	tool := &call.Tool
	ob.tool = tool
	ob.obs.Resolved(tool)
	stage = StageDecode
	input, args, decodeErr := x.decodeCall(ob, tool, req, handler)
	if decodeErr != nil && !x.hidesTools(req) {
		return nil, decodeErr
	}
	ctx := ob.ctx
	call.Arguments, call.Request, call.Surface, call.peer, call.obs, call.input = args, req.Request, ob.surface, req.Peer, ob.obs, input
	if req.Request != nil && x.authHook != nil {
		if ctx, err = x.authorize(ctx, ob, call); err != nil {
			return nil, err
		}
	}
	if decodeErr != nil {
		// Tools are hidden per caller: the arguments' refusal (a body over
		// the limit, arguments that are not an object) waited for the hook,
		// so that a caller it refuses is answered alike for a tool hidden
		// from it and for one that does not exist.
		return nil, decodeErr
	}
	if tool.Options.TaskSupport == TaskSupportRequired && req.task == nil && ob.surface != SurfaceGo {
		return nil, taskRequired(tool)
	}
	cc.Context = ctx
	run := x.run
	if x.onlyValidates(tool) {
		run = x.runValidated
	}
	if len(req.interceptors) > 0 {
		run = chain(run, req.interceptors)
	}
	return x.guard(cc, call, run)
}

// unresolved is the answer to a call whose tool was not found (err): the
// not-found error, in the order the execution API fixes (the gate, then
// the lookup, then the auth hook). Only where tools are hidden per caller
// (hidesTools) does a caller the auth hook would refuse get the hook's
// refusal instead, so that only an admitted caller learns whether a tool
// exists. The hook then sees a Call with no tool (CallFromContext returns
// a Call whose Tool is the zero Tool), so its refusal says nothing of any
// tool, and a tool hidden from a caller is refused exactly as one that
// does not exist.
func (x *Executor) unresolved(ob *observation, req *CallRequest, err error) error {
	if !x.hidesTools(req) {
		return err
	}
	probe := &Call{Request: req.Request, Surface: ob.surface}
	if _, refusal := x.authorize(ob.ctx, ob, probe); refusal != nil {
		return refusal
	}
	return err
}

// hidesTools reports whether the call req runs where tools are hidden per
// caller: it arrived over HTTP, an auth hook guards calls, and lists are
// per caller (WithToolFilter). Only then does the auth hook answer before
// the tool's existence and its arguments are (see unresolved and call):
// elsewhere the execution API's order holds, gate, then lookup, then the
// hook.
func (x *Executor) hidesTools(req *CallRequest) bool {
	return req.Request != nil && x.authHook != nil && x.toolFilter != nil
}

// resolveCall finds the tool req names and returns the callContext that
// will carry the call (the Call and its context are one allocation), with
// the tool in it, and the tool's own handler when the lookup found it too.
func (x *Executor) resolveCall(req *CallRequest) (*callContext, ToolCallHandler, error) {
	if r := x.registry; r != nil {
		e := r.resolve(req.Name, req.Version)
		if e == nil {
			return nil, nil, notFound(req.Name, req.Version)
		}
		cc := &callContext{}
		cc.call.Tool = e.tool
		return cc, e.handler, nil
	}
	found, ok := x.Lookup(req.Name, req.Version)
	if !ok {
		return nil, nil, notFound(req.Name, req.Version)
	}
	cc := &callContext{}
	cc.call.Tool = found
	return cc, nil, nil
}

// decodeCall reads the call's arguments and decodes them: into the typed
// tool's input when it checks its own (checkedInput), and into the map
// when something may read it.
func (x *Executor) decodeCall(ob *observation, tool *Tool, req *CallRequest, handler ToolCallHandler) (decodedCall, map[string]any, error) {
	raw, lenient := req.Arguments, false
	switch {
	case req.readArguments != nil:
		var err error
		if raw, err = req.readArguments(); err != nil {
			if _, ok := AsError(err); !ok {
				err = &Error{Stage: StageDecode, Code: CodeInvalidArguments, Message: "could not read arguments", Err: err}
			}
			return nil, nil, err
		}
	case req.bodyWriter != nil && req.Request != nil:
		var err error
		if raw, err = readBody(req.bodyWriter, req.Request, x.maxBodyBytes); err != nil {
			return nil, nil, err // an *Error: CodeTooLarge, or the read failed
		}
		lenient = true
	}
	// A typed tool may decode its arguments itself, checked against the
	// schema inferred from its input type (checkedInput); the map is then
	// decoded only when something may read it. Arguments it accepts are one
	// well-formed JSON object, so a lenient body needs no other check then.
	var input decodedCall
	ci := x.checkedInputWith(tool, req, handler)
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
	if input == nil || x.readsArguments(tool, req) {
		var err error
		if args, err = decodeArguments(raw); err != nil {
			return nil, nil, err
		}
		ob.obs.Arguments(args)
	}
	return input, args, nil
}

// authorize runs the auth hook on the call's request and returns the
// context the call goes on with, or the hook's refusal.
func (x *Executor) authorize(ctx context.Context, ob *observation, call *Call) (context.Context, error) {
	// The hook sees the call it authorizes (CallFromContext), so it can
	// decide per tool.
	actx, st := ob.obs.StartStage(withCall(ctx, call), StageInfo{Stage: StageAuth})
	passed, reason, refusal := authenticate(x.authHook, x.maxBodyBytes, call.Request.WithContext(actx))
	if passed == nil {
		x.logger.WarnContext(ctx, "toolexec: call refused by auth hook",
			"tool", call.Tool.Name, "surface", ob.surface, "reason", reason)
		st.End(nil, refusal)
		return nil, refusal
	}
	// The hook's request carries the auth stage in its context; the
	// call goes on as the call, with whatever else the hook added.
	ctx = ob.obs.Resume(passed.Context())
	st.End(nil, nil)
	call.Request = passed.WithContext(ctx)
	return ctx, nil
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

// onlyValidates reports whether, of the built-in interceptors, only
// validation can do anything for a call of t: no timeout, no concurrency
// or rate limit, no transforms and no cache apply to it, so each of those would
// only pass the call on. Such a call runs runValidated, which leaves them
// out: the same call, with fewer frames between the surface and the
// handler.
func (x *Executor) onlyValidates(t *Tool) bool {
	return !x.timesOut(t) && !x.limited(t) && !x.rateLimited(t) && !x.transformsInput(t) && !t.Options.Cache && !x.transformsOutput(t)
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
			res, err = nil, x.recovered(ctx, "interceptor", StageIntercept, call.Tool.Name, call.Surface, p)
		}
	}()
	return next(ctx, call)
}

// execute is the innermost stage: the handler, with panics recovered.
func (x *Executor) execute(ctx context.Context, call *Call) (res *CallToolResult, err error) {
	ctx, st := call.observer().StartStage(ctx, StageInfo{Stage: StageExecute})
	defer func() {
		if p := recover(); p != nil {
			res, err = nil, x.recovered(ctx, "tool", StageExecute, call.Tool.Name, call.Surface, p)
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

func surfaceOf(req *CallRequest) Surface {
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
