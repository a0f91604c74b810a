package toolexec

import "net/http"

// ToolFilter chooses the tools one caller sees in lists: given the request
// that asks for a list and the tools the surface would show, it returns
// those the caller may see, in the same order. It must not modify tools
// (return a new slice) and must be safe for concurrent use. A filter that
// cannot tell who the caller is should show only what an anonymous caller
// may call.
//
// A list request carries no call, so the auth hook does not run for it: the
// filter establishes identity itself, typically from the same credentials
// (oauth.Verifier.FilterTools verifies the bearer token when there is one).
type ToolFilter func(r *http.Request, tools []Tool) []Tool

// WithToolFilter turns on per-caller tool lists: every surface passes its
// lists through f before answering (REST GET /tools and GET /tools/{name},
// MCP tools/list and the HandsAI list, OXP GET /tools), and a tool f hides
// is answered as unknown by REST's GET /tools/{name} and POST
// /tools/{name}/validate. Calls are not filtered: the auth hook decides
// them, and, tools being hidden, it answers a call before the tool's
// lookup and the arguments' checks, so that a caller it refuses cannot
// tell a tool hidden from it from one that does not exist (see AuthHook).
// Without this option every caller sees every tool, and a call is answered
// in the execution API's order: an unknown tool is 404 before the hook
// runs.
func WithToolFilter(f ToolFilter) Option {
	return func(x *Executor) { x.toolFilter = f }
}

// visibleTools returns the tools of tools that the caller of r may see: all
// of them when no ToolFilter is set (see WithToolFilter). Surfaces call it
// on every list they answer; r is the list request.
func (x *Executor) visibleTools(r *http.Request, tools []Tool) []Tool {
	if x.toolFilter == nil || r == nil {
		return tools
	}
	return x.toolFilter(r, tools)
}
