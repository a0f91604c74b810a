package server

import (
	"encoding/json"
	"net/http"
	"net/url"
	"strings"

	"github.com/toolexec/toolexec/oauth"
	"github.com/toolexec/toolexec/oxp"
)

// requireToken puts h behind v: every request needs a valid bearer token
// for the endpoint it addresses, tool lists and MCP's initialize included,
// so that an MCP client signs in before it lists (it starts its
// authorization flow on the 401 of its first request). Exempt are CORS
// preflights (OPTIONS: browsers send no credentials on them) and the
// requests exempt reports (nil: none). A refused request is answered by
// refuse, in the surface's shape, with the verifier's challenge. The
// identity the verifier established travels on in the request's context,
// where the per-call hook and the tool filter use it instead of verifying
// the token again; the tools' scopes are still checked per call.
func requireToken(v *oauth.Verifier, h http.Handler, exempt func(*http.Request) bool, refuse func(w http.ResponseWriter, status int, challenge string)) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodOptions || (exempt != nil && exempt(r)) {
			h.ServeHTTP(w, r)
			return
		}
		rec := &refusal{header: http.Header{}}
		v.AuthHook(http.HandlerFunc(func(_ http.ResponseWriter, admitted *http.Request) {
			rec.passed = true
			h.ServeHTTP(w, admitted)
		})).ServeHTTP(rec, r)
		if !rec.passed {
			refuse(w, rec.status, rec.header.Get("WWW-Authenticate"))
		}
	})
}

// refusal records what the verifier answered a request it refused: its
// status and challenge; the body it wrote is dropped, the surface writes
// its own.
type refusal struct {
	header http.Header
	status int
	passed bool
}

func (rec *refusal) Header() http.Header         { return rec.header }
func (rec *refusal) Write(b []byte) (int, error) { return len(b), nil }
func (rec *refusal) WriteHeader(status int)      { rec.status = status }

// explorerPage reports whether r asks for the explorer page itself (its
// HTML holds no tool): a browser loads it without a token, and the page
// then sends the token its user types with every request it makes.
func explorerPage(r *http.Request) bool {
	return (r.Method == http.MethodGet || r.Method == http.MethodHead) && (r.URL.Path == "" || r.URL.Path == "/")
}

// oxpHealth reports whether r is OXP's health check, which names no tool.
func oxpHealth(r *http.Request) bool {
	return (r.Method == http.MethodGet || r.Method == http.MethodHead) && r.URL.Path == "/health"
}

// writeUnauthorized answers a refused REST, MCP or HandsAI request as the
// library's surfaces answer a refused call: 401 {"error":"Unauthorized"}
// (403 {"error":"Forbidden"}) with the challenge.
func writeUnauthorized(w http.ResponseWriter, status int, challenge string) {
	if challenge != "" {
		w.Header().Set("WWW-Authenticate", challenge)
	}
	if status == http.StatusForbidden {
		writeJSONError(w, http.StatusForbidden, "Forbidden")
		return
	}
	writeJSONError(w, http.StatusUnauthorized, "Unauthorized")
}

// writeOXPUnauthenticated answers a refused OXP request as the oxp package
// answers a refused call: OXP makes missing or refused credentials a
// Server Error Response with status 400; the challenge still says where to
// authenticate.
func writeOXPUnauthenticated(w http.ResponseWriter, status int, challenge string) {
	h := w.Header()
	h.Set(oxp.VersionHeader, oxp.Version)
	if challenge != "" {
		h.Set("WWW-Authenticate", challenge)
	}
	body := map[string]string{
		"message":           "Authentication is required",
		"developer_message": "the server did not accept the request's credentials; send valid ones (such as Authorization: Bearer <token>)",
	}
	if status == http.StatusForbidden {
		body = map[string]string{"message": "Forbidden", "developer_message": "the token does not grant what this request needs"}
	} else {
		status = http.StatusBadRequest
	}
	writeJSON(w, status, body)
}

// writeJSONError writes {"error": message}.
func writeJSONError(w http.ResponseWriter, status int, message string) {
	writeJSON(w, status, map[string]string{"error": message})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	data, _ := json.Marshal(v) // strings only: always encodes
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(status)
	_, _ = w.Write(append(data, '\n'))
}

