package toolexec

import (
	"context"
	"net/http"
)

// Surface names the wire protocol a call arrived by, so interceptors and
// logs can tell them apart.
type Surface string

// The surfaces toolexec serves.
const (
	SurfaceGo      Surface = "go"      // Executor.Call from the host's own code
	SurfaceREST    Surface = "rest"    // POST /tools/{name}/call
	SurfaceMCP     Surface = "mcp"     // MCP tools/call
	SurfaceHandsAI Surface = "handsai" // HandsAI-compatible tools/call
	SurfaceOXP     Surface = "oxp"     // OXP POST /tools/call
)

// Call is one tool call as it passes the interceptors: the resolved tool,
// its decoded arguments, the HTTP request when there is one, and the
// surface. An interceptor may replace Arguments before calling next; every
// later stage sees the replacement.
type Call struct {
	Tool      Tool
	Arguments map[string]any
	// Request is the HTTP request, after the auth hook; nil for in-process
	// calls made without one.
	Request *http.Request
	Surface Surface
}

// CallFunc runs a call and returns its result. A failed call returns a nil
// result and an error.
type CallFunc func(ctx context.Context, call *Call) (*CallToolResult, error)

// Interceptor wraps a CallFunc, in the manner of net/http middleware: it
// sees the call before it runs and its outcome after, and may short-circuit
// it by not calling next.
//
// Interceptors run after the gate, tool resolution, decoding and the auth
// hook, in this order, outermost first: the Executor's built-ins (see
// docs/pipeline.md), then those of WithInterceptors in the order given, then
// the tool's own ToolOptions.Interceptors; the handler runs innermost, with
// panics recovered. An error an interceptor returns that is not an *Error is
// reported as a failure of StageIntercept.
type Interceptor func(next CallFunc) CallFunc

// chain wraps h in ics so that ics[0] is outermost.
func chain(h CallFunc, ics ...[]Interceptor) CallFunc {
	for i := len(ics) - 1; i >= 0; i-- {
		for j := len(ics[i]) - 1; j >= 0; j-- {
			h = ics[i][j](h)
		}
	}
	return h
}
