package toolexec

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"strings"
)

// AuthHook guards tool calls, on every surface. It is ordinary net/http middleware, so
// any existing authentication middleware serves as one:
//
//   - the call is allowed when the hook calls next; the request it passes to
//     next is the one the call continues with, so identity the hook stores
//     in that request's context reaches the handler (see
//     RequestFromContext). Derive that context from the request's own, as
//     middleware does (r.WithContext(context.WithValue(r.Context(), k, v))):
//     a hook that starts from context.Background() drops the call's
//     deadline and cancellation;
//   - the call is refused when the hook does not call next. Whatever the
//     hook wrote is discarded and logged at warning level: the caller gets
//     exactly 401 {"error":"Unauthorized"} (or its surface's equivalent), so
//     no reason leaks. A hook that refuses through WriteChallenge chooses
//     the status (401 or 403) and the WWW-Authenticate challenge the
//     surface sends with its documented body.
//
// While the hook runs, CallFromContext(r.Context()) returns the call being
// authorized (the resolved tool, its arguments, the surface), so a hook can
// decide per tool, as one enforcing ToolOptions.Scopes must.
//
// The order is the execution API's: the gate (403), then the tool's lookup
// (an unknown tool is 404, whoever asks), then the arguments are read (a
// body over the limit is 413), then the hook (401), then the interceptors.
// The one exception is where tools are hidden per caller (WithToolFilter):
// there the hook answers first, so that a caller it refuses gets the same
// refusal for a tool hidden from it, for a tool that does not exist, and
// for arguments it sent wrong; only a caller it admits learns which. The
// hook then also runs for a call of a tool that does not exist, seeing a
// Call whose Tool is the zero Tool (CallFromContext), and its refusal
// should say nothing of any tool. The hook also admits the requests that
// hold a stream open for a caller (MCP's subscriptions/listen, through
// SurfaceKit.Authenticate), again with the zero Tool. It sees the
// request's method, URL, headers and body: at most the Executor's body
// limit of it (WithMaxBodyBytes), from its start each time the hook runs
// on one request (reading a task runs it to admit the request, then as for
// a call of the task's tool). Discovery and validation never
// run it. A call made in-process without an HTTP request (Executor.Call
// with a nil CallRequest.Request) is the host's own and is not passed to
// the hook.
type AuthHook func(next http.Handler) http.Handler

// authRecorder captures what a rejecting hook wrote, for the log line.
type authRecorder struct {
	header http.Header
	status int
	body   bytes.Buffer
	// challenged: the hook refused through WriteChallenge, with challenge.
	challenged bool
	challenge  string
}

func (a *authRecorder) Header() http.Header { return a.header }

func (a *authRecorder) WriteHeader(status int) {
	if a.status == 0 {
		a.status = status
	}
}

func (a *authRecorder) Write(p []byte) (int, error) {
	if a.status == 0 {
		a.status = http.StatusOK
	}
	if room := 256 - a.body.Len(); room > 0 {
		a.body.Write(p[:min(len(p), room)])
	}
	return len(p), nil
}

// authenticate runs the hook on r, which it may change (see hookBody). It
// returns the request the hook passed on, or nil, the reason for the log
// and the refusal to answer when the hook refused.
func authenticate(hook AuthHook, limit int64, r *http.Request) (passed *http.Request, reason string, refusal *Error) {
	hookBody(r, limit)
	rec := &authRecorder{header: make(http.Header)}
	next := http.HandlerFunc(func(_ http.ResponseWriter, r2 *http.Request) { passed = r2 })
	func() {
		defer func() {
			if p := recover(); p != nil {
				passed, reason = nil, fmt.Sprintf("auth hook panicked: %v", p)
			}
		}()
		hook(next).ServeHTTP(rec, r)
	}()
	if passed != nil {
		return passed, "", nil
	}
	if reason != "" {
		return nil, reason, unauthorized()
	}
	status := rec.status
	if status == 0 {
		status = http.StatusUnauthorized
	}
	reason = fmt.Sprintf("hook answered %d", status)
	if msg := strings.TrimSpace(rec.body.String()); msg != "" {
		reason += ": " + msg
	}
	refusal = unauthorized()
	if rec.challenged {
		if status == http.StatusForbidden {
			refusal = forbidden()
		}
		refusal.Challenge = rec.challenge
		reason += " with challenge " + rec.challenge
	}
	return nil, reason, refusal
}

// hookBody readies r's body for the auth hook, which may read it (to check
// a signature, say). A body the surface read (readBody's replayBody) is
// given from its start: the hook may run more than once on one request (a
// task's request is admitted, then checked as a call of the task's tool),
// and must read all of it each time. Any other body is one no surface has
// read within its limit (where tools are hidden per caller, the hook
// answers a REST call before its body is read, or once it was found over
// the limit; a task's REST request is not read at all): the hook reads at
// most limit bytes of it, as a surface would.
func hookBody(r *http.Request, limit int64) {
	switch b := r.Body.(type) {
	case nil, *hookLimitedBody:
	case *replayBody:
		_, _ = b.Seek(0, io.SeekStart)
	default:
		if r.Body != http.NoBody {
			r.Body = &hookLimitedBody{http.MaxBytesReader(nil, b, limit)}
		}
	}
}

// hookLimitedBody is a body hookBody bounded, so that it is bounded once
// however often the hook runs.
type hookLimitedBody struct{ io.ReadCloser }

func unauthorized() *Error {
	return &Error{Stage: StageAuth, Code: CodeUnauthorized, Message: "Unauthorized"}
}
