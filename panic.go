package toolexec

import (
	"context"
	"fmt"
	"runtime/debug"
)

// PanicMessage is the message of a call whose handler, interceptor or
// transform panicked, as every surface sends it, unless
// WithPanicDetails(true) sends the panic's value instead. The value and the
// stack are always logged at error level.
const PanicMessage = "The tool failed unexpectedly."

// internalPanicMessage is the message of a panic before the auth hook (a
// tool provider's lookup, a surface's argument reader): always fixed, since
// the caller is not authenticated yet.
const internalPanicMessage = "The server failed before running the tool."

// WithPanicDetails makes a panic after the auth hook (in a handler, an
// interceptor or a transform) answer with the panic's value (fmt.Sprint)
// as its message instead of PanicMessage. It is off by default: a panic
// value can carry anything (a connection string, a file path, user data)
// and goes to every authenticated caller. A panic before the auth hook (a
// tool provider's lookup, say) is never described to the caller, whatever
// this option says. Either way the Error's Err holds the value for
// in-process callers.
func WithPanicDetails(enabled bool) Option {
	return func(x *Executor) { x.panicDetails = enabled }
}

// panicError is the *Error of a panic with value p at stage, worded as
// WithPanicDetails says; prefix, when set, goes before a detailed message.
func (x *Executor) panicError(stage Stage, p any, prefix string) *Error {
	msg := PanicMessage
	switch stage {
	case StageGate, StageResolve, StageDecode, StageAuth:
		msg = internalPanicMessage
	default:
		if x.panicDetails {
			msg = prefix + fmt.Sprint(p)
		}
	}
	return &Error{Stage: stage, Code: CodePanic, Message: msg, Err: fmt.Errorf("panic: %v", p)}
}

// encodingFailedMessage is what a caller gets when a result cannot be
// encoded; the encoder's error, which may name Go types, is only logged.
const encodingFailedMessage = "The tool's result could not be encoded."

// recovered logs, at error level, the panic p recovered in the pipeline's
// part named what ("call", "interceptor" or "tool") with its value and
// stack, and returns the call's *Error for it (panicError). Only the "call"
// line names the stage: the others' stage is their part's.
func (x *Executor) recovered(ctx context.Context, what string, stage Stage, tool string, surface Surface, p any) *Error {
	if what == "call" {
		x.logger.ErrorContext(ctx, "toolexec: call panicked", "stage", stage, "tool", tool,
			"surface", surface, "panic", fmt.Sprint(p), "stack", string(debug.Stack()))
	} else {
		x.logger.ErrorContext(ctx, "toolexec: "+what+" panicked",
			"tool", tool, "surface", surface, "panic", fmt.Sprint(p), "stack", string(debug.Stack()))
	}
	return x.panicError(stage, p, "")
}
