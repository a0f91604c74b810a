package mcp

import (
	"encoding/json"
	"mime"
	"net/http"
	"strings"

	"github.com/toolexec/toolexec"
)

// NewHandler returns the MCP surface of x: an http.Handler serving MCP
// JSON-RPC on stateless Streamable HTTP and the HandsAI-compatible routes.
//
// Paths are matched on their ending, so the handler works wherever it is
// mounted, with or without the mount prefix stripped: a path ending in
// /tools/list or /tools/call is a HandsAI route, and every other path is the
// MCP endpoint. Mounted at /mcp (chi's r.Mount("/mcp", h), or
// mux.Handle("/mcp/", h) plus mux.Handle("/mcp", h)) it serves
//
//	POST /mcp             MCP JSON-RPC (GET and DELETE answer 405)
//	GET  /mcp/tools/list  HandsAI's tool list
//	POST /mcp/tools/call  HandsAI's tool call
//
// Every response body is JSON (a client that accepts only
// text/event-stream gets its JSON-RPC answer as one server-sent event), sent
// with X-Content-Type-Options: nosniff; docs/mcp.md lists every status and
// error. NewHandler panics if x is nil, as toolexec.New panics on a nil
// provider.
func NewHandler(x *toolexec.Executor, opts ...Option) http.Handler {
	if x == nil {
		panic("mcp: NewHandler: nil Executor")
	}
	h := &handler{x: x, name: "toolexec"}
	for _, opt := range opts {
		opt(h)
	}
	if h.version == "" {
		h.version = moduleVersion()
	}
	return h
}

// handler is configured once by NewHandler and never changes afterwards, so
// it is safe for concurrent use.
type handler struct {
	x            *toolexec.Executor
	name         string
	version      string
	instructions string
	pageSize     int
	origins      map[string]bool // nil: Origin not checked
	hosts        map[string]bool // nil: Host not checked
}

// ServeHTTP routes by the path's ending; see NewHandler.
func (h *handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	defer h.recoverPanic(w)
	w.Header().Set("X-Content-Type-Options", "nosniff")
	path := r.URL.Path
	handsAI := strings.HasSuffix(path, "/tools/list") || strings.HasSuffix(path, "/tools/call")
	if !h.hostAllowed(r.Host) || !h.originAllowed(r.Header.Get("Origin")) {
		h.x.Logger().WarnContext(r.Context(), "mcp: request refused by the origin/host allow-list",
			"host", r.Host, "origin", r.Header.Get("Origin"))
		h.reject(w, handsAI, http.StatusForbidden, "Forbidden: origin or host not allowed")
		return
	}
	switch {
	case strings.HasSuffix(path, "/tools/list"):
		h.handsAIList(w, r)
	case strings.HasSuffix(path, "/tools/call"):
		h.handsAICall(w, r)
	default:
		h.serveMCP(w, r)
	}
}

// recoverPanic keeps a bug in the surface itself from reaching the client as
// a dropped connection. Tool panics never get this far: the pipeline
// recovers them.
func (h *handler) recoverPanic(w http.ResponseWriter) {
	p := recover()
	if p == nil {
		return
	}
	if p == http.ErrAbortHandler {
		panic(p)
	}
	h.x.Logger().Error("mcp: handler panicked", "panic", p)
	writeJSON(w, http.StatusInternalServerError, errorResponse(nil, newError(CodeInternalError, "Internal error")))
}

// reject answers an HTTP-level refusal in the route's shape: a JSON-RPC
// error response with a null id on the MCP endpoint, a HandsAI envelope
// without one on the HandsAI routes.
func (h *handler) reject(w http.ResponseWriter, handsAI bool, status int, msg string) {
	e := newError(CodeRequestRejected, "%s", msg)
	if handsAI {
		writeJSON(w, status, &handsAIResponse{JSONRPC: jsonrpcVersion, Error: e})
		return
	}
	writeJSON(w, status, errorResponse(nil, e))
}

// methodNotAllowed answers 405 naming the one method the route takes.
func (h *handler) methodNotAllowed(w http.ResponseWriter, handsAI bool, allow string) {
	w.Header().Set("Allow", allow)
	h.reject(w, handsAI, http.StatusMethodNotAllowed, "Method not allowed: use "+allow)
}

// unauthorized answers an auth hook's refusal as every surface does:
// exactly 401 {"error":"Unauthorized"}, with a Bearer challenge.
func unauthorized(w http.ResponseWriter) {
	w.Header().Set("WWW-Authenticate", "Bearer")
	writeJSON(w, http.StatusUnauthorized, struct {
		Error string `json:"error"`
	}{"Unauthorized"})
}

// jsonContentType reports whether a request body is declared as JSON, or
// not declared at all. Insisting on a JSON type when one is declared keeps
// browsers from posting here cross-origin without a CORS preflight.
func jsonContentType(r *http.Request) bool {
	ct := r.Header.Get("Content-Type")
	if ct == "" {
		return true
	}
	mt, _, err := mime.ParseMediaType(ct)
	if err != nil {
		return false
	}
	return mt == "application/json" || strings.HasSuffix(mt, "+json")
}

// responseFormat is how the MCP endpoint writes a JSON-RPC answer.
type responseFormat int

const (
	formatJSON responseFormat = iota // application/json
	formatSSE                        // one text/event-stream event, for clients that accept nothing else
	formatNone                       // the client accepts neither: 406
)

// negotiateFormat reads Accept. JSON is the answer whenever the client takes
// it (or sends no Accept); a client that accepts only text/event-stream gets
// the same response as a single server-sent event.
func negotiateFormat(r *http.Request) responseFormat {
	values := r.Header.Values("Accept")
	if len(values) == 0 {
		return formatJSON
	}
	sse := false
	for _, v := range values {
		for _, part := range strings.Split(v, ",") {
			mt, params, err := mime.ParseMediaType(strings.TrimSpace(part))
			if err != nil {
				continue
			}
			if q, ok := params["q"]; ok && strings.Trim(q, "0.") == "" {
				continue // q=0: explicitly not acceptable
			}
			switch mt {
			case "application/json", "application/*", "*/*":
				return formatJSON
			case "text/event-stream":
				sse = true
			}
		}
	}
	if sse {
		return formatSSE
	}
	return formatNone
}

// writeJSON writes v as the JSON response body.
func writeJSON(w http.ResponseWriter, status int, v any) {
	data, err := json.Marshal(v)
	if err != nil {
		status = http.StatusInternalServerError
		data, _ = json.Marshal(errorResponse(nil, newError(CodeInternalError, "Internal error: response could not be encoded")))
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(append(data, '\n'))
}

// writeAnswer writes a JSON-RPC answer (one response or a batch of them) in
// the negotiated format.
func writeAnswer(w http.ResponseWriter, format responseFormat, status int, v any) {
	if format != formatSSE || status != http.StatusOK {
		writeJSON(w, status, v)
		return
	}
	data, err := json.Marshal(v)
	if err != nil {
		writeJSON(w, http.StatusInternalServerError, errorResponse(nil, newError(CodeInternalError, "Internal error: response could not be encoded")))
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(status)
	_, _ = w.Write([]byte("event: message\ndata: "))
	_, _ = w.Write(data)
	_, _ = w.Write([]byte("\n\n"))
}
