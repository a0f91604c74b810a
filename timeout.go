package toolexec

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"time"
)

// WithTimeout bounds every call: at d after the call reaches the timeout
// stage (after the auth hook), the handler's context is cancelled and the
// call ends as an *Error with StageTimeout and CodeTimeout saying it timed
// out, which every surface reports as a tool error. It ends then even if
// the handler ignores its context: that handler is left to finish on its
// own goroutine, which is logged at warning level, and its outcome is
// discarded. d <= 0, the default, means no timeout. A tool's
// ToolOptions.Timeout replaces d for that tool.
//
// The time spent waiting for a concurrency-limit slot counts against the
// timeout.
func WithTimeout(d time.Duration) Option {
	return func(x *Executor) { x.timeout = d }
}

// errCallTimedOut is the cause of the context a timeout cancels, which
// tells the timeout apart from the caller's own deadline or cancellation.
var errCallTimedOut = errors.New("toolexec: call timed out")

// timeoutFor is the timeout that applies to t: its own, else the
// Executor's; <= 0 is none.
func (x *Executor) timeoutFor(t *Tool) time.Duration {
	if d := t.Options.Timeout; d != 0 {
		return d
	}
	return x.timeout
}

// timesOut reports whether a timeout applies to calls of t.
func (x *Executor) timesOut(t *Tool) bool { return x.timeoutFor(t) > 0 }

// The states of a call running under a timeout; whichever of the call and
// the waiting side moves first from running decides who owns the outcome.
const (
	callRunning int32 = iota
	callFinished
	callAbandoned
)

// timeoutInterceptor is the timeout stage. When a timeout applies, the rest
// of the call runs on a goroutine of its own (a worker kept for reuse,
// workers.go), so that the call can end at the deadline whatever the
// handler does.
func (x *Executor) timeoutInterceptor(next CallFunc) CallFunc {
	return func(ctx context.Context, call *Call) (*CallToolResult, error) {
		d := x.timeoutFor(&call.Tool)
		if d <= 0 {
			return next(ctx, call)
		}
		ctx, cancel := context.WithTimeoutCause(ctx, d, errCallTimedOut)
		defer cancel()

		type outcome struct {
			res *CallToolResult
			err error
		}
		done := make(chan outcome, 1)
		var state atomic.Int32
		start := time.Now()
		x.workers.run(func() {
			res, err := x.guard(ctx, call, next)
			done <- outcome{res, err}
			if !state.CompareAndSwap(callRunning, callFinished) {
				if timedOut(ctx) {
					x.logger.WarnContext(ctx, "toolexec: timed-out call finished in the background; its outcome is discarded",
						"tool", call.Tool.Name, "surface", call.Surface, "after", time.Since(start))
				} else {
					x.logger.DebugContext(ctx, "toolexec: canceled call finished in the background; its outcome is discarded",
						"tool", call.Tool.Name, "surface", call.Surface, "after", time.Since(start))
				}
			}
		})

		var o outcome
		select {
		case o = <-done:
		case <-ctx.Done():
			if state.CompareAndSwap(callRunning, callAbandoned) {
				if timedOut(ctx) {
					x.logger.WarnContext(ctx, "toolexec: call ended at its deadline; its handler is left to finish in the background",
						"tool", call.Tool.Name, "surface", call.Surface, "timeout", d)
				} else {
					// The caller went away, or the call (a task) was
					// canceled: nothing for an operator to act on.
					x.logger.DebugContext(ctx, "toolexec: call canceled; its handler is left to finish in the background",
						"tool", call.Tool.Name, "surface", call.Surface)
				}
				return nil, contextEnded(ctx, StageTimeout, call, d)
			}
			o = <-done // it finished just now: its outcome is ready
		}
		if cerr := ctx.Err(); o.err != nil && cerr != nil && errors.Is(o.err, cerr) {
			// A cooperative handler (or interceptor) gave up because the
			// deadline passed: report the timeout. An outcome that came in
			// time, success or failure, is kept as it is.
			return nil, contextEnded(ctx, StageTimeout, call, d)
		}
		return o.res, o.err
	}
}

// timedOut reports whether ctx ended because a deadline passed, rather
// than because it was canceled.
func timedOut(ctx context.Context) bool {
	return errors.Is(context.Cause(ctx), errCallTimedOut) || errors.Is(ctx.Err(), context.DeadlineExceeded)
}

// contextEnded is the error of a call whose context ended before it did:
// a timeout when a deadline passed (d is the call's own timeout, if any),
// else a cancellation noticed at stage.
func contextEnded(ctx context.Context, stage Stage, call *Call, d time.Duration) *Error {
	cause := context.Cause(ctx)
	switch {
	case errors.Is(cause, errCallTimedOut):
		return &Error{Stage: StageTimeout, Code: CodeTimeout,
			Message: fmt.Sprintf("Tool %s timed out after %s", call.Tool.Name, d), Err: context.DeadlineExceeded}
	case errors.Is(ctx.Err(), context.DeadlineExceeded):
		return &Error{Stage: StageTimeout, Code: CodeTimeout,
			Message: fmt.Sprintf("Tool %s timed out: the caller's deadline passed", call.Tool.Name), Err: cause}
	}
	return &Error{Stage: stage, Code: CodeCanceled, Message: "The call was canceled.", Err: cause}
}
