package mcp

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// The JSON-RPC error codes the handler answers with. The first five are
// JSON-RPC 2.0's own; the last two are in its range for server-defined
// errors.
const (
	// CodeParseError: the body is not JSON.
	CodeParseError = -32700
	// CodeInvalidRequest: the JSON is not a valid JSON-RPC message (wrong
	// "jsonrpc", missing or non-string method, an id that is neither a
	// string nor a number, params that are neither object nor array), or a
	// batch the negotiated protocol version does not allow.
	CodeInvalidRequest = -32600
	// CodeMethodNotFound: the method is not one this server implements.
	CodeMethodNotFound = -32601
	// CodeInvalidParams: the params do not fit the method (tools/call
	// without a name, arguments that are not an object, a bad cursor), or
	// tools/call named a tool that does not exist.
	CodeInvalidParams = -32602
	// CodeInternalError: the server failed; on the HandsAI routes, also a
	// tool that failed or panicked.
	CodeInternalError = -32603
	// CodeRequestRejected: the HTTP request was refused before any JSON-RPC
	// processing; the HTTP status says why (403 origin or host not allowed,
	// 405 not POST, 406 unacceptable Accept, 413 body too large, 415 not
	// JSON, 400 unsupported MCP-Protocol-Version).
	CodeRequestRejected = -32000
	// CodeExecutionDisabled: tools/call while the Executor's execution gate
	// is closed (toolexec.WithAllowExecute). Sent with HTTP 200; tools/list
	// keeps working. The code is clear of those MCP and its SDKs give a
	// meaning (-32001 to -32005 among them: the official Go SDK reads -32003
	// as "client is closing").
	CodeExecutionDisabled = -32010
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
// Result is raw so that an empty object ({} for ping) is kept while an
// absent result is omitted.
type response struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Result  json.RawMessage `json:"result,omitempty"`
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
	id     json.RawMessage // as sent; nil when absent
	method string
	params json.RawMessage // nil when absent or null
}

// parseMessage reads one JSON-RPC message from raw, which must be valid
// JSON. On failure it returns the error to answer with and the id to answer
// it under: the message's own when it has a usable one, else nil (null).
func parseMessage(raw json.RawMessage) (*message, json.RawMessage, *wireError) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || raw[0] != '{' {
		return nil, nil, newError(CodeInvalidRequest, "Invalid Request: a JSON-RPC message must be a JSON object")
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(raw, &fields); err != nil {
		return nil, nil, newError(CodeInvalidRequest, "Invalid Request: %v", err)
	}
	m := &message{}
	rawID, hasID := fields["id"]
	if hasID {
		if !validID(rawID) {
			return nil, nil, newError(CodeInvalidRequest, "Invalid Request: id must be a string or a number")
		}
		m.id = bytes.TrimSpace(rawID)
	}
	if v, ok := fields["jsonrpc"]; !ok || !isString(v, jsonrpcVersion) {
		return nil, m.id, newError(CodeInvalidRequest, `Invalid Request: "jsonrpc" must be "2.0"`)
	}
	rawMethod, hasMethod := fields["method"]
	_, hasResult := fields["result"]
	_, hasError := fields["error"]
	if !hasMethod {
		if (hasResult || hasError) && hasID && !(hasResult && hasError) {
			m.kind = kindResponse
			return m, nil, nil
		}
		return nil, m.id, newError(CodeInvalidRequest, "Invalid Request: method is required")
	}
	if hasResult || hasError {
		return nil, m.id, newError(CodeInvalidRequest, "Invalid Request: a request cannot carry a result or an error")
	}
	method, ok := jsonString(rawMethod)
	if !ok {
		return nil, m.id, newError(CodeInvalidRequest, "Invalid Request: method must be a string")
	}
	m.method = method
	if p, ok := fields["params"]; ok {
		p = bytes.TrimSpace(p)
		switch {
		case string(p) == "null":
		case len(p) > 0 && (p[0] == '{' || p[0] == '['):
			m.params = p
		default:
			return nil, m.id, newError(CodeInvalidRequest, "Invalid Request: params must be an object or an array")
		}
	}
	if hasID {
		m.kind = kindRequest
	} else {
		m.kind = kindNotification
	}
	return m, nil, nil
}

// validID reports whether raw is an id MCP accepts: a string or a number.
// null, which JSON-RPC discourages and MCP forbids, is not one.
func validID(raw json.RawMessage) bool {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return false
	}
	switch c := raw[0]; {
	case c == '"':
		var s string
		return json.Unmarshal(raw, &s) == nil
	case c == '-' || (c >= '0' && c <= '9'):
		var n json.Number
		return json.Unmarshal(raw, &n) == nil
	}
	return false
}

// jsonString decodes raw as a JSON string; null is not one.
func jsonString(raw json.RawMessage) (string, bool) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || raw[0] != '"' {
		return "", false
	}
	var s string
	return s, json.Unmarshal(raw, &s) == nil
}

// isString reports whether raw is the JSON string want.
func isString(raw json.RawMessage, want string) bool {
	s, ok := jsonString(raw)
	return ok && s == want
}

// paramsObject decodes params into a map of its members. Absent or null
// params are an empty object; an array is not accepted, because every method
// here takes named parameters.
func paramsObject(params json.RawMessage) (map[string]json.RawMessage, *wireError) {
	fields := map[string]json.RawMessage{}
	if params == nil {
		return fields, nil
	}
	if params[0] != '{' {
		return nil, newError(CodeInvalidParams, "Invalid params: params must be an object")
	}
	if err := json.Unmarshal(params, &fields); err != nil {
		return nil, newError(CodeInvalidParams, "Invalid params: %v", err)
	}
	return fields, nil
}

// optionalString reads member name of fields as a string; absent or null is
// "".
func optionalString(fields map[string]json.RawMessage, name string) (string, *wireError) {
	raw, ok := fields[name]
	if !ok || string(bytes.TrimSpace(raw)) == "null" {
		return "", nil
	}
	s, isStr := jsonString(raw)
	if !isStr {
		return "", newError(CodeInvalidParams, "Invalid params: %s must be a string", name)
	}
	return s, nil
}
