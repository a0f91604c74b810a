package toolexec

import (
	"context"
	"encoding/json"
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
	// Tool is the resolved tool, in the version the call asked for.
	Tool Tool
	// Arguments are the call's decoded arguments (see Executor.Call for how
	// numbers arrive). They belong to this call alone: an interceptor may
	// change them in place or replace the map before calling next.
	Arguments map[string]any
	// Request is the HTTP request, after the auth hook; nil for in-process
	// calls made without one.
	Request *http.Request
	// Surface is the protocol the call arrived by.
	Surface Surface

	// obs observes the call's stages (WithObserver); nil observes nothing.
	obs CallObserver

	// input is the call of a typed tool's handler on the arguments it
	// decoded and checked itself (checkedInput): set, the validation stage
	// has nothing left to check in them and the handler runs on it, not on
	// Arguments (nil unless something configured may read them).
	input decodedCall

	// conforming is structured content a typed tool produced from a Go type
	// whose every value encodes to JSON its inferred output schema accepts,
	// while the call's tool declares that very schema: the validation stage
	// skips a result whose StructuredContent is still these bytes.
	conforming json.RawMessage

	// peer is CallRequest.Peer (see PeerFromContext).
	peer Peer
	// askedInput: the handler called RequestInput, so its result depends on
	// answers the arguments do not hold, and is never cached.
	askedInput bool
}

// CallFunc runs a call and returns its result. A failed call returns a nil
// result and an error.
type CallFunc func(ctx context.Context, call *Call) (*CallToolResult, error)

// Interceptor wraps a CallFunc, in the manner of net/http middleware: it
// sees the call before it runs (the tool, the arguments, the surface, and
// through ctx the HTTP request, what the auth hook stored and what the
// Observer added, such as the call's span) and its outcome after, and may
// change either, or short-circuit the call by not calling next.
//
// Interceptors run after the gate, tool resolution, decoding and the auth
// hook, in this order, outermost first:
//
//  1. the built-ins: timeout, concurrency limit, input transforms, schema
//     validation, read-through cache, output transforms (each does nothing
//     unless configured; docs/pipeline.md describes them);
//  2. those of WithInterceptors, in the order given;
//  3. the tool's own ToolOptions.Interceptors, in the order given;
//
// then the handler runs innermost, with panics recovered. So an interceptor
// sees the arguments after transforms and validation, does not run on a
// cache hit, and runs within the timeout and the concurrency limit.
//
// An interceptor fails the call by returning an error: an *Error keeps its
// Stage and Code; any other error is reported as a failure of
// StageIntercept with CodeInternal and the error's message. A panic in an
// interceptor is recovered and reported as StageIntercept with CodePanic.
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
