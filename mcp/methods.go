package mcp

import (
	"encoding/json"
	"errors"
	"net/http"

	"github.com/toolexec/toolexec"
)

// initializeResult is the answer to initialize.
type initializeResult struct {
	ProtocolVersion string         `json:"protocolVersion"`
	Capabilities    capabilities   `json:"capabilities"`
	ServerInfo      implementation `json:"serverInfo"`
	Instructions    string         `json:"instructions,omitempty"`
}

// capabilities announce tools and log messages. tools.listChanged is false
// on 2025 versions (initialize): a stateless server has no stream to send the
// notification on. On 2026-07-28 (server/discover) it is true when the
// Executor reports tool changes, which subscriptions/listen then delivers.
type capabilities struct {
	Tools struct {
		ListChanged bool `json:"listChanged"`
	} `json:"tools"`
	// Logging: tools send notifications/message (toolexec.Log).
	Logging struct{} `json:"logging"`
	// Extensions are the extensions the server supports (2026-07-28:
	// the tasks extension).
	Extensions map[string]any `json:"extensions,omitempty"`
	// Tasks are 2025-11-25's tasks (tasks_2025_11_25.go), declared to a client
	// that negotiates that version.
	Tasks *legacyTasksCapability `json:"tasks,omitempty"`
}

type implementation struct {
	Name    string `json:"name"`
	Version string `json:"version"`
}

// initialize negotiates the protocol version and describes the server. It
// keeps nothing: the client may as well skip it and call tools directly.
func (h *handler) initialize(params json.RawMessage) (initializeResult, *wireError) {
	requested, err := paramString(params, "protocolVersion")
	if err != nil {
		return initializeResult{}, err
	}
	res := initializeResult{
		ProtocolVersion: negotiate(requested),
		ServerInfo:      implementation{Name: h.name, Version: h.version},
		Instructions:    h.instructions,
	}
	if res.ProtocolVersion == NewestInitializeVersion {
		res.Capabilities.Tasks = &legacyTasksCapability{}
	}
	return res, nil
}

// listToolsResult is the answer to tools/list.
type listToolsResult struct {
	Tools      []json.RawMessage `json:"tools"`
	NextCursor string            `json:"nextCursor,omitempty"`
}

// listTools is the answer to tools/list at a 2025 version: one page of
// view v (see WithPageSize), {"tools":[...]} with nextCursor when a page
// follows, written around the page's kept encoding (see outcome.shared).
func (h *handler) listTools(r *http.Request, m *message, v listView) outcome {
	page, end, total, werr := h.listPage(r, m.params, v)
	if werr != nil {
		return outcome{data: encodeError(m.id, werr)}
	}
	out := outcome{data: listHead(m.id, `{"tools":[`), shared: page, tail: listTail}
	if end < total {
		out.tail = append(appendNextCursor(append(make([]byte, 0, 64), ']'), end, total), "}}"...)
	}
	return out
}

// listTail ends a 2025 tools/list answer without a next page. It is never
// modified.
var listTail = []byte("]}}")

// listHead is the start of the response to id up to its tools array's
// first element: start is the result's members up to that point.
func listHead(id json.RawMessage, start string) []byte {
	return append(appendResponseStart(make([]byte, 0, 40+len(id)+len(start)), id), start...)
}

// runCall runs a tools/call, whose params were read, through the pipeline
// and sets *out, which must be zero, to its outcome. It streams the call's
// progress, log messages and input requests when the client can take them
// (see openStream), and maps the call's outcome to MCP: a result (isError
// for tool failures, panics and validation failures), a JSON-RPC error for
// what the model cannot fix by retrying, or a refusal by the auth hook,
// which the caller answers (see outcome). meta is the _meta of a
// 2026-07-28 request, which is answered in that version's shape (see
// modernToolResponse); nil on 2025 versions.
func (h *handler) runCall(ex *exchange, m *message, name string, args json.RawMessage, meta *requestMeta, out *outcome) {
	ctx, s, werr := h.openStream(ex, m, name, args, meta)
	if werr != nil {
		streamRefused(m, werr, meta != nil, out)
		return
	}
	if ex.batch {
		// The auth hook may read the body; each call of a batch sees all of
		// it. (A single message's body is still unread: ReadBody left it so.)
		ex.r.Body = newBody(ex.raw)
	}
	req := toolexec.CallRequest{Name: name, Arguments: args, Request: ex.r, Surface: toolexec.SurfaceMCP}
	if s != nil {
		req.Peer = s
	}
	var res *toolexec.CallToolResult
	var task *toolexec.Task
	var err error
	tc, werr := h.taskCall(ex, m, name, meta, s)
	switch {
	case werr != nil:
		if !h.refusedFirst(ex.r, m.id, out) {
			out.data = encodeError(m.id, werr)
		}
	case tc != nil:
		res, task, err = h.x.SurfaceKit().CallTask(ctx, req, *tc)
	default:
		res, err = h.x.Call(ctx, req)
	}
	switch {
	case werr != nil:
	case task != nil && meta == nil:
		out.data, out.pastAuth = h.legacyCreateTaskResult(ex.r, m.id, task), true
	case task != nil:
		out.data, out.pastAuth = h.createTaskResult(ex.r, m.id, task), true
	case err == nil:
		out.data, out.pastAuth = h.encodeToolResult(ex.r, m.id, res, meta != nil), true
	default:
		h.callFailed(ex, m, name, err, meta != nil, out)
	}
	if s != nil {
		h.closeStream(ex, m, name, args, s, out)
	}
}

