package oxp

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"sync/atomic"

	"github.com/go-chi/chi/v5"

	"github.com/toolexec/toolexec"
	"github.com/toolexec/toolexec/internal/hostguard"
	"github.com/toolexec/toolexec/internal/httpjson"
	"github.com/toolexec/toolexec/internal/toolenc"
)

// Version is the OXP version this package speaks. Every response carries it
// in the OXP-Version header.
const Version = "1.0"

// VersionHeader is the header in which OXP clients and servers name the
// protocol version they speak.
const VersionHeader = "OXP-Version"

// DefaultToolkit is the toolkit of tools whose names have no namespace of
// their own ("add" is served as "Tools.add"), unless WithToolkit says
// otherwise.
const DefaultToolkit = "Tools"

// Option configures the handler NewHandler returns; the With functions of
// this package make them.
type Option interface{ apply(*handler) }

// optionFunc is an Option that is a function of the handler.
type optionFunc func(*handler)

func (f optionFunc) apply(h *handler) { f(h) }

// WithToolkit sets the toolkit of tools whose names carry no namespace: with
// WithToolkit("Calculator"), the tool "add" has the id "Calculator.add@..."
// and the name "Calculator_add". Tools named "Toolkit.Tool" or
// "toolkit/tool" keep their own toolkit. The name must match
// ^[A-Za-z0-9_-]+$ (NewHandler panics otherwise). The default is
// DefaultToolkit.
func WithToolkit(name string) Option {
	return optionFunc(func(h *handler) { h.toolkit = name })
}

// WithReadiness sets the readiness check behind GET /health: while ready
// returns false, the handler answers 503 so load balancers send calls
// elsewhere. ready runs on every health request with its context and must
// be fast and safe for concurrent use. Without it, GET /health always
// answers 200.
func WithReadiness(ready func(ctx context.Context) bool) Option {
	return optionFunc(func(h *handler) { h.ready = ready })
}

// WithAuthorizationChallenge sets how a missing authorization requirement is
// answered: challenge returns where the user can grant the provider's
// authorization (Challenge.URL) and where the client can poll for it
// (Challenge.CheckURL). It runs only for calls the Executor's auth hook let
// through, once per missing provider, with the call's HTTP request as the
// auth hook passed it on (so the identity the hook established is in its
// context) and the call's CallContext in its context (FromContext), so the
// user id is at hand. It must be safe for concurrent use. Without it, a
// missing authorization is reported by provider id only.
func WithAuthorizationChallenge(challenge func(r *http.Request, tool toolexec.Tool, need toolexec.AuthorizationRequirement) Challenge) Option {
	return optionFunc(func(h *handler) { h.challenge = challenge })
}

// NewHandler returns the OXP 1.0 surface of x, an http.Handler serving,
// relative to wherever the host mounts it:
//
//	GET  /health      200, or 503 while the WithReadiness check fails; no body
//	GET  /tools       {"items": [ToolDefinition, ...]}, every version of every tool
//	POST /tools/call  run a tool: {tool_id, call_id?, trace_id?, input?, context?}
//	GET  /tasks/{id}  a call that runs on as a task (Prefer: respond-async): 202 while it runs, then its answer
//	DELETE /tasks/{id}  cancel that call
//
// POST /tools/call also accepts the earlier draft's wrapped form,
// {"request": {...}}, and then answers {"result": {...}}. Every response
// carries OXP-Version: 1.0; a request whose OXP-Version names a version
// other than 1.x is refused with 400. Discovery and health are never passed
// to the Executor's auth hook; calls always are. With the Executor's
// toolexec.WithRebindingProtection, a request that fails its Host or Origin
// check is answered 403 before anything else.
//
// NewHandler panics if x is nil or an option is invalid, as
// http.ServeMux.Handle panics on a nil handler: both are programming errors
// found on the first run.
func NewHandler(x *toolexec.Executor, opts ...Option) http.Handler {
	if x == nil {
		panic("oxp: NewHandler: nil Executor")
	}
	h := &handler{x: x, toolkit: DefaultToolkit, entries: newEntryCache(x.SurfaceKit()), names: newNameCache(x), guard: rebindingGuard(x)}
	if x.SurfaceKit().NotifiesToolsChanged() {
		h.lists = toolenc.NewLists(toolenc.Watch(x.SurfaceKit().OnToolsChanged), func(e *entry) toolVersion { return toolVersion{e.tool.Name, e.tool.Version} })
	}
	for _, opt := range opts {
		opt.apply(h)
	}
	if !validName(h.toolkit) || len(h.toolkit) > maxNameLen-2 {
		panic(fmt.Sprintf("oxp: NewHandler: toolkit name %q must match ^[A-Za-z0-9_-]{1,62}$", h.toolkit))
	}
	h.callInterceptors = []toolexec.Interceptor{h.requirementsInterceptor}
	r := chi.NewRouter()
	r.Use(h.headers, httpjson.Recoverer(x.SurfaceKit().Logger(), recoverWhat, writeInternalError), h.checkVersion)
	r.NotFound(func(w http.ResponseWriter, _ *http.Request) {
		httpjson.Write(w, http.StatusNotFound, serverError{Message: "Not found"})
	})
	// Each path answers every method first with 405, then its own methods
	// with their handlers, so each 405 knows its Allow header. chi hands a
	// method it does not know at all (not one of HTTP's) to
	// MethodNotAllowed, whatever the path: that is 501, as HTTP has it.
	r.MethodNotAllowed(func(w http.ResponseWriter, _ *http.Request) {
		httpjson.Write(w, http.StatusNotImplemented, serverError{Message: "Method not implemented"})
	})
	r.Handle("/health", methodNotAllowed("GET, HEAD"))
	r.Handle("/tools", methodNotAllowed("GET"))
	r.Handle("/tools/call", methodNotAllowed("POST"))
	r.Handle("/tasks/{id}", methodNotAllowed("GET, HEAD, DELETE"))
	r.Get("/health", h.health)
	r.Head("/health", h.health)
	r.Get("/tools", h.list)
	r.Post("/tools/call", h.call)
	r.Get("/tasks/{id}", h.task) // calls that run on as tasks (tasks.go)
	r.Head("/tasks/{id}", h.task)
	r.Delete("/tasks/{id}", h.task)
	h.mux = r
	return h
}

