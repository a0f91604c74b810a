package toolexec

import (
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
)

// SurfaceKit is the one extension point for packages that put an Executor
// on a wire protocol, as the mcp and oxp packages (and the explorer) do: it
// gives them the parts of the pipeline a surface needs and a host does not.
// A host serving tools never needs it; it uses New, the Executor's methods
// and the surfaces' handlers.
//
// Get one with Executor.SurfaceKit; it is a small value, cheap to get per
// request, and safe for concurrent use as its Executor is.
type SurfaceKit struct{ x *Executor }

// SurfaceKit returns the extension point for surface packages (see
// SurfaceKit).
func (x *Executor) SurfaceKit() SurfaceKit { return SurfaceKit{x} }

// Logger returns where the Executor logs (WithLogger), for the surface's own
// log lines.
func (k SurfaceKit) Logger() *slog.Logger { return k.x.logger }

// ReadBody reads r's body up to the Executor's limit (WithMaxBodyBytes),
// then gives r a fresh reader over the same bytes, so an auth hook that
// reads the body (to check a signature, say) still can. A body over the
// limit is an *Error with CodeTooLarge; the connection is marked to close.
func (k SurfaceKit) ReadBody(w http.ResponseWriter, r *http.Request) ([]byte, error) {
	return readBody(w, r, k.x.maxBodyBytes)
}

// MaxBodyBytes returns the largest request body the Executor's surfaces
// read (WithMaxBodyBytes), for a surface that frames messages itself, as
// the MCP stdio transport does with its lines.
func (k SurfaceKit) MaxBodyBytes() int64 { return k.x.maxBodyBytes }

// ExecutionAllowed reports whether the execution gate is open
// (WithAllowExecute), for a surface that says so before any call is made.
func (k SurfaceKit) ExecutionAllowed() bool { return k.x.allowExecute }

// AuthConfigured reports whether calls are guarded by an auth hook
// (WithAuthHook with a non-nil hook), so a surface can tell a caller that
// calls need credentials, as the explorer page does with its token field;
// it says nothing about which credentials the hook accepts.
func (k SurfaceKit) AuthConfigured() bool { return k.x.authHook != nil }

// AllTools lists every tool in every version, as the provider gives them
// (SurfaceKit.LatestTools lists the latest version of each), warning about
// names as LatestTools does.
func (k SurfaceKit) AllTools() []Tool {
	tools := k.x.tools.Tools()
	k.x.checkListedNames(tools)
	return tools
}

// FiltersTools reports whether lists are per caller (WithToolFilter), so
// that a surface which keeps a list it shows every caller knows when it
// must pass the list through SurfaceKit.VisibleTools first.
func (k SurfaceKit) FiltersTools() bool { return k.x.toolFilter != nil }

// IndexedLookup reports whether the provider finds a tool without listing
// them all (it implements ToolLookup, as Registry does), so that a surface
// may afford several lookups for one call instead of one pass over every
// tool.
func (k SurfaceKit) IndexedLookup() bool {
	_, ok := k.x.tools.(ToolLookup)
	return ok
}

// InputSchema returns the input schema clients see for t: its InputSchema,
// or {"type":"object"} (any object) for a tool without one. Every surface
// lists tools with it.
func (k SurfaceKit) InputSchema(t *Tool) json.RawMessage { return t.inputSchemaOrDefault() }

// Call runs req as Executor.Call does, with ics running for this call only,
// after the auth hook and before every other interceptor: the place for a
// surface's own checks that need an authenticated call (OXP's tool
// requirements, say). An error they return that is not an *Error fails
// StageIntercept.
func (k SurfaceKit) Call(ctx context.Context, req CallRequest, ics ...Interceptor) (*CallToolResult, error) {
	req.interceptors = ics
	return k.x.Call(ctx, req)
}

// Authenticate runs the Executor's auth hook (WithAuthHook) on r, a request
// that is not a call the pipeline runs, as it runs for a call but with no
// tool: in the hook, CallFromContext returns a Call whose Tool is the zero
// Tool, so a hook that decides per tool sees none and should admit whoever
// it would admit to some call. A hook that panics refuses, as it does for a
// call. It is for a surface that must admit such a request: a stream that
// holds the server's resources for as long as it lasts (an MCP
// subscriptions/listen stream), or a call whose tool the surface could not
// resolve, since only a caller the hook admits may learn whether a tool
// exists.
//
// It returns the request the hook passed on, whose context carries what
// the hook stored (the caller's identity: ContextWithIdentity), or r itself when
// no hook is set. When the hook refuses, it logs why at warning level and
// returns an *Error of StageAuth whose Code is CodeUnauthorized or
// CodeForbidden and whose Challenge is the hook's (WriteChallenge), for
// the surface to answer as it answers a refused call.
func (k SurfaceKit) Authenticate(r *http.Request) (*http.Request, error) {
	if k.x.authHook == nil {
		return r, nil
	}
	probe := &Call{Request: r}
	passed, reason, refusal := authenticate(k.x.authHook, k.x.maxBodyBytes, r.WithContext(withCall(r.Context(), probe)))
	if passed == nil {
		k.x.logger.WarnContext(r.Context(), "toolexec: request refused by auth hook",
			"method", r.Method, "path", r.URL.Path, "reason", reason)
		return nil, refusal
	}
	return passed, nil
}

// VisibleTools returns the tools of tools that the caller of r may see: all
// of them when no ToolFilter is set (see WithToolFilter). Surfaces call it
// on every list they answer; r is the list request.
func (k SurfaceKit) VisibleTools(r *http.Request, tools []Tool) []Tool {
	return k.x.visibleTools(r, tools)
}

// LatestTools lists the tools as discovery shows them: one entry per name,
// the latest version (as Executor.Lookup chooses it), in the provider's
// order of first appearance (AllTools lists every version).
//
// A name not of the form MCP recommends (CheckToolName) is logged at
// warning level the first time it is listed, unless the provider is a
// Registry, which warns when the tool is added.
func (k SurfaceKit) LatestTools() []Tool { return k.x.latestTools() }

// NotifiesToolsChanged reports whether the Executor's ToolProvider
// implements ToolsChangedNotifier, so that OnToolsChanged callbacks are ever
// called. Surfaces advertise change notifications only when it does.
func (k SurfaceKit) NotifiesToolsChanged() bool { return k.x.notifiesToolsChanged() }

// OnToolsChanged registers f to be called whenever the Executor's
// ToolProvider reports a change of its tool set, and returns a function that
// unregisters it. A provider that does not implement ToolsChangedNotifier
// never reports one: the returned function then does nothing.
func (k SurfaceKit) OnToolsChanged(f func()) (stop func()) { return k.x.onToolsChanged(f) }
