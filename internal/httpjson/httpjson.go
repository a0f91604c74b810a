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
func Recoverer(logger *slog.Logger, what string, body func(w http.ResponseWriter)) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			tw := &trackingWriter{ResponseWriter: w}
			defer func() {
				p := recover()
				if p == nil {
					return
				}
				if p == http.ErrAbortHandler {
					panic(p)
				}
				logger.ErrorContext(r.Context(), what+" panicked", "panic", p, "stack", string(debug.Stack()))
				if !tw.wrote {
					body(w)
				}
			}()
			next.ServeHTTP(tw, r)
		})
	}
}

// Guard runs fn and reports whether it panicked; a panic is logged with its
// stack at error level, as Recoverer logs it. It is Recoverer for work that
// writes nothing itself, without the wrappers Recoverer needs around a
// handler. http.ErrAbortHandler is passed on.
func Guard(ctx context.Context, logger *slog.Logger, what string, fn func()) (panicked bool) {
	defer func() {
		p := recover()
		if p == nil {
			return
		}
		if p == http.ErrAbortHandler {
			panic(p)
		}
		logger.ErrorContext(ctx, what+" panicked", "panic", p, "stack", string(debug.Stack()))
		panicked = true
	}()
	fn()
	return false
}

// trackingWriter remembers whether the response has started, so the
// recoverer never writes a second status line.
type trackingWriter struct {
	http.ResponseWriter
	wrote bool
}

func (t *trackingWriter) WriteHeader(code int) {
	t.wrote = true
	t.ResponseWriter.WriteHeader(code)
}

func (t *trackingWriter) Write(p []byte) (int, error) {
	t.wrote = true
	return t.ResponseWriter.Write(p)
}

// Unwrap lets http.ResponseController reach the underlying writer.
func (t *trackingWriter) Unwrap() http.ResponseWriter { return t.ResponseWriter }
