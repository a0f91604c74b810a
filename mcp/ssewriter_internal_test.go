package mcp

import (
	"context"
	"net/http"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// stalledWriter is a ResponseWriter whose client never reads: Write blocks
// until the write deadline passes (when it takes deadlines) or until it is
// released.
type stalledWriter struct {
	header   http.Header
	release  chan struct{}
	mu       sync.Mutex
	deadline time.Time
	set      []time.Time // every deadline set, in order
	writing  chan struct{}
}

func newStalledWriter() *stalledWriter {
	return &stalledWriter{header: http.Header{}, release: make(chan struct{}), writing: make(chan struct{}, 16)}
}

func (s *stalledWriter) Header() http.Header { return s.header }
func (s *stalledWriter) WriteHeader(int)     {}

func (s *stalledWriter) Write(p []byte) (int, error) {
	s.writing <- struct{}{}
	s.mu.Lock()
	d := s.deadline
	s.mu.Unlock()
	var expire <-chan time.Time
	if !d.IsZero() {
		expire = time.After(time.Until(d))
	}
	select {
	case <-s.release:
		return len(p), nil
	case <-expire:
		return 0, os.ErrDeadlineExceeded
	}
}

// deadlineWriter is a stalledWriter that takes write deadlines, as the
// connection of net/http's own ResponseWriter does.
type deadlineWriter struct{ *stalledWriter }

func (d deadlineWriter) SetWriteDeadline(t time.Time) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.deadline = t
	d.set = append(d.set, t)
	return nil
}

func TestAWriteToAStalledClientEndsAtItsDeadline(t *testing.T) {
	sw := sseWriter{w: deadlineWriter{newStalledWriter()}, timeout: 50 * time.Millisecond}
	err := sw.event([]byte(`{}`), sw.ceiling())
	assert.ErrorIs(t, err, os.ErrDeadlineExceeded)
	sw.end() // returns at once: nothing is left running
}

func TestADeadlineIsClearedAfterEachWrite(t *testing.T) {
	w := deadlineWriter{newStalledWriter()}
	close(w.release) // a client that reads
	sw := sseWriter{w: w, timeout: time.Minute}
	require.NoError(t, sw.event([]byte(`{}`), sw.ceiling()))
	require.NoError(t, sw.write(keepAliveComment, sw.ceiling()))
	require.Len(t, w.set, 4)
	assert.False(t, w.set[0].IsZero())
	assert.True(t, w.set[1].IsZero(), "a quiet stream is not cut by a past write's deadline")
	assert.True(t, w.set[3].IsZero())
	sw.end()
	require.Len(t, w.set, 5)
	assert.False(t, w.set[4].IsZero(), "what net/http writes after the handler is bounded too")
}

func TestAWriteIsBoundedByItsCallsDeadline(t *testing.T) {
	sw := sseWriter{timeout: time.Hour}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	d, _ := ctx.Deadline()
	assert.Equal(t, d, sw.deadline(ctx))
	assert.WithinDuration(t, time.Now().Add(time.Hour), sw.deadline(context.Background()), time.Minute)
}

// TestAWriterWithoutDeadlinesIsGivenUpOnAtTheDeadline: when the
// ResponseWriter cannot take deadlines, the write that blocks is left
// running and fails its caller at the deadline; every later write fails at
// once, and end waits for the blocked write before the handler returns.
func TestAWriterWithoutDeadlinesIsGivenUpOnAtTheDeadline(t *testing.T) {
	w := newStalledWriter()
	sw := sseWriter{w: w, timeout: 50 * time.Millisecond}
	assert.ErrorIs(t, sw.event([]byte(`{}`), sw.ceiling()), errWriteStalled)
	<-w.writing // the write left running
	assert.True(t, sw.unbounded)
	assert.ErrorIs(t, sw.event([]byte(`{}`), sw.ceiling()), errWriteStalled, "nothing more is written")
	ended := make(chan struct{})
	go func() {
		sw.end()
		close(ended)
	}()
	select {
	case <-ended:
		t.Fatal("end returned while a write was still using the ResponseWriter")
	case <-w.writing:
		t.Fatal("a second write started")
	default:
	}
	close(w.release)
	<-ended
}
