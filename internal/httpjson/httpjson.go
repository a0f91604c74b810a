// Package httpjson holds the small HTTP pieces every toolexec surface
// shares: writing JSON bodies, the fixed 401 answer, Retry-After values, and
// the recoverer that keeps a bug in a surface from dropping a connection or
// sending a stack trace.
package httpjson

import (
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"runtime/debug"
	"strconv"
	"time"
)

// SetHeaders marks a response as JSON that browsers must not sniff. It
// replaces both headers, as Header.Set does, with one allocation for the
// two values (each slice is capped, so appending to one never reaches the
// other).
func SetHeaders(h http.Header) {
	v := make([]string, 2)
	v[0], v[1] = "application/json", "nosniff"
	h["Content-Type"] = v[0:1:1]
	h["X-Content-Type-Options"] = v[1:2:2]
}

// Write encodes v as the body, with a trailing newline, under status. A
// value that cannot be encoded becomes a 500 with a generic JSON error, so
// the body is always JSON.
func Write(w http.ResponseWriter, status int, v any) {
	data, err := json.Marshal(v)
	if err != nil {
		status, data = http.StatusInternalServerError, []byte(`{"error":"Internal server error"}`)
	}
	SetHeaders(w.Header())
	w.WriteHeader(status)
	_, _ = w.Write(append(ValidUTF8(data), '\n'))
}

// unauthorizedBody is the one answer to a call the auth hook refused, on
// every surface: it says nothing of why.
const unauthorizedBody = `{"error":"Unauthorized"}` + "\n"

// WriteUnauthorized answers 401 {"error":"Unauthorized"}. A non-empty
// challenge is sent as WWW-Authenticate (MCP clients expect "Bearer").
func WriteUnauthorized(w http.ResponseWriter, challenge string) {
	SetHeaders(w.Header())
	if challenge != "" {
		w.Header().Set("WWW-Authenticate", challenge)
	}
	w.WriteHeader(http.StatusUnauthorized)
	_, _ = w.Write([]byte(unauthorizedBody))
}

// RetryAfter is the Retry-After header value for d: whole seconds, rounded
// up so a client never retries too early, and at least 1.
func RetryAfter(d time.Duration) string {
	s := int64((d + time.Second - 1) / time.Second)
	return strconv.FormatInt(max(s, 1), 10)
}

// Recoverer returns middleware that recovers a panic in next, logs it with
// its stack at error level, and answers 500 with body (when nothing has been
// written yet). http.ErrAbortHandler is passed on, as net/http expects.
//
// The middleware adds one small frame to the stack of every request it
// serves: the recovery itself runs only once something has panicked.
func Recoverer(logger *slog.Logger, what string, body func(w http.ResponseWriter)) func(http.Handler) http.Handler {
	rc := &recoverer{logger: logger, what: what, body: body}
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			tw := &TrackingWriter{ResponseWriter: w}
			defer rc.recover(tw, r)
			next.ServeHTTP(tw, r)
		})
	}
}

// recoverer is what one Recoverer middleware answers a panic with.
type recoverer struct {
	logger *slog.Logger
	what   string
	body   func(w http.ResponseWriter)
}

// recover is deferred by the middleware: it recovers a panic and answers
// it.
func (rc *recoverer) recover(tw *TrackingWriter, r *http.Request) {
	if p := recover(); p != nil {
		LogPanic(r.Context(), rc.logger, rc.what, p)
		if !tw.Started() {
			rc.body(tw.ResponseWriter)
		}
	}
}

// LogPanic handles p, a panic value recover returned while doing what: it
// logs p with the stack at error level ("<what> panicked"), except for
// http.ErrAbortHandler, which it panics with again, as net/http expects.
// A surface that recovers panics itself calls it from its deferred
// function, after recover, and then answers in its own shape.
func LogPanic(ctx context.Context, logger *slog.Logger, what string, p any) {
	if p == http.ErrAbortHandler {
		panic(p)
	}
	logger.ErrorContext(ctx, what+" panicked", "panic", p, "stack", string(debug.Stack()))
}

// TrackingWriter is a ResponseWriter that remembers whether the response
// has started, so a recoverer never writes a second status line.
type TrackingWriter struct {
	http.ResponseWriter
	wrote bool
}

// Started reports whether WriteHeader or Write has been called.
func (t *TrackingWriter) Started() bool { return t.wrote }

// WriteHeader records that the response has started and passes code on.
func (t *TrackingWriter) WriteHeader(code int) {
	t.wrote = true
	t.ResponseWriter.WriteHeader(code)
}

// Write records that the response has started and passes p on.
func (t *TrackingWriter) Write(p []byte) (int, error) {
	t.wrote = true
	return t.ResponseWriter.Write(p)
}

// Unwrap lets http.ResponseController reach the underlying writer.
func (t *TrackingWriter) Unwrap() http.ResponseWriter { return t.ResponseWriter }
