package mcp

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strconv"
	"time"

	"github.com/toolexec/toolexec"
)

// exchange is one POST to the MCP endpoint while it is being answered.
type exchange struct {
	r       *http.Request
	raw     []byte // the body exactly as sent, for the auth hook
	body    []byte // the body without surrounding white space
	version string // from MCP-Protocol-Version; 2025-03-26 when absent, as the spec says to assume
	batch   bool
}

// outcome is what answering one message produced.
type outcome struct {
	resp *response // nil: nothing to answer (a notification or a client's response)
	// unauthorized: the auth hook refused a call; the whole HTTP request is
	// answered 401.
	unauthorized bool
	// retryAfter: a call was refused for now and may be retried after it.
	retryAfter time.Duration
}

// serveMCP answers a request to the MCP endpoint: the transport checks, then
// one JSON-RPC message or, where the protocol version allows it, a batch.
func (h *handler) serveMCP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		h.methodNotAllowed(w, false, http.MethodPost)
		return
	}
	if !jsonContentType(r) {
		h.reject(w, false, http.StatusUnsupportedMediaType, "Unsupported Media Type: the body must be application/json")
		return
	}
	format := negotiateFormat(r)
	if format == formatNone {
		h.reject(w, false, http.StatusNotAcceptable, "Not Acceptable: the client must accept application/json or text/event-stream")
		return
	}
	body, err := h.x.ReadBody(w, r)
	if err != nil {
		status, msg := http.StatusBadRequest, "Bad Request: the body could not be read"
		if e, ok := toolexec.AsError(err); ok && e.Code == toolexec.CodeTooLarge {
			status, msg = http.StatusRequestEntityTooLarge, e.Message
		}
		h.reject(w, false, status, msg)
		return
	}
	raw := body
	body = bytes.TrimSpace(body)
	if len(body) == 0 {
		writeJSON(w, http.StatusBadRequest, errorResponse(nil, newError(CodeParseError, "Parse error: the body is empty")))
		return
	}
	if !json.Valid(body) {
		writeJSON(w, http.StatusBadRequest, errorResponse(nil, newError(CodeParseError, "Parse error: the body is not valid JSON")))
		return
	}
	ex := &exchange{r: r, raw: raw, body: body, version: version20250326, batch: body[0] == '['}
	if v := r.Header.Get(protocolVersionHeader); v != "" {
		if !supported(v) {
			e := newError(CodeRequestRejected, "Bad Request: unsupported %s %q", protocolVersionHeader, v)
			e.Data = map[string]any{"supported": SupportedProtocolVersions(), "requested": v}
			writeJSON(w, http.StatusBadRequest, errorResponse(singleID(body), e))
			return
		}
		ex.version = v
	}
	if ex.batch {
		h.serveBatch(w, ex, format)
		return
	}
	m, id, perr := parseMessage(body)
	if perr != nil {
		writeJSON(w, http.StatusBadRequest, errorResponse(id, perr))
		return
	}
	out := h.answer(ex, m)
	switch {
	case out.unauthorized:
		unauthorized(w)
	case out.resp == nil:
		w.WriteHeader(http.StatusAccepted)
	default:
		if out.retryAfter > 0 {
			w.Header().Set("Retry-After", strconv.Itoa(retryAfterSeconds(out.retryAfter)))
		}
		writeAnswer(w, format, http.StatusOK, out.resp)
	}
}

