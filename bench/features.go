package bench

import (
	"context"
	"net/http"
	"time"

	"github.com/toolexec/toolexec"
	"github.com/toolexec/toolexec/mcp"
)

// A Feature is toolexec's MCP surface serving ToolAdd with one of the
// call's features on, and the request that uses it: what the feature
// costs a call that uses it is its cost over the surface with none on
// (FeatureNone).
type Feature struct {
	// Name says what is on, as tables print it.
	Name string
	// New returns a fresh handler.
	New func() http.Handler
	// Request is the call, answered with the sum 42.
	Request Request
}

// FeatureNone names the feature that is no feature: toolexec MCP as the
// call scenario measures it.
const FeatureNone = "toolexec MCP"

// Features are the MCP surface with each call feature on in turn, the
// first with none: a timeout of a minute, a concurrency limit of 1,024, a
// rate limit per caller, a cache that answers every call but the first,
// an auth hook that admits every call, an Observer that does nothing, an
// interceptor that passes the call on, a tool that may run as a task (not
// asked to), and a call that streams a progress notification before its
// answer (an SSE response, resumable: the default). Each has every other
// option at its default, as toolexec MCP does.
func Features() []Feature {
	call := WireJSONRPC.CallRequest(ToolAdd, []byte(`{"a":2,"b":40}`))
	with := func(name string, tool toolexec.ToolOptions, opts ...toolexec.Option) Feature {
		return Feature{Name: name, Request: call, New: func() http.Handler {
			return mcp.NewHandler(addExecutor(tool, false, opts...))
		}}
	}
	pass := func(next toolexec.CallFunc) toolexec.CallFunc { return next }
	progress := WireJSONRPC.CallRequest(ToolAdd, []byte(`{"a":2,"b":40}`))
	progress.Body = []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"add","arguments":{"a":2,"b":40},"_meta":{"progressToken":1}}}`)
	return []Feature{
		with(FeatureNone, toolexec.ToolOptions{}),
		with("+ timeout", toolexec.ToolOptions{}, toolexec.WithTimeout(time.Minute)),
		with("+ concurrency limit", toolexec.ToolOptions{}, toolexec.WithConcurrencyLimit(toolexec.ConcurrencyLimit{Max: 1024})),
		with("+ rate limit", toolexec.ToolOptions{}, toolexec.WithRateLimit(toolexec.RateLimit{Rate: 1 << 30})),
		with("+ cache hit", toolexec.ToolOptions{Cache: true, CacheShared: true}),
		with("+ auth hook", toolexec.ToolOptions{}, toolexec.WithAuthHook(func(next http.Handler) http.Handler { return next })),
		with("+ observer", toolexec.ToolOptions{}, toolexec.WithObserver(nopObserver{})),
		with("+ interceptor", toolexec.ToolOptions{}, toolexec.WithInterceptors(pass)),
		with("+ task support", toolexec.ToolOptions{TaskSupport: toolexec.TaskSupportOptional}),
		{Name: "+ progress (SSE)", Request: progress, New: func() http.Handler {
			return mcp.NewHandler(addExecutor(toolexec.ToolOptions{}, true))
		}},
	}
}

// addExecutor serves ToolAdd with the tool's options tool, reporting
// progress before it answers when progress is set, on an Executor with
// execution allowed and opts.
func addExecutor(tool toolexec.ToolOptions, progress bool, opts ...toolexec.Option) *toolexec.Executor {
	reg := &toolexec.Registry{}
	toolexec.MustAddTool(reg, toolexec.Tool{Name: ToolAdd, Description: "Adds two integers.", Options: tool},
		func(ctx context.Context, in AddIn) (SumOut, error) {
			if progress {
				_ = toolexec.ReportProgress(ctx, toolexec.Progress{Progress: 1, Total: 1})
			}
			return add(in), nil
		})
	return toolexec.New(reg, reg, append([]toolexec.Option{toolexec.WithAllowExecute(true)}, opts...)...)
}

// nopObserver is an Observer that records nothing: what observing costs
// the pipeline itself.
type nopObserver struct{}

func (nopObserver) StartCall(ctx context.Context, _ toolexec.CallInfo) (context.Context, toolexec.CallObserver) {
	return ctx, nopCallObserver{}
}

type nopCallObserver struct{}

func (nopCallObserver) Resolved(*toolexec.Tool)                    {}
func (nopCallObserver) Arguments(map[string]any)                   {}
func (nopCallObserver) CacheHit(context.Context, bool)             {}
func (nopCallObserver) Resume(ctx context.Context) context.Context { return ctx }
func (nopCallObserver) End(*toolexec.CallToolResult, error)        {}
func (nopCallObserver) TraceID() string                            { return "" }
func (nopCallObserver) StartStage(ctx context.Context, _ toolexec.StageInfo) (context.Context, toolexec.StageObserver) {
	return ctx, nopStage{}
}

type nopStage struct{}

func (nopStage) End(*toolexec.CallToolResult, error) {}