type handler struct {
	// mux routes every request but calls, which ServeHTTP serves behind
	// the same guards itself.
	mux http.Handler

	x         *toolexec.Executor
	toolkit   string
	ready     func(context.Context) bool
	challenge func(*http.Request, toolexec.Tool, toolexec.AuthorizationRequirement) Challenge
	// callInterceptors are the per-call interceptors of every call: the
	// requirements check. Set once by NewHandler; never modified.
	callInterceptors []toolexec.Interceptor
	// memo is the catalog last built (see catalog).
	memo atomic.Pointer[catalogMemo]
	// names remembers which name each tool id resolved to (see
	// nameCache); nil when the provider reports no changes.
	names *nameCache
	// entries caches each tool version's encoding in GET /tools.
	entries *toolenc.Cache[entry]
	// lists keeps GET /tools between the changes the provider reports;
	// nil when it reports none (see list).
	lists *toolenc.Lists[entry, toolVersion]
	// logged remembers which tools GET /tools has already warned about.
	logged onceLog
	// guard is the Executor's rebinding protection
	// (toolexec.WithRebindingProtection); nil when it is off.
	guard *hostguard.Guard
}

// methodNotAllowed answers 405 with the path's methods in Allow.
func methodNotAllowed(allow string) http.HandlerFunc {
	return func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Allow", allow)
		httpjson.Write(w, http.StatusMethodNotAllowed, serverError{Message: "Method not allowed"})
	}
}

// health is GET /health.
func (h *handler) health(w http.ResponseWriter, r *http.Request) {
	w.Header().Del("Content-Type") // no body
	if h.ready != nil && !h.ready(r.Context()) {
		w.WriteHeader(http.StatusServiceUnavailable)
		return
	}
	w.WriteHeader(http.StatusOK)
}

func (h *handler) headers(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		setHeaders(w.Header())
		next.ServeHTTP(w, r)
	})
}

// supportedVersion reports whether this package accepts v, from a
// request's OXP-Version header: 1, 1.x or 1.x.y. A 1.x client speaks 1.0,
// as minor versions only add to the protocol.
func supportedVersion(v string) bool {
	parts := strings.Split(v, ".")
	if len(parts) > 3 || parts[0] != "1" {
		return false
	}
	for _, p := range parts[1:] {
		if !numeric(p) {
			return false
		}
	}
	return true
}

// checkVersion refuses a request that asks for a protocol version this
// package does not speak. A request without the header is assumed to speak
// the latest version, which is 1.0.
func (h *handler) checkVersion(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if vs := r.Header[versionKey]; len(vs) > 0 && refuseVersion(w, vs) {
			return
		}
		next.ServeHTTP(w, r)
	})
}

// refuseVersion refuses a request whose OXP-Version header has the values
// vs (at least one) when they are not one version this package speaks, and
// reports whether it did.
func refuseVersion(w http.ResponseWriter, vs []string) bool {
	if len(vs) == 1 && supportedVersion(strings.TrimSpace(vs[0])) {
		return false
	}
	httpjson.Write(w, http.StatusBadRequest, serverError{
		Message:          fmt.Sprintf("OXP version %q is not supported", strings.Join(vs, ", ")),
		DeveloperMessage: "this server speaks OXP " + Version + "; send " + VersionHeader + ": " + Version + " or leave the header out",
	})
	return true
}

// recoverWhat names the handler in the log line of a panic it recovered.
const recoverWhat = "oxp: handler"

// writeInternalError answers a panic the handler recovered.
func writeInternalError(w http.ResponseWriter) {
	httpjson.Write(w, http.StatusInternalServerError, serverError{Message: "Internal server error"})
}
