package mcp

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strconv"
	"strings"

	"github.com/toolexec/toolexec"
	"github.com/toolexec/toolexec/internal/httpjson"
	"github.com/toolexec/toolexec/internal/jsonwalk"
)

// handsAIResponse is the envelope of HandsAI's MCP controller: a JSON-RPC
// response whose id appears only when the request sent one, and whose null
// members are left out. Result holds the result itself, so the envelope is
// encoded once.
type handsAIResponse struct {
	JSONRPC string          `json:"jsonrpc"`
	Result  any             `json:"result,omitempty"`
	Error   *wireError      `json:"error,omitempty"`
	ID      json.RawMessage `json:"id,omitempty"`
}

// handsAIResult is a successful call's result: the content blocks, plus the
// structured content and _meta when the tool gave them.
type handsAIResult struct {
	Content           []toolexec.Content `json:"content"`
	StructuredContent any                `json:"structuredContent,omitempty"`
	Meta              map[string]any     `json:"_meta,omitempty"`
}

// handsAIList is GET .../tools/list: every tool, in the envelope HandsAI's
// stdio bridge reads ({"jsonrpc":"2.0","result":{"tools":[...]}}). Like all
// discovery, it is never guarded by the auth hook. A tool provider that
// panics is answered by the route's recoverer (see NewHandler).
func (h *handler) handsAIList(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		h.methodNotAllowed(w, true, http.MethodGet)
		return
	}
	j := h.listed(r, viewListed)
	httpjson.SetHeaders(w.Header())
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(handsAIListHead)
	_, _ = w.Write(j.Slice(0, j.Len())) // valid UTF-8 (see newToolCache)
	_, _ = w.Write(handsAIListTail)
}

// The HandsAI list's envelope around its tools. Never modified.
var (
	handsAIListHead = []byte(`{"jsonrpc":"2.0","result":{"tools":[`)
	handsAIListTail = []byte("]}}\n")
)

// handsAICall is POST .../tools/call, answered as HandsAI answers it: every
// outcome is HTTP 200 with a JSON-RPC envelope, except an auth hook refusal
// (401) and the transport refusals (405, 413, 415).
func (h *handler) handsAICall(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		h.methodNotAllowed(w, true, http.MethodPost)
		return
	}
	if !jsonContentType(r) {
		h.reject(w, true, http.StatusUnsupportedMediaType, "Unsupported Media Type: the body must be application/json")
		return
	}
	raw, ok := h.readBody(w, r, true)
	if !ok {
		return
	}
	id, name, args, werr := parseHandsAICall(raw)
	if werr != nil {
		writeHandsAI(w, id, nil, werr)
		return
	}
	// r.Body is still unread: ReadBody left it so, for the auth hook.
	res, e := h.call(r.Context(), toolexec.CallRequest{
		Name:      name,
		Arguments: args,
		Request:   r,
		Surface:   toolexec.SurfaceHandsAI,
	})
	if e != nil {
		if e.Code == toolexec.CodeUnauthorized || e.Code == toolexec.CodeForbidden {
			writeHandsAIRefusal(w, id, e)
			return
		}
		writeHandsAI(w, id, nil, handsAIError(e, name))
		return
	}
	if res.IsError {
		msg := res.Text()
		if msg == "" {
			msg = "the tool reported an error"
		}
		writeHandsAI(w, id, nil, newError(CodeInternalError, "Internal error: %s", msg))
		return
	}
	h.writeHandsAIResult(w, r, id, res)
}

// writeHandsAIResult answers a call whose tool succeeded with res: 200 with
// HandsAI's envelope around the content, structured content and _meta.
func (h *handler) writeHandsAIResult(w http.ResponseWriter, r *http.Request, id json.RawMessage, res *toolexec.CallToolResult) {
	content := res.Content
	if content == nil {
		content = []toolexec.Content{}
	}
	data, err := json.Marshal(&handsAIResponse{JSONRPC: jsonrpcVersion, ID: id,
		Result: handsAIResult{Content: content, StructuredContent: res.StructuredContent, Meta: res.Meta}})
	if err != nil {
		h.x.SurfaceKit().Logger().ErrorContext(r.Context(), "mcp: tool result could not be encoded", "error", err)
		writeHandsAI(w, id, nil, newError(CodeInternalError, "Internal error: the tool's result could not be encoded"))
		return
	}
	httpjson.SetHeaders(w.Header())
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(append(httpjson.ValidUTF8(data), '\n'))
}

