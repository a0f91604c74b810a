package mcp

import (
	"encoding/json"
	"fmt"
	"github.com/toolexec/toolexec/internal/jsonwalk"
)

// The JSON-RPC error codes the handler answers with. The first five are
// JSON-RPC 2.0's own; the last three are in its range for server-defined
// errors, in the part MCP leaves to implementations (-32000 to -32019).
// CodeHeaderMismatch and CodeUnsupportedProtocolVersion are those MCP
// 2026-07-28 defines.
const (
	// CodeParseError: the body is not JSON.
	CodeParseError = -32700
	// CodeInvalidRequest: the JSON is not a valid JSON-RPC message (wrong
	// "jsonrpc", missing or non-string method, an id that is neither a
	// string nor a number, params that are neither object nor array), a
	// batch the negotiated protocol version does not allow, or a
	// subscriptions/listen whose id is over 256 bytes of JSON.
	CodeInvalidRequest = -32600
	// CodeMethodNotFound: the method is not one this server implements.
	CodeMethodNotFound = -32601
	// CodeInvalidParams: the params do not fit the method (tools/call
	// without a name, arguments that are not an object, a progressToken
	// over 256 bytes of JSON, a bad cursor), or tools/call named a tool
	// that does not exist.
	CodeInvalidParams = -32602
	// CodeInternalError: the server failed; on the HandsAI routes, also a
	// tool that failed or panicked.
	CodeInternalError = -32603
	// CodeRequestRejected: the HTTP request was refused before any JSON-RPC
	// processing; the HTTP status says why (403 origin or host not allowed,
	// 405 not POST, 406 unacceptable Accept, 413 body too large, 415 not
	// JSON, 400 a body that could not be read). An unsupported
	// MCP-Protocol-Version is CodeUnsupportedProtocolVersion. Also a
	// subscriptions/listen refused by WithListenLimits: 429 over its
	// caller's share, 503 over the total, each with Retry-After.
	CodeRequestRejected = -32000
	// CodeExecutionDisabled: tools/call while the Executor's execution gate
	// is closed (toolexec.WithAllowExecute). Sent with HTTP 200; tools/list
	// keeps working. The code is clear of those MCP and its SDKs give a
	// meaning (-32001 to -32005 among them: the official Go SDK reads -32003
	// as "client is closing").
	CodeExecutionDisabled = -32010
	// CodeUnauthorized: the auth hook refused this tools/call, inside a
	// batch in which another call got past the hook (a batch whose calls
	// were all refused, like a single refused call, answers HTTP 401
	// instead). The message is "Unauthorized", and says nothing of why.
	// The code is clear of those the official Go SDK and mcp-go give a
	// meaning, as CodeExecutionDisabled is.
	CodeUnauthorized = -32011
)

const jsonrpcVersion = "2.0"

// wireError is a JSON-RPC error object.
type wireError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
	Data    any    `json:"data,omitempty"`
}

func newError(code int, format string, args ...any) *wireError {
	return &wireError{Code: code, Message: fmt.Sprintf(format, args...)}
}

// response is a JSON-RPC response. ID is always written: a nil ID is written
// as null, as JSON-RPC requires when the request's id could not be read.
// Result holds the method's result itself (a *toolexec.CallToolResult, say),
// so the whole response is encoded once; a nil Result is omitted, while an
// empty struct (ping's) is written as {}.
type response struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Result  any             `json:"result,omitempty"`
	Error   *wireError      `json:"error,omitempty"`
}

func errorResponse(id json.RawMessage, e *wireError) *response {
	return &response{JSONRPC: jsonrpcVersion, ID: id, Error: e}
}

// kind tells the three JSON-RPC message kinds apart.
type kind int

const (
	kindRequest      kind = iota // method and id: answered
	kindNotification             // method, no id: never answered
	kindResponse                 // result or error, no method: a client's reply
)

// message is one JSON-RPC message as the client sent it.
type message struct {
	kind   kind
	id     json.RawMessage // as sent; nil when absent or unusable
	method string
	params json.RawMessage // nil when absent or null
	// call holds a 2025 tools/call's params as answer read them, for
	// openStream and taskCall, which read them again otherwise.
	call toolCallParams
	// result and errObj: a client's response, its members as sent
	result, errObj json.RawMessage
}

// envelope holds the members of a JSON-RPC message that the handler reads,
// each exactly as sent; nil when the member is absent (a member sent as
// null is "null"). A member sent twice counts as its last value, as
// encoding/json reads it; members it does not know are ignored.
type envelope struct {
	jsonrpc, id, method, params, result, error []byte
}

// readEnvelope reads the members of obj, a JSON object from a valid body,
// in one pass.
func readEnvelope(obj []byte) envelope {
	var env envelope
	for it := jsonwalk.Members(obj); it.Next(); {
		switch {
		case it.Is("jsonrpc"):
			env.jsonrpc = it.Val
		case it.Is("id"):
			env.id = it.Val
		case it.Is("method"):
			env.method = it.Val
		case it.Is("params"):
			env.params = it.Val
		case it.Is("result"):
			env.result = it.Val
		case it.Is("error"):
			env.error = it.Val
		}
	}
	return env
}

