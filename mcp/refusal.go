package mcp

import (
	"encoding/json"
	"net/http"

	"github.com/toolexec/toolexec"
	"github.com/toolexec/toolexec/internal/httpjson"
)

// CodeForbidden: the auth hook refused this tools/call with 403 (see
// toolexec.WriteChallenge): the caller is authenticated but lacks a
// permission the tool needs, such as an OAuth scope. A single refused call
// is answered HTTP 403 with WWW-Authenticate carrying the hook's challenge
// (error="insufficient_scope" and the scope needed, for oauth.Verifier)
// and this error as its body. The message is "Forbidden". The code is clear
// of those the official Go SDK and mcp-go give a meaning.
const CodeForbidden = -32012

// defaultChallenge is sent with a refusal whose hook gave no challenge:
// MCP clients expect the Bearer scheme.
const defaultChallenge = "Bearer"

// challengeOr returns challenge, or the default when it is empty.
func challengeOr(challenge string) string {
	if challenge == "" {
		return defaultChallenge
	}
	return challenge
}

// refusedFirst is for a tools/call the surface is about to refuse for
// something of its tool (its headers, whether it runs as a task) before
// the pipeline sees it: where tools are hidden per caller
// (toolexec.WithToolFilter), a caller the auth hook refuses must get that
// refusal instead, as the pipeline answers it, so that it cannot tell a
// hidden tool from one that does not exist. It sets *out to the refusal
// and reports true when so; elsewhere it reports false, and the surface's
// own refusal stands.
func (h *handler) refusedFirst(r *http.Request, id json.RawMessage, out *outcome) bool {
	kit := h.x.SurfaceKit()
	if !kit.FiltersTools() {
		return false
	}
	if _, err := kit.Authenticate(r); err != nil {
		*out = refusedOutcome(id, asError(err))
		return true
	}
	return false
}

// refusedOutcome is the outcome of a tools/call the auth hook refused.
func refusedOutcome(id json.RawMessage, e *toolexec.Error) outcome {
	out := outcome{refused: true, challenge: e.Challenge}
	if e.Code == toolexec.CodeForbidden {
		out.forbidden = true
		out.data = encodeError(id, newError(CodeForbidden, "Forbidden"))
		return out
	}
	out.data = encodeError(id, newError(CodeUnauthorized, "Unauthorized"))
	return out
}

// writeRefusal answers a request refused as a whole: 401
// {"error":"Unauthorized"}, or 403 with the JSON-RPC error(s) in out.data,
// each with the hook's challenge as WWW-Authenticate.
func writeRefusal(w http.ResponseWriter, out *outcome) {
	if !out.forbidden {
		httpjson.WriteUnauthorized(w, challengeOr(out.challenge))
		return
	}
	w.Header().Set("WWW-Authenticate", challengeOr(out.challenge))
	httpjson.SetHeaders(w.Header())
	w.WriteHeader(http.StatusForbidden)
	_, _ = w.Write(append(out.data, '\n'))
}

// writeHandsAIRefusal answers a HandsAI call the auth hook refused: 401
// {"error":"Unauthorized"}, or 403 with a HandsAI error envelope, each with
// the hook's challenge as WWW-Authenticate.
func writeHandsAIRefusal(w http.ResponseWriter, id json.RawMessage, e *toolexec.Error) {
	if e.Code != toolexec.CodeForbidden {
		httpjson.WriteUnauthorized(w, challengeOr(e.Challenge))
		return
	}
	w.Header().Set("WWW-Authenticate", challengeOr(e.Challenge))
	httpjson.Write(w, http.StatusForbidden, &handsAIResponse{JSONRPC: jsonrpcVersion, ID: id,
		Error: newError(CodeForbidden, "Forbidden")})
}
