package toolexec

import (
	"errors"
	"fmt"
	"strings"
	"time"
)

// Stage names a step of the call pipeline. Every error Executor.Call
// returns is an *Error naming the stage that failed.
type Stage string

// The pipeline's stages, in the order a call passes them. Interceptor
// stages (timeout, limit, transform, validate, cache) sit between auth and
// execute.
const (
	StageGate      Stage = "gate"      // execution allowed?
	StageResolve   Stage = "resolve"   // find the tool by name (and version)
	StageDecode    Stage = "decode"    // arguments to a JSON object
	StageAuth      Stage = "auth"      // the auth hook
	StageTimeout   Stage = "timeout"   // the per-call deadline
	StageLimit     Stage = "limit"     // the concurrency limit
	StageTransform Stage = "transform" // input and output transforms
	StageValidate  Stage = "validate"  // arguments against inputSchema
	StageCache     Stage = "cache"     // read-through result cache
	StageIntercept Stage = "intercept" // a user interceptor
	StageExecute   Stage = "execute"   // the handler itself
)

// Code classifies an Error so each surface can map it to its own wire form
// (an HTTP status, a JSON-RPC code, an OXP error) without string matching.
type Code string

// The error codes.
const (
	CodeExecutionDisabled Code = "execution_disabled" // the gate is closed
	CodeNotFound          Code = "not_found"          // no such tool or version
	CodeInvalidArguments  Code = "invalid_arguments"  // arguments are not an object, or fail the schema
	CodeUnauthorized      Code = "unauthorized"       // the auth hook refused the call
	CodeForbidden         Code = "forbidden"          // the auth hook refused the call with 403 (see WriteChallenge): the caller lacks a permission, such as a scope
	CodeToolError         Code = "tool_error"         // the handler returned an error
	CodePanic             Code = "panic"              // the handler panicked
	CodeTimeout           Code = "timeout"            // the call ran past its deadline
	CodeUnavailable       Code = "unavailable"        // refused for now (a limit); RetryAfter may say when to retry
	CodeRateLimited       Code = "rate_limited"       // the caller called too often (a RateLimit); RetryAfter says when to retry
	CodeCanceled          Code = "canceled"           // the caller went away
	CodeTooLarge          Code = "too_large"          // the request body is over the limit
	CodeInternal          Code = "internal"           // anything else: a transform, interceptor or encoding failure
)

// Error is a failed call, as Executor.Call returns it: the pipeline stage
// that failed and a Code each surface maps to its wire form. A handler
// never builds one; it returns an error (a ToolError to say more), and the
// pipeline wraps it. Message is safe to show the caller; Err, when set, is
// the underlying cause (for a handler error it is the handler's own error,
// so errors.As finds a *ToolError through it).
type Error struct {
	// Stage is the pipeline stage that failed.
	Stage Stage
	// Code classifies the failure; surfaces map it to their wire form.
	Code Code
	// Message says what went wrong, in words fit for the caller.
	Message string
	// Failures lists what failed validation (Code CodeInvalidArguments from
	// StageValidate).
	Failures []ValidationFailure
	// Omitted counts the failures left out of Failures: validation lists at
	// most MaxValidationFailures, within MaxFailureBytes.
	Omitted int
	// RetryAfter, when positive, says how long the caller should wait before
	// trying again (Code CodeUnavailable or CodeRateLimited).
	RetryAfter time.Duration
	// Err is the underlying cause, when there is one (never sent).
	Err error
	// Challenge is the WWW-Authenticate value to send with a refusal by the
	// auth hook (CodeUnauthorized or CodeForbidden), when the hook gave one
	// through WriteChallenge; "" leaves the surface's default.
	Challenge string
}

// Error returns "toolexec: STAGE: MESSAGE".
func (e *Error) Error() string {
	return fmt.Sprintf("toolexec: %s: %s", e.Stage, e.Message)
}

// Unwrap returns the cause.
func (e *Error) Unwrap() error { return e.Err }

// AsError returns err as an *Error when it is one (or wraps one).
func AsError(err error) (*Error, bool) {
	var e *Error
	ok := errors.As(err, &e)
	return e, ok
}

// ToolError is an error a handler returns (unlike Error, which the pipeline
// returns for a failed call) to say more than a message: a
// user-facing Message, a DeveloperMessage for logs, whether and when the
// caller may retry, and extra content to prompt a model with on retry.
// Surfaces that can carry these (OXP) do; the others send Message.
//
// Any other error a handler returns is a tool error whose message is
// err.Error().
type ToolError struct {
	// Message is shown to the user or model.
	Message string
	// DeveloperMessage is for logs and developers, never for a model.
	DeveloperMessage string
	// CanRetry says the same call may succeed if tried again.
	CanRetry bool
	// RetryAfter is how long to wait before retrying, when CanRetry.
	RetryAfter time.Duration
	// AdditionalPromptContent is extra context for a model's retry, such as
	// the valid values close to what it sent.
	AdditionalPromptContent string
	// Err is an optional cause, kept for errors.Is and errors.As.
	Err error
}

// Error returns the user-facing message.
func (e *ToolError) Error() string { return e.Message }

// Unwrap returns the cause.
func (e *ToolError) Unwrap() error { return e.Err }

// Redacted is e's message as it may be logged or put on a span: the
// message itself, except for an error with validation failures, which is
// summarised by their paths and keywords alone ("invalid arguments: /a
// (type), /b (required)"). Failure messages may quote the value that
// failed ("'hunter2' does not match pattern ..."), and argument values are
// never logged, so observers that record errors use this.
func (e *Error) Redacted() string {
	if len(e.Failures) == 0 {
		return e.Message
	}
	var b strings.Builder
	b.WriteString("invalid arguments:")
	for i, f := range e.Failures {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteByte(' ')
		if f.Path == "" {
			b.WriteString("(root)")
		} else {
			b.WriteString(f.Path)
		}
		b.WriteString(" (")
		b.WriteString(f.Keyword)
		b.WriteByte(')')
	}
	return b.String()
}
