package mcp

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

type ctxKey struct{}

// closed reports whether ch is closed.
func closed(ch <-chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}

// A callCtx says before it goes live what it says after: the request's
// values, its end (Canceled when detached), and its own cancellation.
func TestCallCtxIsTheSameContextBeforeAndAfterItGoesLive(t *testing.T) {
	for _, detached := range []bool{false, true} {
		var stream *callStream
		if detached {
			stream = &callStream{}
			stream.res = &stream.resState
			stream.res.call = &stream.ctx
		}
		newCtx := func() (*callCtx, context.CancelFunc) {
			parent, cancel := context.WithCancel(context.WithValue(context.Background(), ctxKey{}, "v"))
			c := &callCtx{}
			if stream != nil {
				*stream = callStream{}
				stream.res = &stream.resState
				stream.res.call = &stream.ctx
				c = &stream.ctx
			}
			c.init(parent, stream)
			return c, cancel
		}

		c, cancelParent := newCtx()
		assert.Equal(t, "v", c.Value(ctxKey{}))
		require.NoError(t, c.Err())
		assert.False(t, c.live.Load(), "nothing asked for Done: not live")
		cancelParent()
		assert.ErrorIs(t, c.Err(), context.Canceled, "the request ended before anything was streamed")
		assert.True(t, closed(c.Done()), "Done agrees with Err once live")
		assert.ErrorIs(t, c.Err(), context.Canceled)

		c, cancelParent = newCtx()
		c.cancel()
		assert.ErrorIs(t, c.Err(), context.Canceled, "cancelled before it went live")
		assert.True(t, closed(c.Done()))
		cancelParent()

		c, cancelParent = newCtx()
		child, cancelChild := context.WithCancel(c) // makes it live
		assert.True(t, c.live.Load())
		assert.Equal(t, "v", child.Value(ctxKey{}))
		c.cancel()
		assert.True(t, closed(child.Done()), "a derived context ends with it")
		cancelChild()
		cancelParent()

		_, hasDeadline := c.Deadline()
		assert.False(t, hasDeadline)
	}
}

// Detached, a live callCtx hears the request's end through clientGone:
// before the stream started the call is cancelled; after, with a resumable
// log, it runs on.
func TestADetachedCallCtxLeavesTheDecisionToItsStream(t *testing.T) {
	for _, started := range []bool{false, true} {
		parent, cancel := context.WithCancel(context.Background())
		s := &callStream{}
		s.res = &s.resState
		s.res.h, s.res.call = &handler{}, &s.ctx
		s.res.h.resumeWindow = time.Hour
		s.res.logOK = started
		s.started = started
		s.ctx.init(parent, s)
		_, ended := s.ctx.makeLive()
		require.False(t, ended)
		cancel()
		if !started {
			select {
			case <-s.ctx.Done():
			case <-time.After(10 * time.Second):
				t.Fatal("not cancelled when the client went away before the stream started")
			}
			continue
		}
		require.Eventually(t, func() bool {
			s.mu.Lock()
			defer s.mu.Unlock()
			return s.gone
		}, 10*time.Second, time.Millisecond)
		assert.NoError(t, s.ctx.Err(), "a started resumable stream keeps its call running")
		s.res.finish()
		assert.ErrorIs(t, s.ctx.Err(), context.Canceled, "the call's end cancels it")
	}
}

// A detached callCtx made live after its request ended (the stream's
// first event comes after the client left) is cancelled at once, and says
// so, for the stream to do what clientGone would have done.
func TestACallCtxMadeLiveAfterItsRequestEndedIsCancelled(t *testing.T) {
	parent, cancel := context.WithCancel(context.Background())
	cancel()
	s := &callStream{}
	s.ctx.init(parent, s)
	_, ended := s.ctx.makeLive()
	assert.True(t, ended)
	assert.True(t, closed(s.ctx.Done()))
}
