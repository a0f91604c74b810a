package mcp

import (
	"mime"
	"net/http"
	"strings"
	"sync/atomic"
	"time"

	"github.com/toolexec/toolexec"
	"github.com/toolexec/toolexec/internal/hostguard"
	"github.com/toolexec/toolexec/internal/httpjson"
	"github.com/toolexec/toolexec/internal/toolenc"
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
// text/event-stream gets its JSON-RPC answer as one server-sent event),
// except for a call that streams progress, log messages or input requests
// and subscriptions/listen, which answer with an SSE stream; all are sent
// with X-Content-Type-Options: nosniff. docs/mcp.md lists every status and
// error. Every route is behind the DNS-rebinding defense (see
// WithAllowedHosts), which also admits the lists of the Executor's
// toolexec.WithRebindingProtection. NewHandler panics if x is nil, as toolexec.New panics on a nil
// provider.
func NewHandler(x *toolexec.Executor, opts ...Option) http.Handler {
	if x == nil {
		panic("mcp: NewHandler: nil Executor")
	}
	h := &handler{x: x, headers: httpjson.NewHeaders(), name: "toolexec", maxBatch: DefaultMaxBatchSize, cacheScope: CachePrivate,
		tools: newToolCache(x.SurfaceKit()), execTools: newExecutionToolCache(x.SurfaceKit())}
	if p, ok := x.SurfaceKit().RebindingProtection(); ok {
		h.guard.AllowHosts(p.AllowedHosts...)
		h.guard.AllowOrigins(p.AllowedOrigins...)
	}
	for _, opt := range opts {
		opt.apply(h)
	}
	if h.version == "" {
		h.version = moduleVersion()
	}
	h.serverInfoMember = serverInfoMember(h.name, h.version)
	h.modernListTail = modernListTail(h.ttl, h.cacheScope, h.serverInfoMember)
	if x.SurfaceKit().NotifiesToolsChanged() {
		h.lists = toolenc.NewLists(toolenc.Watch(x.SurfaceKit().OnToolsChanged), func(t *toolexec.Tool) string { return t.Name })
	}
	h.initStreaming()
	h.initShared()
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
	maxBatch     int // WithMaxBatchSize
	// guard is the DNS-rebinding defense: WithAllowedHosts,
	// WithAllowedOrigins, WithoutRebindingProtection, and the lists of the
	// Executor's toolexec.WithRebindingProtection.
	guard hostguard.Guard
	// serverInfoMember is the _meta member naming the server in every
	// 2026-07-28 result, encoded once.
	serverInfoMember []byte
	ttl              time.Duration // WithCacheHints
	cacheScope       CacheScope    // WithCacheHints
	streaming                      // streamed calls and input requests: streamcall.go
	shared                         // what replicas share: shared.go

	// headers holds the JSON response header values, shared by responses.
	headers httpjson.Headers

	// tools caches each tool's encoding for the lists (see newToolCache);
	// execTools, with its execution.taskSupport, for tools/list at
	// 2025-11-25 (tasks_2025_11_25.go).
	tools, execTools *toolenc.Cache[toolexec.Tool]
	// lists keeps the tools between the changes the provider reports, nil
	// when it reports none; gen, what is encoded of the current generation
	// (toollist.go).
	lists *toolenc.Lists[toolexec.Tool, string]
	gen   atomic.Pointer[listGen]
	// modernListTail ends a 2026-07-28 tools/list answer (modernListTail).
	modernListTail []byte
}

// route is what ServeHTTP serves a request as.
type route uint8

const (
	routeMCP         route = iota // POST: MCP JSON-RPC
	routeHandsAIList              // GET .../tools/list
	routeHandsAICall              // POST .../tools/call
)

// ServeHTTP routes by the path's ending; see NewHandler.
//
// Every route runs behind the same two guards, in this one frame so that
// calls need as little stack as they can (see serveMCP): a recoverer, so
// that a bug in the surface itself (or a panic in the host's code it calls
// outside the pipeline, such as the tool provider while listing) reaches
// the client neither as a dropped connection nor as a stack trace, and the
// DNS-rebinding defense (the Host and Origin checks of WithAllowedHosts and
// WithAllowedOrigins), which refuses a request that fails it with 403 in
// the route's shape. Tool panics never get this far: the pipeline recovers
// them.
func (h *handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h.headers.SetNoSniff(w.Header())
	rt := routeMCP
	switch path := r.URL.Path; {
	case strings.HasSuffix(path, "/tools/list"):
		rt = routeHandsAIList
	case strings.HasSuffix(path, "/tools/call"):
		rt = routeHandsAICall
	}
	tw := &httpjson.TrackingWriter{ResponseWriter: w}
	defer h.recoverRoute(tw, r, rt)
	if !h.requestAllowed(r) {
		h.refuseDisallowed(tw, r, rt != routeMCP)
		return
	}
	switch rt {
	case routeHandsAIList:
		h.handsAIList(tw, r)
	case routeHandsAICall:
		h.handsAICall(tw, r)
	default:
		h.serveMCP(tw, r)
	}
}

// recoverRoute is deferred by ServeHTTP: it recovers a panic, logs it with
// its stack, and answers 500 with an internal error in the route's shape
// when nothing has been written yet.
func (h *handler) recoverRoute(tw *httpjson.TrackingWriter, r *http.Request, rt route) {
	if p := recover(); p != nil {
		h.routePanicked(tw, r, rt, p)
	}
}

// routePanicked answers a panic recoverRoute recovered.
func (h *handler) routePanicked(tw *httpjson.TrackingWriter, r *http.Request, rt route, p any) {
	what := "mcp: MCP endpoint"
	if rt != routeMCP {
		what = "mcp: HandsAI route"
	}
	httpjson.LogPanic(r.Context(), h.x.SurfaceKit().Logger(), what, p)
	if tw.Started() {
		return
	}
	if rt == routeMCP {
		httpjson.Write(tw.ResponseWriter, http.StatusInternalServerError, errorResponse(nil, newError(CodeInternalError, "Internal error")))
		return
	}
	httpjson.Write(tw.ResponseWriter, http.StatusInternalServerError, &handsAIResponse{JSONRPC: jsonrpcVersion,
		Error: newError(CodeInternalError, "Internal error")})
}

// refuseDisallowed answers a request the DNS-rebinding defense refused.
func (h *handler) refuseDisallowed(w http.ResponseWriter, r *http.Request, handsAI bool) {
	h.x.SurfaceKit().Logger().WarnContext(r.Context(), "mcp: request refused by the origin/host allow-list",
		"host", r.Host, "origin", r.Header.Get("Origin"))
	h.reject(w, handsAI, http.StatusForbidden, "Forbidden: origin or host not allowed")
}

// reject answers an HTTP-level refusal in the route's shape: a JSON-RPC
// error response with a null id on the MCP endpoint, a HandsAI envelope
// without one on the HandsAI routes.
func (h *handler) reject(w http.ResponseWriter, handsAI bool, status int, msg string) {
	e := newError(CodeRequestRejected, "%s", msg)
	if handsAI {
		httpjson.Write(w, status, &handsAIResponse{JSONRPC: jsonrpcVersion, Error: e})
		return
	}
	httpjson.Write(w, status, errorResponse(nil, e))
}

// methodNotAllowed answers 405 naming the one method the route takes.
func (h *handler) methodNotAllowed(w http.ResponseWriter, handsAI bool, allow string) {
	w.Header().Set("Allow", allow)
	h.reject(w, handsAI, http.StatusMethodNotAllowed, "Method not allowed: use "+allow)
}

// jsonContentType reports whether a request body is declared as JSON, or
// not declared at all. Insisting on a JSON type when one is declared keeps
// browsers from posting here cross-origin without a CORS preflight.
func jsonContentType(r *http.Request) bool {
	ct := header(r.Header, "Content-Type")
	if ct == "" || ct == "application/json" {
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
// the same response as a single server-sent event. sse reports whether
// Accept admits text/event-stream (see acceptsEventStream), read in the
// same pass.
func negotiateFormat(r *http.Request) (format responseFormat, sse bool) {
	values := r.Header["Accept"]
	switch {
	case len(values) == 0:
		return formatJSON, false
	case len(values) == 1 && values[0] == "application/json, text/event-stream": // what clients send (the specification's words)
		return formatJSON, true
	}
	takesJSON := false
	for _, v := range values {
		for v != "" {
			var part string
			part, v, _ = strings.Cut(v, ",")
			switch acceptedFormat(part) {
			case formatJSON:
				takesJSON = true
			case formatSSE:
				sse = true
			}
		}
	}
	switch {
	case takesJSON:
		return formatJSON, sse
	case sse:
		return formatSSE, true
	}
	return formatNone, false
}

// acceptedFormat reads one media range of Accept: formatJSON for a range
// that takes JSON, formatSSE for text/event-stream, formatNone for anything
// else, a malformed range, or one with q=0 (explicitly not acceptable).
// Media types are compared case-insensitively; a range without parameters,
// the usual kind, is read without allocating.
func acceptedFormat(part string) responseFormat {
	mt := strings.TrimSpace(part)
	if strings.Contains(mt, ";") {
		var params map[string]string
		var err error
		if mt, params, err = mime.ParseMediaType(mt); err != nil {
			return formatNone
		}
		if q, ok := params["q"]; ok && strings.Trim(q, "0.") == "" {
			return formatNone
		}
	}
	switch {
	case strings.EqualFold(mt, "application/json"), strings.EqualFold(mt, "application/*"), mt == "*/*":
		return formatJSON
	case strings.EqualFold(mt, "text/event-stream"):
		return formatSSE
	}
	return formatNone
}

// writeAnswer writes an encoded JSON-RPC answer (one response or a batch of
// them) with status 200 in the negotiated format. data is the handler's own
// and may be appended to. An answer sent as an event is written within
// the stream write timeout, as every event is (see sseWriter).
func (h *handler) writeAnswer(w http.ResponseWriter, format responseFormat, data []byte) {
	data = httpjson.ValidUTF8(data)
	if format == formatSSE {
		w.Header().Set("Content-Type", "text/event-stream")
		w.Header().Set("Cache-Control", "no-cache")
		w.WriteHeader(http.StatusOK)
		sw := sseWriter{w: w, timeout: h.writeTimeout}
		_ = sw.event(data, sw.ceiling())
		sw.end()
		return
	}
	h.headers.SetJSON(w.Header()) // nosniff is set by ServeHTTP
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(append(data, '\n'))
}

// writeParts writes an answer in three parts (see outcome.shared) as
// writeAnswer writes JSON, without joining them: the shared part is
// written as it is kept (valid UTF-8 already: see newToolCache).
func (h *handler) writeParts(w http.ResponseWriter, out *outcome) {
	h.headers.SetJSON(w.Header()) // nosniff is set by ServeHTTP
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(httpjson.ValidUTF8(out.data))
	_, _ = w.Write(out.shared)
	_, _ = w.Write(httpjson.ValidUTF8(out.tail))
	_, _ = w.Write(newline)
}

// newline ends every JSON answer. It is never modified.
var newline = []byte{'\n'}
