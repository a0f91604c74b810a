package mcp

import (
	"bytes"
	"encoding/json"
	"github.com/toolexec/toolexec/internal/jsonwalk"
	"net/http"
	"time"

	"github.com/toolexec/toolexec"
	"github.com/toolexec/toolexec/internal/httpjson"
)

// exchange is one POST to the MCP endpoint while it is being answered.
type exchange struct {
	w       http.ResponseWriter
	r       *http.Request
	raw     []byte // the body exactly as sent, for the auth hook
	version string // from MCP-Protocol-Version; 2025-03-26 when absent, as the spec says to assume
	batch   bool
}

// outcome is what answering one message produced.
type outcome struct {
	data []byte // the encoded response; nil: nothing to answer (a notification or a client's response)
	// refused: the auth hook refused a tools/call. A single message is then
	// answered 401 (403 when forbidden) as a whole, and data is what its
	// slot of a batch holds. challenge is the hook's WWW-Authenticate value,
	// "" for the default (see refusal.go).
	refused   bool
	forbidden bool
	challenge string
	// pastAuth: a tools/call got past the auth hook, so something may have
	// run; its answer must reach the client (see serveBatch).
	pastAuth bool
	// retryAfter: a call was refused for now and may be retried after it.
	retryAfter time.Duration
	// status: the HTTP status of a refusal MCP 2026-07-28 answers with one
	// (400, 404); 0 is 200.
	status int
	// streamed: the answer went out on an SSE stream already (stream.go).
	streamed bool
	// inputUnsupported: the call failed because its tool asked for input
	// the client cannot give (toolexec.ErrInputUnsupported).
	inputUnsupported bool
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
	raw, ok := h.readBody(w, r, false)
	if !ok {
		return
	}
	body := bytes.TrimSpace(raw)
	if len(body) == 0 {
		httpjson.Write(w, http.StatusBadRequest, errorResponse(nil, newError(CodeParseError, "Parse error: the body is empty")))
		return
	}
	// The one check of the whole body: everything after reads it with the
	// walkers of internal/jsonwalk, which rely on it.
	if !jsonwalk.Valid(body) {
		httpjson.Write(w, http.StatusBadRequest, errorResponse(nil, newError(CodeParseError, "Parse error: the body is not valid JSON")))
		return
	}
	ex := &exchange{w: w, r: r, raw: raw, version: version20250326, batch: body[0] == '['}
	headerVersion := header(r.Header, protocolVersionKey)
	if v := headerVersion; v != "" {
		if !supported(v) {
			httpjson.Write(w, http.StatusBadRequest, errorResponse(singleID(body), unsupportedVersion(v)))
			return
		}
		ex.version = v
	}
	if ex.batch {
		h.serveBatch(ex, body, format)
		return
	}
	if ex.version == version20260728 {
		h.serveModern(ex, body, format)
		return
	}
	m, perr := parseMessage(body)
	if perr != nil {
		httpjson.Write(w, http.StatusBadRequest, errorResponse(m.id, perr))
		return
	}
	if headerVersion == "" && m.kind == kindRequest {
		// A request whose _meta declares a stateless version must say so
		// in MCP-Protocol-Version too; without the header it is not served
		// as 2025-03-26, which would ignore what it asked for.
		if v := metaProtocolVersionOf(m.params); v != "" && !legacy(v) {
			httpjson.Write(w, http.StatusBadRequest, errorResponse(m.id, newError(CodeHeaderMismatch,
				"Header mismatch: the %s header is required; _meta declares %q", protocolVersionHeader, v)))
			return
		}
	}
	out := h.answer(ex, m)
	switch {
	case out.streamed:
	case out.refused:
		writeRefusal(w, out)
	case out.data == nil:
		w.WriteHeader(http.StatusAccepted)
	case out.status != 0:
		writeStatus(w, out.status, out.data)
	default:
		if out.retryAfter > 0 {
			w.Header().Set("Retry-After", httpjson.RetryAfter(out.retryAfter))
		}
		h.writeAnswer(w, format, out.data)
	}
}

