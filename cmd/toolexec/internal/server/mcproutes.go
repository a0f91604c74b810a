package server

import (
	"encoding/json"
	"net/http"
	"sort"
	"strings"

	"github.com/toolexec/toolexec/internal/hostguard"
	"github.com/toolexec/toolexec/mcp"
	"github.com/toolexec/toolexec/oauth"
)

// legacySSE is the path segment of mcp-toolbox's HTTP+SSE endpoint.
const legacySSE = "sse"

// mcpRoutes serves what lies under /mcp/ as mcp-toolbox does:
//
//	/mcp/                       every tool (MCP)
//	/mcp/tools/list, tools/call every tool (the HandsAI routes)
//	/mcp/NAME, /mcp/NAME/       the tools of toolset NAME only (MCP)
//	/mcp/NAME/tools/list, ...   the same toolset, on the HandsAI routes
//
// An unknown toolset, and any other path, is 404 with a JSON-RPC error,
// as is the HTTP+SSE transport of MCP 2024-11-05 (/mcp/sse,
// /mcp/NAME/sse), which is not served.
//
// With OAuth (and lists not public), the token check comes before
// anything else: /mcp/ and the HandsAI routes (and /mcp/sse) are part of
// the /mcp resource; /mcp/NAME is a resource of its own, BASE/mcp/NAME,
// whose tokens must name it, defined or not, so that a caller without a
// valid token learns nothing, not even which toolsets exist.
type mcpRoutes struct {
	all   http.Handler
	sets  *toolsets
	guard *hostguard.Guard
}

func (m *mcpRoutes) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	rest := strings.TrimPrefix(r.URL.Path, MCPPath+"/")
	if rest == "" || isHandsAIRoute(rest) {
		m.checked(m.sets.o.OAuth, m.all).ServeHTTP(w, r)
		return
	}
	name, tail, _ := strings.Cut(rest, "/")
	if name == legacySSE && tail == "" {
		m.checked(m.sets.o.OAuth, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			m.notFound(w, r, "Not Found: the HTTP+SSE transport of MCP 2024-11-05 is not served; use Streamable HTTP at "+MCPPath)
		})).ServeHTTP(w, r)
		return
	}
	// A toolset's endpoint is a resource of its own, BASE/mcp/NAME, whose
	// token check comes first, whether the toolset exists or not.
	var v *oauth.Verifier
	if m.sets.o.OAuth != nil {
		var err error
		if v, err = m.sets.mcpVerifier(name); err != nil {
			m.sets.o.logError("toolexec: cannot protect a toolset's endpoints", "toolset", name, "error", err)
			rpcError(w, http.StatusInternalServerError, "Internal error")
			return
		}
	}
	m.checked(v, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		m.toolset(w, r, name, tail)
	})).ServeHTTP(w, r)
}

// checked is h behind v's token check, when OAuth is on and lists are not
// public (see requireToken); else h.
func (m *mcpRoutes) checked(v *oauth.Verifier, h http.Handler) http.Handler {
	if v == nil || m.sets.o.OAuthPublicList {
		return h
	}
	return requireToken(v, h, nil, writeUnauthorized)
}

// toolset serves /mcp/NAME/TAIL: toolset name's MCP endpoint and its
// HandsAI routes; 404 for a toolset the current config does not define,
// and for other paths.
func (m *mcpRoutes) toolset(w http.ResponseWriter, r *http.Request, name, tail string) {
	ts, ok, err := m.sets.get(name)
	if err != nil {
		m.sets.o.logError("toolexec: cannot protect a toolset's endpoints", "toolset", name, "error", err)
		rpcError(w, http.StatusInternalServerError, "Internal error")
		return
	}
	if !ok {
		m.notFound(w, r, "Not Found: no toolset named "+jsonQuote(name))
		return
	}
	switch {
	case tail == "" || isHandsAIRoute(tail):
		ts.mcp.ServeHTTP(w, r)
	case tail == legacySSE:
		m.notFound(w, r, "Not Found: the HTTP+SSE transport of MCP 2024-11-05 is not served; use Streamable HTTP at "+MCPPath+"/"+name)
	default:
		m.notFound(w, r, "Not Found: "+jsonQuote(r.URL.Path))
	}
}

// isHandsAIRoute reports whether the path below an MCP endpoint is one of
// the HandsAI routes the mcp handler serves beside it.
func isHandsAIRoute(p string) bool {
	return p == "tools/list" || p == "tools/call"
}

// notFound answers 404 with a JSON-RPC error response (id null), the shape
// every answer of the MCP endpoint has; a request the DNS-rebinding
// defense refuses gets the 403 the MCP handler gives it instead, so a page
// cannot tell which toolsets exist.
func (m *mcpRoutes) notFound(w http.ResponseWriter, r *http.Request, msg string) {
	if !m.guard.Allowed(r) {
		rpcError(w, http.StatusForbidden, "Forbidden: origin or host not allowed")
		return
	}
	rpcError(w, http.StatusNotFound, msg)
}

// rpcError answers status with a JSON-RPC error response (id null).
func rpcError(w http.ResponseWriter, status int, msg string) {
	body, _ := json.Marshal(map[string]any{
		"jsonrpc": "2.0",
		"id":      nil,
		"error":   map[string]any{"code": mcp.CodeRequestRejected, "message": msg},
	})
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(status)
	_, _ = w.Write(append(body, '\n'))
}

// jsonQuote quotes s as a JSON string, so a name from the URL is shown
// without ambiguity.
func jsonQuote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// ToolsetNames returns the names of the set's toolsets, sorted.
func (s *Set) ToolsetNames() []string {
	names := make([]string, 0, len(s.toolsets))
	for name := range s.toolsets {
		names = append(names, name)
	}
	sort.Strings(names)
	return names
}