// streamRefused sets *out to the outcome of a tools/call whose streaming
// _meta (or, on 2026-07-28, whose input state) was refused with werr: HTTP
// 400 on 2026-07-28.
func streamRefused(m *message, werr *wireError, modern bool, out *outcome) {
	out.data = encodeError(m.id, werr)
	if modern {
		out.status = http.StatusBadRequest
	}
}

// callFailed sets *out to the outcome of a tools/call that failed with err.
func (h *handler) callFailed(ex *exchange, m *message, name string, err error, modern bool, out *outcome) {
	e := asError(err)
	*out = outcome{pastAuth: gotPastAuth(e), inputUnsupported: errors.Is(e, toolexec.ErrInputUnsupported)}
	switch e.Code {
	case toolexec.CodeUnauthorized, toolexec.CodeForbidden:
		*out = refusedOutcome(m.id, e)
		return
	case toolexec.CodeExecutionDisabled:
		out.data = encodeError(m.id, newError(CodeExecutionDisabled, "%s", e.Message))
		return
	case toolexec.CodeTaskRequired:
		taskRequired(m, name, modern, out)
		return
	case toolexec.CodeNotFound:
		out.data = encodeError(m.id, newError(CodeInvalidParams, "Unknown tool: %s", name))
		return
	case toolexec.CodeInvalidArguments:
		if e.Stage != toolexec.StageValidate && len(e.Failures) == 0 {
			out.data = encodeError(m.id, newError(CodeInvalidParams, "Invalid params: %s", e.Message))
			return
		}
	case toolexec.CodeUnavailable, toolexec.CodeRateLimited:
		out.retryAfter = e.RetryAfter
	}
	// Validation failures, tool errors, panics, timeouts, limits and
	// internal failures: a tool result the model can read and act on.
	out.data = h.encodeToolResult(ex.r, m.id, h.errorResult(name, e), modern)
}

// gotPastAuth reports whether a call that failed with e got past the auth
// hook, so that the tool, or an interceptor, may have done something: every
// failure but those of the stages before the hook (the gate, the lookup,
// reading the arguments) and the hook's own refusal.
func gotPastAuth(e *toolexec.Error) bool {
	switch e.Stage {
	case toolexec.StageGate, toolexec.StageResolve, toolexec.StageDecode, toolexec.StageAuth:
		return false
	}
	return e.Code != toolexec.CodeUnauthorized && e.Code != toolexec.CodeForbidden
}

// errorResult is the isError result standing for e. For a tool that
// declares an outputSchema it leaves out the structured list of validation
// failures: clients check any structuredContent against the outputSchema,
// even on an error result (the TypeScript SDK's client does, and refuses the
// whole response when it does not match), while the text block already
// holds every failure, one per line.
func (h *handler) errorResult(name string, e *toolexec.Error) *toolexec.CallToolResult {
	res := e.Result()
	if res.StructuredContent != nil {
		if t, ok := h.x.Lookup(name, ""); ok && len(t.OutputSchema) > 0 {
			res.StructuredContent = nil
		}
	}
	return res
}

// encodeToolResult encodes the response carrying res, in one pass: the
// result's own encoding is put into the envelope as it is; a result that
// cannot be encoded (a channel in StructuredContent, say) becomes an isError
// result saying so.
func (h *handler) encodeToolResult(r *http.Request, id json.RawMessage, res *toolexec.CallToolResult, modern bool) []byte {
	var data []byte
	var err error
	if modern {
		data, err = h.modernToolResponse(id, res)
	} else {
		var result []byte
		if result, err = res.MarshalJSON(); err == nil {
			data = appendResponse(make([]byte, 0, len(result)+len(id)+48), id, result) // the envelope is 33 bytes, and writeAnswer adds a newline
		}
	}
	if err != nil {
		h.x.SurfaceKit().Logger().ErrorContext(r.Context(), "mcp: tool result could not be encoded", "error", err)
		fallback := toolexec.ErrorResult("The tool's result could not be encoded.")
		if modern {
			if data, err = h.modernToolResponse(id, fallback); err == nil {
				return data
			}
		}
		data = mustEncode(&response{JSONRPC: jsonrpcVersion, ID: id, Result: fallback})
	}
	return data
}