// serveBatch answers a JSON array of messages (protocol 2025-03-26 only):
// each element in order, the answers to its requests in one array, and 202
// when it held no request.
//
// A tools/call the auth hook refuses gets a CodeUnauthorized error in its
// slot, and the answer carries WWW-Authenticate: Bearer, so the answers of
// the calls that did run reach the client. When no call got past the hook
// and at least one was refused, nothing the client cannot simply ask for
// again would be lost, and the batch is answered 401 as a whole, exactly as
// a single refused call is, so clients start their authorization flow.
//
// When calls were refused for now, Retry-After carries the longest wait any
// of them asked for.
//
// Once the client has gone (the request's context is done), no further
// message of the batch is handled; calls running see their context
// cancelled.
func (h *handler) serveBatch(ex *exchange, body []byte, format responseFormat) {
	w := ex.w
	if !batchesAllowed(ex.version) {
		httpjson.Write(w, http.StatusBadRequest, errorResponse(nil, newError(CodeInvalidRequest,
			"Invalid Request: JSON-RPC batches are not supported in protocol version %s", ex.version)))
		return
	}
	if len(bytes.TrimSpace(body[1:len(body)-1])) == 0 {
		httpjson.Write(w, http.StatusBadRequest, errorResponse(nil, newError(CodeInvalidRequest, "Invalid Request: the batch is empty")))
		return
	}
	n := 0
	for it := jsonwalk.Elements(body); it.Next(); n++ {
	}
	if n > h.maxBatch {
		httpjson.Write(w, http.StatusBadRequest, errorResponse(nil, newError(CodeInvalidRequest,
			"Invalid Request: a batch holds at most %d messages; this one holds %d", h.maxBatch, n)))
		return
	}
	var answers [][]byte
	var retryAfter time.Duration
	refused, pastAuth := false, false
	var refusal outcome // the first refusal, for its status and challenge
	for it := jsonwalk.Elements(body); it.Next(); {
		if ex.r.Context().Err() != nil {
			return // the client has gone: start nothing more, and answer no one
		}
		m, perr := parseMessage(it.Val)
		if perr != nil {
			answers = append(answers, encodeError(m.id, perr))
			continue
		}
		out := h.answer(ex, m)
		if out.refused && !refused {
			refusal = out
		}
		refused = refused || out.refused
		pastAuth = pastAuth || out.pastAuth
		if out.data != nil {
			answers = append(answers, out.data)
		}
		retryAfter = max(retryAfter, out.retryAfter)
	}
	if refused && !pastAuth {
		refusal.data = joinArray(answers)
		writeRefusal(w, refusal)
		return
	}
	if len(answers) == 0 {
		w.WriteHeader(http.StatusAccepted)
		return
	}
	if refused {
		// RFC 9110 allows the challenge on any response: new credentials
		// would change the answer of the refused calls.
		w.Header().Set("WWW-Authenticate", challengeOr(refusal.challenge))
	}
	if retryAfter > 0 {
		w.Header().Set("Retry-After", httpjson.RetryAfter(retryAfter))
	}
	h.writeAnswer(w, format, joinArray(answers))
}

// joinArray writes the encoded values as one JSON array.
func joinArray(values [][]byte) []byte {
	n := 2
	for _, v := range values {
		n += len(v) + 1
	}
	out := make([]byte, 0, n+1) // room for the newline writeAnswer adds
	out = append(out, '[')
	for i, v := range values {
		if i > 0 {
			out = append(out, ',')
		}
		out = append(out, v...)
	}
	return append(out, ']')
}

