package mcp

import (
	"context"
	"sync"
	"sync/atomic"
	"time"
)

// callCtx is the context a tools/call that may write to its stream runs
// in: the request's context, which the stream can also cancel (a write
// that failed, the call's end), and, for a resumable stream, one the
// client going away ends only while nothing has been streamed (resume.go).
//
// Most calls never stream, and most handlers never ask for their
// context's Done channel, so the context costs nothing until it is used:
// it becomes a context.WithCancel (and, when detached, a watch on the
// request's context) the first time Done is called or the stream starts.
// Until then Err reads the request's context and the cancellations it has
// been asked for, which is what the live context would say. It lives
// inside the callStream, so that the call allocates nothing for it.
type callCtx struct {
	// parent is the request's context: its values, and, unless detached,
	// its cancellation and deadline.
	parent context.Context
	// stream, when set, makes the context detached: the parent's end does
	// not reach the call by itself; stream.clientGone, run once it ends
	// after the context went live, decides (resume.go). Until the context
	// is live the parent's end cancels the call, as clientGone does before
	// the stream started.
	stream *callStream

	ctx      context.Context    // once live
	cancelFn context.CancelFunc // once live
	stop     func() bool        // ends the watch on parent (detached)
	mu       sync.Mutex
	live     atomic.Bool // ctx and cancelFn are set, and never change again
	canceled bool        // cancel ran before the context went live
}

// init makes c the context of a call whose request's context is parent;
// stream, when set, is the resumable stream that decides when the call
// ends once its client goes away (detached).
func (c *callCtx) init(parent context.Context, stream *callStream) {
	c.parent, c.stream = parent, stream
}

// detached reports whether the parent's end reaches the call only through
// its stream (resume.go).
func (c *callCtx) detached() bool { return c.stream != nil }

// Deadline is the request's, or none when detached.
func (c *callCtx) Deadline() (time.Time, bool) {
	if c.detached() {
		return time.Time{}, false
	}
	return c.parent.Deadline()
}

// Done makes the context live and returns its channel.
func (c *callCtx) Done() <-chan struct{} {
	ctx, _ := c.makeLive()
	return ctx.Done()
}

// Err is the live context's error, or, before it is live, what it would
// be: Canceled once cancel ran; the request context's error once that
// ended (Canceled when detached, as the call is cancelled then).
func (c *callCtx) Err() error {
	if c.live.Load() {
		return c.ctx.Err()
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	switch {
	case c.live.Load():
		return c.ctx.Err()
	case c.canceled:
		return context.Canceled
	}
	err := c.parent.Err()
	if err != nil && c.detached() {
		return context.Canceled
	}
	return err
}

// Value is the request context's value for key (once live, through the
// live context, which answers for itself the key of its own cancellation).
func (c *callCtx) Value(key any) any {
	if c.live.Load() {
		return c.ctx.Value(key)
	}
	return c.parent.Value(key)
}

// makeLive makes the context a context.WithCancel of the request's (of
// its values only, watching it, when detached), cancelled at once if
// cancel ran before or, detached, if the request's context has already
// ended; that last case is reported as parentEnded, for the caller to do
// what clientGone would have done.
func (c *callCtx) makeLive() (ctx context.Context, parentEnded bool) {
	if c.live.Load() {
		return c.ctx, false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.live.Load() {
		return c.ctx, false
	}
	if c.detached() {
		c.ctx, c.cancelFn = context.WithCancel((*valuesOnly)(c))
		switch {
		case c.canceled:
			c.cancelFn()
		case c.parent.Err() != nil:
			c.cancelFn()
			parentEnded = true
		default:
			c.stop = context.AfterFunc(c.parent, c.stream.clientGone)
		}
	} else {
		c.ctx, c.cancelFn = context.WithCancel(c.parent)
		if c.canceled {
			c.cancelFn()
		}
	}
	c.live.Store(true)
	return c.ctx, parentEnded
}

// cancel cancels the call's context.
func (c *callCtx) cancel() {
	if c.live.Load() {
		c.cancelFn()
		return
	}
	c.mu.Lock()
	live := c.live.Load()
	if !live {
		c.canceled = true
	}
	c.mu.Unlock()
	if live {
		c.cancelFn()
	}
}

// stopWatch ends the watch on the request's context, if there is one.
func (c *callCtx) stopWatch() {
	c.mu.Lock()
	stop := c.stop
	c.mu.Unlock()
	if stop != nil {
		stop()
	}
}