// parse reads one JSON-RPC message from raw, which must be a value from a
// body jsonwalk.Valid accepted, into m, which must be zero. On failure it
// returns the error to answer with, and m.id is the id to answer it under:
// the message's own when it has a usable one, else nil (null).
func (m *message) parse(raw []byte) *wireError {
	if len(raw) == 0 || raw[0] != '{' {
		return newError(CodeInvalidRequest, "Invalid Request: a JSON-RPC message must be a JSON object")
	}
	env := readEnvelope(raw)
	if env.id != nil {
		if !validID(env.id) {
			return newError(CodeInvalidRequest, "Invalid Request: id must be a string or a number")
		}
		m.id = env.id
	}
	if env.jsonrpc == nil || !isString(env.jsonrpc, jsonrpcVersion) {
		return newError(CodeInvalidRequest, `Invalid Request: "jsonrpc" must be "2.0"`)
	}
	hasResult, hasError := env.result != nil, env.error != nil
	if env.method == nil {
		if (hasResult || hasError) && env.id != nil && !(hasResult && hasError) {
			m.kind = kindResponse
			m.result, m.errObj = env.result, env.error
			return nil
		}
		return newError(CodeInvalidRequest, "Invalid Request: method is required")
	}
	if hasResult || hasError {
		return newError(CodeInvalidRequest, "Invalid Request: a request cannot carry a result or an error")
	}
	method, ok := knownMethod(env.method)
	if !ok {
		method, ok = jsonString(env.method)
	}
	if !ok {
		return newError(CodeInvalidRequest, "Invalid Request: method must be a string")
	}
	m.method = method
	switch p := env.params; {
	case p == nil, string(p) == "null":
	case p[0] == '{' || p[0] == '[':
		m.params = p
	default:
		return newError(CodeInvalidRequest, "Invalid Request: params must be an object or an array")
	}
	if env.id != nil {
		m.kind = kindRequest
	} else {
		m.kind = kindNotification
	}
	return nil
}

// validID reports whether raw, a value from a valid body, is an id MCP
// accepts: a string or a number. null, which JSON-RPC discourages and MCP
// forbids, is not one.
func validID(raw []byte) bool {
	if len(raw) == 0 {
		return false
	}
	c := raw[0]
	return c == '"' || c == '-' || (c >= '0' && c <= '9')
}

// jsonString decodes raw, a value from a valid body, as a JSON string; null
// is not one. A string of plain ASCII without escapes, as method and tool
// names are, is read without a decoder.
func jsonString(raw []byte) (string, bool) {
	if len(raw) < 2 || raw[0] != '"' {
		return "", false
	}
	if inner := raw[1 : len(raw)-1]; jsonwalk.PlainASCII(inner) {
		return string(inner), true
	}
	var s string
	return s, json.Unmarshal(raw, &s) == nil
}

// knownMethod returns the method name raw, a JSON string, when it is one
// the handler serves, without making a new string for it.
func knownMethod(raw []byte) (string, bool) {
	switch string(raw) { // compared without a conversion
	case `"tools/call"`:
		return "tools/call", true
	case `"tools/list"`:
		return "tools/list", true
	case `"initialize"`:
		return "initialize", true
	case `"ping"`:
		return "ping", true
	case `"server/discover"`:
		return "server/discover", true
	}
	return "", false
}

// isString reports whether raw is the JSON string want.
func isString(raw []byte, want string) bool {
	if len(raw) >= 2 && raw[0] == '"' && jsonwalk.PlainASCII(raw[1:len(raw)-1]) {
		return string(raw[1:len(raw)-1]) == want // the usual case, read without a decoder
	}
	s, ok := jsonString(raw)
	return ok && s == want
}

// checkParamsObject refuses params that are not an object. Absent or null
// params (nil here) are an empty object; an array is not accepted, because
// every method here takes named parameters.
func checkParamsObject(params []byte) *wireError {
	if params != nil && params[0] != '{' {
		return newError(CodeInvalidParams, "Invalid params: params must be an object")
	}
	return nil
}

// paramString reads the member name of params (an object, or nil) as a
// string: absent or null is "".
func paramString(params []byte, name string) (string, *wireError) {
	if werr := checkParamsObject(params); werr != nil {
		return "", werr
	}
	var raw []byte
	for it := jsonwalk.Members(params); it.Next(); {
		if it.Is(name) {
			raw = it.Val
		}
	}
	return optionalString(raw, name)
}

// optionalString reads raw, the value of the member name, as a string;
// absent (nil) or null is "".
func optionalString(raw []byte, name string) (string, *wireError) {
	if raw == nil || string(raw) == "null" {
		return "", nil
	}
	s, isStr := jsonString(raw)
	if !isStr {
		return "", newError(CodeInvalidParams, "Invalid params: %s must be a string", name)
	}
	return s, nil
}

// callParams reads tools/call's params (an object, or nil): the tool's
// name, which is required, its arguments exactly as sent (nil when
// absent), for the pipeline to decode, and its _meta as sent (nil when
// absent).
func callParams(params []byte) (name string, args, meta json.RawMessage, _ *wireError) {
	p, werr := readCallParams(params)
	return p.name, p.args, p.meta, werr
}

// toolCallParams are the members of tools/call's params the handler reads,
// each as sent (nil when absent; a member sent twice counts as its last
// value, as encoding/json reads it).
type toolCallParams struct {
	name       string
	args, meta json.RawMessage
	// task: params.task is an object (2025-11-25: the call asks to run as
	// a task).
	task bool
}

// readCallParams reads tools/call's params in one pass (see callParams).
func readCallParams(params []byte) (toolCallParams, *wireError) {
	var p toolCallParams
	if werr := checkParamsObject(params); werr != nil {
		return p, werr
	}
	var rawName []byte
	for it := jsonwalk.Members(params); it.Next(); {
		switch {
		case it.Is("name"):
			rawName = it.Val
		case it.Is("arguments"):
			p.args = it.Val
		case it.Is("_meta"):
			p.meta = it.Val
		case it.Is("task"):
			p.task = isObject(it.Val)
		}
	}
	name, werr := optionalString(rawName, "name")
	if werr != nil {
		return toolCallParams{}, werr
	}
	if name == "" {
		return toolCallParams{}, newError(CodeInvalidParams, "Invalid params: name is required")
	}
	p.name = name
	return p, nil
}
