package toolexec

import (
	"net/http"

	"github.com/toolexec/toolexec/internal/httpjson"
)

// WriteChallenge refuses a request with an HTTP authentication challenge
// (RFC 9110, RFC 6750): status (http.StatusUnauthorized or
// http.StatusForbidden; any other value counts as 401) and challenge, the
// WWW-Authenticate value, such as
//
//	Bearer resource_metadata="https://api.example.com/.well-known/oauth-protected-resource"
//
// An AuthHook that wants the caller to learn how to authenticate calls it
// instead of writing its own answer, and does not call next. Inside the
// pipeline the call then fails with CodeUnauthorized (401) or CodeForbidden
// (403) and Error.Challenge set, and each surface answers with that status,
// that WWW-Authenticate header and its own documented body: nothing else the
// hook wrote reaches the caller. A hook that never calls WriteChallenge
// behaves exactly as before: a refusal is a 401 whose challenge is the
// surface's default.
//
// Used outside the pipeline (the hook mounted as ordinary middleware in
// front of another handler), WriteChallenge writes the header, the status
// and a JSON body {"error":"Unauthorized"} or {"error":"Forbidden"}.
//
// The challenge travels to the caller: it must not hold the credentials
// that were refused, nor any detail the caller should not see.
func WriteChallenge(w http.ResponseWriter, status int, challenge string) {
	if status != http.StatusForbidden {
		status = http.StatusUnauthorized
	}
	for w != nil {
		if rec, ok := w.(*authRecorder); ok {
			rec.challenged = true
			rec.challenge = challenge
			rec.WriteHeader(status)
			return
		}
		u, ok := w.(interface{ Unwrap() http.ResponseWriter })
		if !ok {
			break
		}
		w = u.Unwrap()
	}
	if w == nil {
		return
	}
	writeChallengeResponse(w, status, challenge)
}

// writeChallengeResponse writes a refusal with its challenge and the fixed
// body of its status.
func writeChallengeResponse(w http.ResponseWriter, status int, challenge string) {
	if status != http.StatusForbidden {
		httpjson.WriteUnauthorized(w, challenge)
		return
	}
	if challenge != "" {
		w.Header().Set("WWW-Authenticate", challenge)
	}
	writeError(w, http.StatusForbidden, "Forbidden")
}

// forbidden is the error of a call the auth hook refused with 403.
func forbidden() *Error {
	return &Error{Stage: StageAuth, Code: CodeForbidden, Message: "Forbidden"}
}

// statusOf is the HTTP status of a refusal by the auth hook.
func statusOf(e *Error) int {
	if e.Code == CodeForbidden {
		return http.StatusForbidden
	}
	return http.StatusUnauthorized
}
