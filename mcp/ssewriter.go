package mcp

import (
	"context"
	"errors"
	"net/http"
	"time"

	"github.com/toolexec/toolexec/internal/httpjson"
)

// sseWriter writes the events of one SSE response, each within a write
// deadline, so that a client that stops reading cannot hold the writer,
// or anyone waiting for it, past that deadline: the write fails, and its
// caller drops the stream. The deadline is set on the connection
// (http.ResponseController.SetWriteDeadline) before each write and cleared
// after it, so a stream that is merely quiet (a listen stream between
// changes) is never cut.
//
// A ResponseWriter that cannot take deadlines (a host's middleware that
// wraps it without an Unwrap method) is written from a goroutine instead,
// and waited for until the deadline: a write still blocked then is left
// running, the stream is dropped all the same, and end waits for that write
// before the handler returns (as a ResponseWriter must not be used after
// its handler returned). The call ends at the deadline; the handler's
// goroutine and the connection stay until the blocked write fails, which
// the connection's own timeouts (http.Server.WriteTimeout) or the client's
// going away decide.
//
// An sseWriter is used by one goroutine at a time (its owner's lock).
type sseWriter struct {
	w       http.ResponseWriter
	timeout time.Duration // the server-wide ceiling of one write (WithStreamWriteTimeout)
	// unbounded: the writer cannot take deadlines (see above).
	unbounded bool
	// stuck receives the result of a write left running past its
	// deadline; nil when there is none.
	stuck chan error
}

// errWriteStalled is what a write still blocked at its deadline fails
// with, on a writer that cannot take deadlines.
var errWriteStalled = errors.New("mcp: the client did not read the stream in time")

// deadline is when a write of a call starting now must be done: the
// ceiling from now, or the call's deadline (ctx's) when that comes first.
func (sw *sseWriter) deadline(ctx context.Context) time.Time {
	d := sw.ceiling()
	if cd, ok := ctx.Deadline(); ok && cd.Before(d) {
		d = cd
	}
	return d
}

// ceiling is when a write starting now that belongs to no call must be
// done.
func (sw *sseWriter) ceiling() time.Time {
	return time.Now().Add(sw.timeout)
}

// event writes data, a JSON-RPC message, as one event (see encodeEvent),
// and flushes it, failing when that is not done by deadline.
func (sw *sseWriter) event(data []byte, deadline time.Time) error {
	return sw.write(encodeEvent(data), deadline)
}

// eventWithID is event with id as the event's id when not "" (resumable
// streams: resume.go).
func (sw *sseWriter) eventWithID(id string, data []byte, deadline time.Time) error {
	return sw.write(encodeEventWithID(id, data), deadline)
}

// write writes p and flushes it, failing when that is not done by
// deadline.
func (sw *sseWriter) write(p []byte, deadline time.Time) error {
	if sw.stuck != nil {
		return errWriteStalled
	}
	rc := http.NewResponseController(sw.w)
	if !sw.unbounded {
		switch err := rc.SetWriteDeadline(deadline); {
		case errors.Is(err, http.ErrNotSupported):
			sw.unbounded = true
		case err != nil:
			return err
		}
	}
	if sw.unbounded {
		return sw.writeUnbounded(p, deadline)
	}
	if err := writeFlush(sw.w, rc, p); err != nil {
		return err
	}
	// Quiet streams must not be cut by a deadline long past.
	return rc.SetWriteDeadline(time.Time{})
}

// writeUnbounded writes p from a goroutine and waits for it until
// deadline (see sseWriter).
func (sw *sseWriter) writeUnbounded(p []byte, deadline time.Time) error {
	done := make(chan error, 1)
	go func() { done <- writeFlush(sw.w, http.NewResponseController(sw.w), p) }()
	timer := time.NewTimer(time.Until(deadline))
	defer timer.Stop()
	select {
	case err := <-done:
		return err
	case <-timer.C:
		sw.stuck = done
		return errWriteStalled
	}
}

// stalledWriteEnded waits for the write that stalled to end, and returns
// its error.
func (sw *sseWriter) stalledWriteEnded() error { return <-sw.stuck }

// end is called once the handler has written its stream's last event (or
// given up on it), before it returns: it waits for a write left running
// (see sseWriter), then bounds what net/http still writes after the
// handler returns (the end of the chunked body) by one more ceiling.
func (sw *sseWriter) end() {
	if sw.stuck != nil {
		_ = sw.stalledWriteEnded() // reported when it stalled, and the stream dropped then
		return
	}
	if !sw.unbounded {
		_ = http.NewResponseController(sw.w).SetWriteDeadline(time.Now().Add(sw.timeout))
	}
}

// writeFlush writes p and flushes it to the client. A ResponseWriter that
// cannot flush (a host's middleware wrapping it without Flush or Unwrap)
// still gets every byte, delivered when the response ends.
func writeFlush(w http.ResponseWriter, rc *http.ResponseController, p []byte) error {
	if _, err := w.Write(p); err != nil {
		return err
	}
	if err := rc.Flush(); err != nil && !errors.Is(err, http.ErrNotSupported) {
		return err
	}
	return nil
}

// encodeEvent is one SSE event carrying a JSON-RPC message. The message is
// made valid UTF-8 first, as every body the handler writes; a line break
// inside it (raw JSON a tool returned may hold some between tokens)
// continues the event on another data line, which the client joins back
// with a line feed.
func encodeEvent(data []byte) []byte { return encodeEventWithID("", data) }

// encodeEventWithID is encodeEvent with an "id:" line first when id is
// not "".
func encodeEventWithID(id string, data []byte) []byte {
	data = httpjson.ValidUTF8(data)
	buf := make([]byte, 0, len(data)+len(id)+28)
	if id != "" {
		buf = append(buf, "id: "...)
		buf = append(buf, id...)
		buf = append(buf, '\n')
	}
	buf = append(buf, "event: message\ndata: "...)
	for _, c := range data {
		switch c {
		case '\r':
			// dropped: a carriage return is JSON white space only
		case '\n':
			buf = append(buf, "\ndata: "...)
		default:
			buf = append(buf, c)
		}
	}
	return append(buf, '\n', '\n')
}

// keepAliveComment is the SSE comment a quiet listen stream carries.
var keepAliveComment = []byte(":\n\n")
