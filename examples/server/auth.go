package main

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"net/http"
	"strings"

	"github.com/toolexec/toolexec"
)

// identityKey is the context key under which bearerAuth stores who the
// caller is.
type identityKey struct{}

// identityFrom returns the identity bearerAuth found for the call.
func identityFrom(ctx context.Context) (string, bool) {
	id, ok := ctx.Value(identityKey{}).(string)
	return id, ok
}

// bearerAuth is the server's auth hook: ordinary net/http middleware that
// lets a call through when it carries "Authorization: Bearer <token>" (or
// "X-HandsAI-Token: <token>", the header HandsAI's stdio bridge sends), and
// records the caller's identity in the request context for the handler.
//
// A refusal is 401 {"error":"Unauthorized"} with a WWW-Authenticate
// challenge (toolexec.WriteChallenge) whose error_description says that a
// static token is expected: MCP clients that see a bare "Bearer" challenge
// go looking for an OAuth authorization server this server does not have.
// The hook guards calls only: discovery needs no token.
func bearerAuth(token string) toolexec.AuthHook {
	want := []byte(token)
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if !hasToken(r, want) {
				toolexec.WriteChallenge(w, http.StatusUnauthorized, staticTokenChallenge(r))
				return
			}
			ctx := context.WithValue(r.Context(), identityKey{}, "demo-user")
			next.ServeHTTP(w, r.WithContext(ctx))
		})
	}
}

// staticTokenChallenge is the WWW-Authenticate challenge of a refused call:
// invalid_token when it carried a token (RFC 6750 leaves the error out when
// it carried none), and a description that tells a person or a client
// what to send.
func staticTokenChallenge(r *http.Request) string {
	const describe = `error_description="this server takes a static bearer token (no OAuth): send Authorization: Bearer <token>"`
	if r.Header.Get("Authorization") != "" || r.Header.Get("X-HandsAI-Token") != "" {
		return `Bearer realm="toolexec", error="invalid_token", ` + describe
	}
	return `Bearer realm="toolexec", ` + describe
}

// hasToken reports whether r carries the token, as a bearer token or in
// HandsAI's X-HandsAI-Token header.
func hasToken(r *http.Request, want []byte) bool {
	if got := r.Header.Get("X-HandsAI-Token"); got != "" {
		return subtle.ConstantTimeCompare([]byte(strings.TrimSpace(got)), want) == 1
	}
	scheme, got, _ := strings.Cut(r.Header.Get("Authorization"), " ")
	return strings.EqualFold(scheme, "Bearer") && subtle.ConstantTimeCompare([]byte(strings.TrimSpace(got)), want) == 1
}

// randomToken returns a fresh secret (at least 128 random bits, base32, so
// safe to paste into a shell): the demo token when TOOLEXEC_DEMO_TOKEN is not
// set.
func randomToken() string {
	return rand.Text()
}
