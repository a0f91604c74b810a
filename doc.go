// Package toolexec runs a Go service's tools over HTTP.
//
// A tool is a name, a description, a JSON Schema for its input and a
// handler. Describe each tool once, in a Registry, and build an Executor on
// it; the Executor is the one call pipeline that every surface shares:
//
//	type AddIn struct {
//		A int `json:"a"`
//		B int `json:"b"`
//	}
//	type AddOut struct {
//		Sum int `json:"sum"`
//	}
//
//	reg := toolexec.NewRegistry()
//	toolexec.MustAddTool(reg, toolexec.Tool{Name: "add", Description: "Adds two integers."},
//		func(ctx context.Context, in AddIn) (AddOut, error) { return AddOut{Sum: in.A + in.B}, nil })
//	x := toolexec.New(reg, reg, toolexec.WithAllowExecute(true))
//
// A typed tool, as above, gets its input and output schemas inferred from
// its Go types (the output is an object: its JSON is the result's
// structured content, and a text block repeats it). A tool with a hand-written schema takes a ToolCallHandler
// (or its two-parameter form, BasicToolCallHandler) that receives the
// arguments as a map.
//
// The surfaces are plain http.Handlers that the host mounts under its own
// router (net/http.ServeMux, chi, anything that takes an http.Handler):
//
//   - NewHandler: the REST API (list, describe, call, validate);
//   - package mcp: MCP JSON-RPC over stateless Streamable HTTP, with
//     HandsAI-compatible routes;
//   - package oxp: the Open eXecution Protocol 1.0.
//
// Every call, whichever surface it arrives by, passes the same ordered
// stages, and the first failing stage ends it with an *Error naming that
// stage and a Code: the execution gate (off until WithAllowExecute(true)),
// the tool lookup, decoding the arguments, the auth hook (WithAuthHook),
// the interceptors (timeout, concurrency limit, input transforms, schema
// validation, cache, output transforms, then the host's own), and finally
// the handler, with its panics recovered and its context cancelled when the
// client goes away. Executor.Call runs the same pipeline in-process, which
// is also how tests drive it without HTTP.
//
// A handler's answer becomes an MCP CallToolResult: content blocks (Text,
// ImageContent, ...), optional structured content, and IsError for a
// failure the model should see. A Go error from the handler is a failed
// call; a *ToolError adds retry hints that the surfaces pass on.
//
// Executor options configure the pipeline: WithTimeout,
// WithConcurrencyLimit, WithCache, WithValidation, WithInterceptors,
// WithLogger, and WithObserver, the hook that tracing and metrics build on
// (the module github.com/toolexec/toolexec/otel provides an OpenTelemetry
// observer; this module imports no OpenTelemetry). Per-tool settings live
// in Tool.Options.
//
// A slow tool that declares ToolOptions.TaskSupport runs as a task for
// callers that can take one: the surface answers with a handle the caller
// polls, answers and cancels, from any replica sharing the Executor's store
// (WithStore), while the same handler runs on (see WithTasks, BecomeTask
// and docs/tasks.md).
//
// Packages that put the pipeline on another wire protocol, as mcp and oxp
// do, reach the parts of it that hosts never need through one place,
// Executor.SurfaceKit.
package toolexec