// toolsetResources are the resource URIs of toolset name's endpoints:
// BASE/toolsets/NAME/{api,mcp,oxp}, and its MCP endpoint as mcp-toolbox
// serves it, BASE/mcp/NAME.
func toolsetResources(base, name string) []string {
	prefix := strings.TrimSuffix(base, "/") + ToolsetPrefix + url.PathEscape(name)
	return []string{prefix + RESTPrefix, prefix + MCPPath, prefix + OXPPrefix, mcpToolsetResource(base, name)}
}

// mcpToolsetResource is the resource URI of toolset name's MCP endpoint
// below /mcp: BASE/mcp/NAME.
func mcpToolsetResource(base, name string) string {
	return strings.TrimSuffix(base, "/") + MCPPath + "/" + url.PathEscape(name)
}

// verifierLocked returns toolset name's Verifier, derived from the
// server's for the toolset's own resources (so its tokens name
// /toolsets/NAME/mcp or /mcp/NAME, and its metadata says so), creating it
// on first use. t.mu must be held.
func (t *toolsets) verifierLocked(name string) (*oauth.Verifier, error) {
	if v, ok := t.verifiers[name]; ok {
		return v, nil
	}
	v, err := t.o.OAuth.ForResources(toolsetResources(t.o.OAuthBase, name)...)
	if err != nil {
		return nil, err
	}
	t.verifiers[name] = v
	return v, nil
}

// mcpVerifier returns the Verifier of /mcp/NAME: the toolset's, when the
// current config defines it; else one for BASE/mcp/NAME alone, made for
// the request and not kept, so that a caller without a valid token is
// answered alike whether the toolset exists or not.
func (t *toolsets) mcpVerifier(name string) (*oauth.Verifier, error) {
	if t.p.Current().HasToolset(name) {
		t.mu.Lock()
		defer t.mu.Unlock()
		return t.verifierLocked(name)
	}
	return t.o.OAuth.ForResources(mcpToolsetResource(t.o.OAuthBase, name))
}

// metadata serves the protected resource metadata of each toolset's
// endpoints at /.well-known/oauth-protected-resource/toolsets/NAME/{api,
// mcp,oxp}; a toolset the current config does not define is answered by
// the server's own metadata handler (a 404).
func (t *toolsets) metadata() http.Handler {
	prefix := "/.well-known/oauth-protected-resource" + ToolsetPrefix
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		name, _, _ := strings.Cut(strings.TrimPrefix(r.URL.Path, prefix), "/")
		if name == "" || !t.p.Current().HasToolset(name) {
			t.o.OAuth.Metadata().ServeHTTP(w, r)
			return
		}
		t.mu.Lock()
		v, err := t.verifierLocked(name)
		t.mu.Unlock()
		if err != nil {
			t.o.logError("toolexec: cannot protect a toolset's endpoints", "toolset", name, "error", err)
			writeJSONError(w, http.StatusInternalServerError, "Internal server error")
			return
		}
		v.Metadata().ServeHTTP(w, r)
	})
}

// mcpMetadata serves the protected resource metadata of /mcp/NAME at
// /.well-known/oauth-protected-resource/mcp/NAME, for any NAME that
// mcpRoutes takes for a toolset (one path segment, not sse), defined or
// not: the challenge of /mcp/NAME names it either way, and neither tells
// which toolsets exist. Anything else is answered by the server's own
// metadata handler (a 404).
func (t *toolsets) mcpMetadata() http.Handler {
	prefix := "/.well-known/oauth-protected-resource" + MCPPath + "/"
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		name := strings.TrimSuffix(strings.TrimPrefix(r.URL.Path, prefix), "/")
		if name == "" || name == legacySSE || strings.Contains(name, "/") {
			t.o.OAuth.Metadata().ServeHTTP(w, r)
			return
		}
		v, err := t.mcpVerifier(name)
		if err != nil {
			t.o.logError("toolexec: cannot protect a toolset's endpoints", "toolset", name, "error", err)
			writeJSONError(w, http.StatusInternalServerError, "Internal server error")
			return
		}
		v.Metadata().ServeHTTP(w, r)
	})
}

// logError logs at error level when the options have a logger.
func (o Options) logError(msg string, args ...any) {
	if o.Logger != nil {
		o.Logger.Error(msg, args...)
	}
}
