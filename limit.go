package toolexec

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// DefaultRetryAfter is how long a call refused by a concurrency limit is
// told to wait before trying again, unless ConcurrencyLimit.RetryAfter says
// otherwise.
const DefaultRetryAfter = time.Second

// ConcurrencyLimit bounds how many calls run at once.
//
// A call over the limit waits for a slot until its context ends (the
// caller goes away, or the call's timeout passes), or, with FailFast, is
// refused at once. A refused call, or one whose context ended while it
// waited, ends as an *Error with StageLimit and CodeUnavailable whose
// RetryAfter says when to try again: REST answers 503 with a Retry-After
// header, MCP an isError result, OXP success false with can_retry and
// retry_after_ms. A call whose caller went away while it waited ends with
// CodeCanceled.
//
// A slot is held until the call's handler returns, even after a timeout
// has ended the call: the limit counts handlers actually running.
type ConcurrencyLimit struct {
	// Max is the most calls that run at once; 0 or less means no limit.
	Max int
	// FailFast refuses a call at once when Max calls are running, instead
	// of letting it wait for a slot.
	FailFast bool
	// RetryAfter is the wait a refusal suggests; 0 or less means
	// DefaultRetryAfter.
	RetryAfter time.Duration
}

// WithConcurrencyLimit bounds how many calls of the Executor's tools run at
// once, all tools together. A tool with its own
// ToolOptions.ConcurrencyLimit is bounded by that one instead, and does not
// count against this one. The default is no limit.
func WithConcurrencyLimit(l ConcurrencyLimit) Option {
	return func(x *Executor) { x.limit = l }
}

// limiter is the semaphore of one ConcurrencyLimit: a buffered channel
// holding a token per running call.
type limiter struct {
	cfg   ConcurrencyLimit
	slots chan struct{}
}

// newLimiter returns the limiter of l, or nil when l does not limit.
func newLimiter(l ConcurrencyLimit) *limiter {
	if l.Max <= 0 {
		return nil
	}
	if l.RetryAfter <= 0 {
		l.RetryAfter = DefaultRetryAfter
	}
	return &limiter{cfg: l, slots: make(chan struct{}, l.Max)}
}

// acquire takes a slot, waiting as the limit says.
func (l *limiter) acquire(ctx context.Context, call *Call) error {
	select {
	case l.slots <- struct{}{}:
		return nil
	default:
	}
	if l.cfg.FailFast {
		return l.refusal(call, nil)
	}
	select {
	case l.slots <- struct{}{}:
		return nil
	case <-ctx.Done():
		if errors.Is(ctx.Err(), context.Canceled) {
			return &Error{Stage: StageLimit, Code: CodeCanceled, Message: "The call was canceled while it waited for a slot.", Err: ctx.Err()}
		}
		return l.refusal(call, ctx.Err())
	}
}

// release gives a slot back.
func (l *limiter) release() { <-l.slots }

func (l *limiter) refusal(call *Call, cause error) *Error { return busy(call, l.cfg, cause) }

// busy is the error of a call refused a slot of cfg (RetryAfter set).
func busy(call *Call, cfg ConcurrencyLimit, cause error) *Error {
	return &Error{Stage: StageLimit, Code: CodeUnavailable, RetryAfter: cfg.RetryAfter, Err: cause,
		Message: fmt.Sprintf("Tool %s is busy: %d calls are running, the most it runs at once. Try again later.", call.Tool.Name, cfg.Max)}
}

// limited reports whether a concurrency limit applies to calls of t: when
// it does not, limiterFor returns nil.
func (x *Executor) limited(t *Tool) bool {
	if own := t.Options.ConcurrencyLimit; own != nil {
		return own.Max > 0
	}
	return x.limiter != nil
}

// limiterFor returns the limiter that applies to t, or nil when none does.
// A tool's own limiter comes from the Executor's set, held until done is
// called (done is nil for the Executor's limiter); it is created on the
// tool's first call, replaced if the tool's limit changes, and dropped when
// idle once the set is over maxIdleLimiters.
func (x *Executor) limiterFor(t *Tool) (l *limiter, done func()) {
	own := t.Options.ConcurrencyLimit
	if own == nil {
		return x.limiter, nil
	}
	if own.Max <= 0 {
		return nil, nil
	}
	key := toolKey{t.Name, t.Version}
	want := *own
	if want.RetryAfter <= 0 {
		want.RetryAfter = DefaultRetryAfter
	}
	c := x.toolLimiters.get(key, want)
	return c.limiter, func() { x.toolLimiters.put(key, c) }
}

// limitInterceptor is the limit stage: the caller's rate (RateLimit), then
// a concurrency slot (ConcurrencyLimit), counted in the Executor's shared
// store when it has one (limit_shared.go), else in the process.
func (x *Executor) limitInterceptor(next CallFunc) CallFunc {
	return func(ctx context.Context, call *Call) (*CallToolResult, error) {
		if x.store != nil {
			return x.sharedLimit(ctx, call, next)
		}
		return x.localLimit(ctx, call, next)
	}
}

// localLimit is the limit stage counted in the process.
func (x *Executor) localLimit(ctx context.Context, call *Call, next CallFunc) (*CallToolResult, error) {
	rate, ownRate, rated := x.rateFor(&call.Tool)
	l, done := x.limiterFor(&call.Tool)
	if l == nil && !rated {
		return next(ctx, call)
	}
	if done != nil {
		defer done()
	}
	info := StageInfo{Stage: StageLimit}
	if l != nil {
		info.LimitMax = l.cfg.Max
	}
	sctx, st := call.observer().StartStage(ctx, info)
	if rated {
		a := x.local.limits.admit(AdmitRequest{RateKey: rateKey(ctx, call, ownRate, x.ipv6Bits), Rate: rate}, time.Now())
		if a.RateWait > 0 {
			err := rateRefusal(call, rate, ownRate, a.RateWait)
			st.End(nil, err)
			return nil, err
		}
	}
	if l == nil {
		st.End(nil, nil)
		return next(ctx, call)
	}
	err := l.acquire(sctx, call)
	st.End(nil, err)
	if err != nil {
		return nil, err
	}
	defer l.release()
	return next(ctx, call)
}