// missingParams is HandsAI's answer to a null body or null params.
const missingParams = "Invalid params: missing required parameters"

// handsAIToolNotFound is HandsAI's answer to a call of a tool it does not
// serve; the name goes in the error's data.
const handsAIToolNotFound = "Invalid params: tool not found"

// parseHandsAICall reads HandsAI's request envelope. It returns the id to
// echo (nil when none was sent) even when the envelope is refused.
func parseHandsAICall(raw []byte) (id json.RawMessage, name string, args json.RawMessage, _ *wireError) {
	body := bytes.TrimSpace(raw)
	if len(body) == 0 || string(body) == "null" {
		return nil, "", nil, newError(CodeInvalidParams, missingParams)
	}
	if !jsonwalk.Valid(body) {
		return nil, "", nil, newError(CodeParseError, "Parse error: the body is not valid JSON")
	}
	if body[0] != '{' {
		return nil, "", nil, newError(CodeInvalidRequest, "Invalid Request: the body must be one JSON-RPC request object")
	}
	env := readEnvelope(body)
	if env.id != nil && string(env.id) != "null" {
		if !validID(env.id) {
			return nil, "", nil, newError(CodeInvalidRequest, "Invalid Request: id must be a string or a number")
		}
		id = env.id
	}
	if env.jsonrpc != nil && !isString(env.jsonrpc, jsonrpcVersion) {
		return id, "", nil, newError(CodeInvalidRequest, `Invalid Request: "jsonrpc" must be "2.0"`)
	}
	if env.method != nil {
		method, ok := jsonString(env.method)
		if !ok {
			return id, "", nil, newError(CodeInvalidRequest, "Invalid Request: method must be a string")
		}
		if method != "tools/call" {
			return id, "", nil, newError(CodeMethodNotFound, "Method not found: %s", method)
		}
	}
	if env.params == nil || string(env.params) == "null" {
		return id, "", nil, newError(CodeInvalidParams, missingParams)
	}
	name, args, _, werr := callParams(env.params) // HandsAI streams nothing: _meta is not read
	if werr != nil {
		return id, "", nil, werr
	}
	return id, name, args, nil
}

// handsAIError maps a failed call of the tool name to HandsAI's two codes:
// -32602 for what the caller got wrong, -32603 for everything else. An
// unknown tool's message is HandsAI's own, word for word ("Invalid params:
// tool not found"), and the name the caller sent is the error's data.
func handsAIError(e *toolexec.Error, name string) *wireError {
	switch e.Code {
	case toolexec.CodeNotFound:
		werr := newError(CodeInvalidParams, handsAIToolNotFound)
		werr.Data = name
		return werr
	case toolexec.CodeInvalidArguments:
		if len(e.Failures) > 0 || e.Omitted > 0 {
			return newError(CodeInvalidParams, "Invalid params: %s", describeFailures(e.Failures, e.Omitted))
		}
		return newError(CodeInvalidParams, "Invalid params: %s", e.Message)
	}
	return newError(CodeInternalError, "Internal error: %s", e.Message)
}

// describeFailures words validation failures as HandsAI does: "location is
// required" for a missing field ("address.city is required" for a nested
// one), "<pointer>: <message>" for any other failure of a field
// ("/units: value must be one of 'celsius', 'fahrenheit'"), the bare message
// for a failure of the arguments object itself, joined by "; " when there
// are several, and "N more failures were omitted" last when validation left
// some out (see toolexec.MaxValidationFailures).
func describeFailures(fs []toolexec.ValidationFailure, omitted int) string {
	parts := make([]string, 0, len(fs)+1)
	for _, f := range fs {
		switch {
		case f.Keyword == "required" && f.Path != "":
			parts = append(parts, strings.Join(f.Tokens(), ".")+" is required") // "/address/city": address.city
		case f.Path == "":
			parts = append(parts, f.Message)
		default:
			parts = append(parts, f.Path+": "+f.Message)
		}
	}
	if omitted == 1 {
		parts = append(parts, "1 more failure was omitted")
	} else if omitted > 1 {
		parts = append(parts, strconv.Itoa(omitted)+" more failures were omitted")
	}
	return strings.Join(parts, "; ")
}

// writeHandsAI answers 200 with HandsAI's envelope.
func writeHandsAI(w http.ResponseWriter, id json.RawMessage, result any, e *wireError) {
	httpjson.Write(w, http.StatusOK, &handsAIResponse{JSONRPC: jsonrpcVersion, Result: result, Error: e, ID: id})
}