// serveBatch answers a JSON array of messages (protocol 2025-03-26 only):
// each element in order, the answers to its requests in one array, 202 when
// it held no request, and 401 for all of it when any call was refused by the
// auth hook. When calls were refused for now, Retry-After carries the
// longest wait any of them asked for.
func (h *handler) serveBatch(w http.ResponseWriter, ex *exchange, format responseFormat) {
	if !batchesAllowed(ex.version) {
		writeJSON(w, http.StatusBadRequest, errorResponse(nil, newError(CodeInvalidRequest,
			"Invalid Request: JSON-RPC batches are not supported in protocol version %s", ex.version)))
		return
	}
	var elems []json.RawMessage
	if err := json.Unmarshal(ex.body, &elems); err != nil {
		writeJSON(w, http.StatusBadRequest, errorResponse(nil, newError(CodeParseError, "Parse error: %v", err)))
		return
	}
	if len(elems) == 0 {
		writeJSON(w, http.StatusBadRequest, errorResponse(nil, newError(CodeInvalidRequest, "Invalid Request: the batch is empty")))
		return
	}
	answers := make([]*response, 0, len(elems))
	var retryAfter time.Duration
	for _, raw := range elems {
		m, id, perr := parseMessage(raw)
		if perr != nil {
			answers = append(answers, errorResponse(id, perr))
			continue
		}
		out := h.answer(ex, m)
		if out.unauthorized {
			unauthorized(w)
			return
		}
		if out.resp != nil {
			answers = append(answers, out.resp)
		}
		retryAfter = max(retryAfter, out.retryAfter)
	}
	if len(answers) == 0 {
		w.WriteHeader(http.StatusAccepted)
		return
	}
	if retryAfter > 0 {
		w.Header().Set("Retry-After", strconv.Itoa(retryAfterSeconds(retryAfter)))
	}
	writeAnswer(w, format, http.StatusOK, answers)
}

// answer handles one parsed message. A panic while answering a request (a
// tool provider that panics, say) becomes an internal error for that request
// alone.
func (h *handler) answer(ex *exchange, m *message) (out outcome) {
	if m.kind != kindRequest {
		return outcome{} // notifications and client responses: accepted, nothing to say
	}
	defer func() {
		if p := recover(); p != nil {
			h.x.Logger().ErrorContext(ex.r.Context(), "mcp: panic while answering a request", "method", m.method, "panic", p)
			out = outcome{resp: errorResponse(m.id, newError(CodeInternalError, "Internal error"))}
		}
	}()
	var result any
	var err *wireError
	switch m.method {
	case "initialize":
		if ex.batch {
			err = newError(CodeInvalidRequest, "Invalid Request: initialize must not be part of a batch")
			break
		}
		result, err = h.initialize(m.params)
	case "ping":
		result = struct{}{}
	case "tools/list":
		result, err = h.listTools(ex.r, m.params)
	case "tools/call":
		return h.callTool(ex, m)
	default:
		err = newError(CodeMethodNotFound, "Method not found: %s", m.method)
	}
	if err != nil {
		return outcome{resp: errorResponse(m.id, err)}
	}
	return outcome{resp: h.resultResponse(ex.r, m.id, result)}
}

// resultResponse encodes result into a response to id; a result that cannot
// be encoded becomes an internal error.
func (h *handler) resultResponse(r *http.Request, id json.RawMessage, result any) *response {
	data, err := json.Marshal(result)
	if err != nil {
		h.x.Logger().ErrorContext(r.Context(), "mcp: result could not be encoded", "error", err)
		return errorResponse(id, newError(CodeInternalError, "Internal error: the result could not be encoded"))
	}
	return &response{JSONRPC: jsonrpcVersion, ID: id, Result: data}
}

// singleID returns the id of body when it is one JSON-RPC message with a
// usable id, so that even a transport-level refusal can be matched to its
// request; nil otherwise.
func singleID(body []byte) json.RawMessage {
	if len(body) == 0 || body[0] != '{' {
		return nil
	}
	var fields map[string]json.RawMessage
	if json.Unmarshal(body, &fields) != nil || !validID(fields["id"]) {
		return nil
	}
	return bytes.TrimSpace(fields["id"])
}

// retryAfterSeconds rounds d up to whole seconds, at least one, so a client
// never retries too early.
func retryAfterSeconds(d time.Duration) int {
	s := int((d + time.Second - 1) / time.Second)
	return max(s, 1)
}
