package toolexec

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
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
}

// Call runs one call through the pipeline and returns its result:
//
//  1. gate: execution allowed? (StageGate, CodeExecutionDisabled)
//  2. resolve the tool by name and version (StageResolve, CodeNotFound)
//  3. decode the arguments (StageDecode, CodeInvalidArguments)
//  4. the auth hook (StageAuth, CodeUnauthorized)
//  5. the interceptors, outermost first (see Interceptor)
//  6. the handler, with panics recovered (StageExecute, CodeToolError or
//     CodePanic)
//
// The first failing stage ends the call, and nothing after it runs. A
// failed call returns a nil result and an *Error naming the stage. A handler
// that reports a logical failure (isError) is not a failed call: its result
// comes back with IsError set and a nil error.
func (x *Executor) Call(ctx context.Context, req CallRequest) (*CallToolResult, error) {
	if !x.allowExecute {
		return nil, &Error{Stage: StageGate, Code: CodeExecutionDisabled, Message: "Tool execution is disabled."}
	}
	tool, ok := x.Lookup(req.Name, req.Version)
	if !ok {
		return nil, notFound(req.Name, req.Version)
	}
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
	args, err := decodeArguments(raw)
	if err != nil {
		return nil, err
	}
	httpReq := req.Request
	if httpReq != nil && x.authHook != nil {
		passed, reason := authenticate(x.authHook, httpReq.WithContext(ctx))
		if passed == nil {
			x.logger.WarnContext(ctx, "toolexec: call refused by auth hook",
				"tool", tool.Name, "surface", surfaceOf(req), "reason", reason)
			return nil, unauthorized()
		}
		httpReq, ctx = passed, passed.Context()
	}
	call := &Call{Tool: tool, Arguments: args, Request: httpReq, Surface: surfaceOf(req)}
	ctx = withCall(ctx, call)
	run := chain(x.execute, x.builtinInterceptors(&call.Tool), x.interceptors, tool.Options.Interceptors)
	res, err := run(ctx, call)
	if err != nil {
		if _, ok := AsError(err); !ok {
			err = &Error{Stage: StageIntercept, Code: CodeInternal, Message: err.Error(), Err: err}
		}
		return nil, err
	}
	if res == nil {
		res = &CallToolResult{}
	}
	return res, nil
}

// builtinInterceptors returns the built-in stages that apply to t, outermost
// first.
func (x *Executor) builtinInterceptors(t *Tool) []Interceptor {
	return nil
}

// execute is the innermost stage: the handler, with panics recovered.
func (x *Executor) execute(ctx context.Context, call *Call) (res *CallToolResult, err error) {
	defer func() {
		if p := recover(); p != nil {
			x.logger.ErrorContext(ctx, "toolexec: tool panicked",
				"tool", call.Tool.Name, "surface", call.Surface, "panic", fmt.Sprint(p), "stack", string(debug.Stack()))
			res, err = nil, &Error{Stage: StageExecute, Code: CodePanic, Message: fmt.Sprint(p)}
		}
	}()
	content, isError, traceID, herr := x.handler.HandleCall(ctx, call.Tool.Name, call.Arguments)
	if herr != nil {
		code := CodeToolError
		if ctx.Err() == context.Canceled && errors.Is(herr, context.Canceled) {
			code = CodeCanceled // the caller went away and the handler stopped for it
		}
		return nil, &Error{Stage: StageExecute, Code: code, Message: herr.Error(), Err: herr}
	}
	return NewResult(content, isError, traceID), nil
}

// decodeArguments turns the raw arguments into the map handlers receive.
// Numbers decode as float64, as encoding/json decodes them into any.
func decodeArguments(raw json.RawMessage) (map[string]any, error) {
	if isNullOrEmpty(raw) {
		return map[string]any{}, nil
	}
	var args map[string]any
	if err := json.Unmarshal(raw, &args); err != nil || args == nil {
		return nil, &Error{Stage: StageDecode, Code: CodeInvalidArguments, Message: "arguments must be a JSON object", Err: err}
	}
	return args, nil
}

func isNullOrEmpty(raw []byte) bool {
	t := trimJSONSpace(raw)
	return len(t) == 0 || string(t) == "null"
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