// answer handles one parsed message. A panic while answering a request (a
// tool provider that panics while listing, a result whose encoding panics)
// is logged with its stack by the shared recoverer and becomes an internal
// error for that request alone.
func (h *handler) answer(ex *exchange, m message) outcome {
	switch {
	case m.kind == kindResponse:
		h.inputs.deliver(m) // an answer to an input request (input.go), or nothing
	case m.kind == kindNotification && m.method == "notifications/cancelled":
		h.running.cancel(ex.r.Header.Get(sessionHeaderKey), m.params) // cancel.go
	}
	if m.kind != kindRequest {
		return outcome{} // notifications and client responses: accepted, nothing to say
	}
	var out outcome
	if httpjson.Guard(ex.r.Context(), h.x.SurfaceKit().Logger(), "mcp: answering a JSON-RPC request", func() { out = h.dispatch(ex, m) }) {
		return outcome{data: encodeError(m.id, newError(CodeInternalError, "Internal error"))}
	}
	return out
}

// dispatch answers one request by its method.
func (h *handler) dispatch(ex *exchange, m message) outcome {
	var result any
	var err *wireError
	switch m.method {
	case "initialize":
		if ex.batch {
			err = newError(CodeInvalidRequest, "Invalid Request: initialize must not be part of a batch")
			break
		}
		result, err = h.initialize(m.params)
		if err == nil {
			h.rememberCapabilities(ex, m.params)
		}
	case "ping":
		result = struct{}{}
	case "tools/list":
		data, err := h.listTools(ex.r, m.params, responseStart(m.id))
		if err != nil {
			return outcome{data: encodeError(m.id, err)}
		}
		return outcome{data: append(data, '}')}
	case "tools/call":
		return h.callTool(ex, m)
	case "logging/setLevel":
		result, err = h.setLogLevel(m)
	default:
		err = newError(CodeMethodNotFound, "Method not found: %s", m.method)
	}
	if err != nil {
		return outcome{data: encodeError(m.id, err)}
	}
	return outcome{data: h.encodeResult(ex.r, m.id, result)}
}

// encodeResult encodes the response carrying result; a result that cannot
// be encoded becomes an internal error.
func (h *handler) encodeResult(r *http.Request, id json.RawMessage, result any) []byte {
	data, err := json.Marshal(&response{JSONRPC: jsonrpcVersion, ID: id, Result: result})
	if err != nil {
		h.x.SurfaceKit().Logger().ErrorContext(r.Context(), "mcp: result could not be encoded", "error", err)
		return encodeError(id, newError(CodeInternalError, "Internal error: the result could not be encoded"))
	}
	return data
}

// encodeError encodes an error response to id.
func encodeError(id json.RawMessage, e *wireError) []byte {
	return mustEncode(errorResponse(id, e))
}

// mustEncode encodes a response made only of values that always encode
// (ids from a valid body, strings, error objects). Should one fail anyway,
// the answer is still a JSON-RPC error.
func mustEncode(resp *response) []byte {
	data, err := json.Marshal(resp)
	if err != nil {
		return []byte(`{"jsonrpc":"2.0","id":null,"error":{"code":-32603,"message":"Internal error"}}`)
	}
	return data
}

// singleID returns the id of body when it is one JSON-RPC message with a
// usable id, so that even a transport-level refusal can be matched to its
// request; nil otherwise.
func singleID(body []byte) json.RawMessage {
	if len(body) == 0 || body[0] != '{' {
		return nil
	}
	if id := readEnvelope(body).id; validID(id) {
		return id
	}
	return nil
}

// readBody reads the request body within the Executor's limit, answering
// 413 (over the limit) or 400 (unreadable) itself when it cannot.
func (h *handler) readBody(w http.ResponseWriter, r *http.Request, handsAI bool) ([]byte, bool) {
	body, err := h.x.SurfaceKit().ReadBody(w, r)
	if err != nil {
		status, msg := http.StatusBadRequest, "Bad Request: the body could not be read"
		if e, ok := toolexec.AsError(err); ok && e.Code == toolexec.CodeTooLarge {
			status, msg = http.StatusRequestEntityTooLarge, e.Message
		}
		h.reject(w, handsAI, status, msg)
		return nil, false
	}
	return body, true
}
