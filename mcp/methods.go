package mcp

import (
	"encoding/json"
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

// capabilities announce tools only. listChanged is false: a stateless server
// has no stream to send the notification on.
type capabilities struct {
	Tools struct {
		ListChanged bool `json:"listChanged"`
	} `json:"tools"`
}

type implementation struct {
	Name    string `json:"name"`
	Version string `json:"version"`
}

// initialize negotiates the protocol version and describes the server. It
// keeps nothing: the client may as well skip it and call tools directly.
func (h *handler) initialize(params json.RawMessage) (any, *wireError) {
	fields, err := paramsObject(params)
	if err != nil {
		return nil, err
	}
	requested, err := optionalString(fields, "protocolVersion")
	if err != nil {
		return nil, err
	}
	return initializeResult{
		ProtocolVersion: negotiate(requested),
		ServerInfo:      implementation{Name: h.name, Version: h.version},
		Instructions:    h.instructions,
	}, nil
}

// listToolsResult is the answer to tools/list.
type listToolsResult struct {
	Tools      []json.RawMessage `json:"tools"`
	NextCursor string            `json:"nextCursor,omitempty"`
}

// listTools answers one page of the tool list (see WithPageSize).
func (h *handler) listTools(r *http.Request, params json.RawMessage) (any, *wireError) {
	fields, err := paramsObject(params)
	if err != nil {
		return nil, err
	}
	cursor, err := optionalString(fields, "cursor")
	if err != nil {
		return nil, err
	}
	offset, ok := decodeCursor(cursor)
	if !ok {
		return nil, newError(CodeInvalidParams, "Invalid params: invalid cursor")
	}
	tools := h.x.Tools()
	start, end := min(offset, len(tools)), len(tools)
	if h.pageSize > 0 && end-start > h.pageSize {
		end = start + h.pageSize
	}
	res := listToolsResult{Tools: h.encodeTools(r, tools[start:end])}
	if end < len(tools) {
		res.NextCursor = encodeCursor(end)
	}
	return res, nil
}

// encodeTools writes tools in MCP's Tool shape, each with an inputSchema
// ({"type":"object"} for a tool that has none). A tool that cannot be
// encoded (a schema that is not JSON) is left out and logged, so that one
// broken tool does not hide all the others.
func (h *handler) encodeTools(r *http.Request, tools []toolexec.Tool) []json.RawMessage {
	out := make([]json.RawMessage, 0, len(tools))
	for _, t := range tools {
		if len(t.InputSchema) == 0 {
			t.InputSchema = json.RawMessage(`{"type":"object"}`)
		}
		data, err := json.Marshal(t)
		if err != nil {
			h.x.Logger().ErrorContext(r.Context(), "mcp: tool left out of the list: it cannot be encoded",
				"tool", t.Name, "error", err)
			continue
		}
		out = append(out, data)
	}
	return out
}

// callTool runs tools/call through the pipeline and maps its outcome to MCP:
// a result (isError for tool failures, panics and validation failures), a
// JSON-RPC error for what the model cannot fix by retrying, or a 401 for the
// auth hook.
func (h *handler) callTool(ex *exchange, m *message) outcome {
	fields, werr := paramsObject(m.params)
	if werr != nil {
		return outcome{resp: errorResponse(m.id, werr)}
	}
	name, werr := optionalString(fields, "name")
	if werr != nil {
		return outcome{resp: errorResponse(m.id, werr)}
	}
	if name == "" {
		return outcome{resp: errorResponse(m.id, newError(CodeInvalidParams, "Invalid params: name is required"))}
	}
	ex.r.Body = newBody(ex.raw) // the auth hook may read the body; each call sees all of it
	res, e := h.call(ex.r.Context(), toolexec.CallRequest{
		Name:      name,
		Arguments: fields["arguments"],
		Request:   ex.r,
		Surface:   toolexec.SurfaceMCP,
	})
	if e == nil {
		return outcome{resp: h.toolResult(ex.r, m.id, res)}
	}
	switch e.Code {
	case toolexec.CodeUnauthorized:
		return outcome{unauthorized: true}
	case toolexec.CodeExecutionDisabled:
		return outcome{resp: errorResponse(m.id, newError(CodeExecutionDisabled, "%s", e.Message))}
	case toolexec.CodeNotFound:
		return outcome{resp: errorResponse(m.id, newError(CodeInvalidParams, "Unknown tool: %s", name))}
	case toolexec.CodeInvalidArguments:
		if e.Stage != toolexec.StageValidate && len(e.Failures) == 0 {
			return outcome{resp: errorResponse(m.id, newError(CodeInvalidParams, "Invalid params: %s", e.Message))}
		}
	case toolexec.CodeUnavailable:
		return outcome{resp: h.toolResult(ex.r, m.id, h.errorResult(name, e)), retryAfter: e.RetryAfter}
	}
	// Validation failures, tool errors, panics, timeouts and internal
	// failures: a tool result the model can read and act on.
	return outcome{resp: h.toolResult(ex.r, m.id, h.errorResult(name, e))}
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

// toolResult encodes a CallToolResult; one that cannot be encoded (a
// channel in StructuredContent, say) becomes an isError result saying so.
func (h *handler) toolResult(r *http.Request, id json.RawMessage, res *toolexec.CallToolResult) *response {
	data, err := json.Marshal(res)
	if err != nil {
		h.x.Logger().ErrorContext(r.Context(), "mcp: tool result could not be encoded", "error", err)
		data, _ = json.Marshal(toolexec.ErrorResult("the tool's result could not be encoded: " + err.Error()))
	}
	return &response{JSONRPC: jsonrpcVersion, ID: id, Result: data}
}
