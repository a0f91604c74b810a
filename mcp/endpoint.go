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
	sse     bool // Accept admits text/event-stream (acceptsEventStream)
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
	// shared and tail: when tail is set, the answer is data, then shared,
	// then tail. shared is bytes kept between requests (a page of
	// tools/list, see toollist.go), written as they are and never
	// modified; flatten joins the three where one buffer is needed.
	shared, tail []byte
}

// flatten makes the answer one buffer, data, when it is in three parts.
func (o *outcome) flatten() {
	if o.tail == nil {
		return
	}
	data := make([]byte, 0, len(o.data)+len(o.shared)+len(o.tail)+1) // room for the newline writeAnswer adds
	o.data = append(append(append(data, o.data...), o.shared...), o.tail...)
	o.shared, o.tail = nil, nil
}

// serveMCP answers a request to the MCP endpoint: the transport checks, then
// one JSON-RPC message or, where the protocol version allows it, a batch.
//
// A tools/call runs three frames below ServeHTTP (serveMCP, answer,
// runCall), each kept small: the message travels by pointer, and refusals
// and other rare answers are built in functions of their own, so a call
// needs little stack on the connection's goroutine.
func (h *handler) serveMCP(w http.ResponseWriter, r *http.Request) {
	if r.Method == http.MethodGet && h.resumeWindow > 0 && r.Header.Get("Last-Event-ID") != "" {
		h.resume(w, r) // a 2025 client resuming a stream (resume.go)
		return
	}
	ex := exchange{w: w, r: r, version: version20250326}
	body, format, ok := h.admit(&ex)
	if !ok {
		return
	}
	if ex.batch {
		h.serveBatch(&ex, body, format)
		return
	}
	var m message
	if perr := m.parse(body); perr != nil {
		writeError(w, http.StatusBadRequest, m.id, perr)
		return
	}
	var out outcome
	switch {
	case ex.version == version20260728 && m.kind != kindRequest:
		// This revision defines no client notification over HTTP; one that
		// arrives anyway is accepted and ignored, as JSON-RPC lets it be.
		w.WriteHeader(http.StatusAccepted)
		return
	case ex.version == version20260728:
		h.answerModern(&ex, &m, &out)
	case m.kind == kindRequest && header(r.Header, protocolVersionKey) == "" && h.refuseUndeclared(w, &m):
		return
	default:
		h.answer(&ex, &m, &out)
	}
	h.writeOutcome(w, format, &out)
}

// admit runs the transport checks of a request to the MCP endpoint and
// reads its body, filling in ex. It answers a request it refuses itself,
// and then reports false.
func (h *handler) admit(ex *exchange) (body []byte, format responseFormat, ok bool) {
	w, r := ex.w, ex.r
	if r.Method != http.MethodPost {
		h.methodNotAllowed(w, false, http.MethodPost)
		return nil, 0, false
	}
	if !jsonContentType(r) {
		h.reject(w, false, http.StatusUnsupportedMediaType, "Unsupported Media Type: the body must be application/json")
		return nil, 0, false
	}
	format, ex.sse = negotiateFormat(r)
	if format == formatNone {
		h.reject(w, false, http.StatusNotAcceptable, "Not Acceptable: the client must accept application/json or text/event-stream")
		return nil, 0, false
	}
	raw, ok := h.readBody(w, r, false)
	if !ok {
		return nil, 0, false
	}
	body = bytes.TrimSpace(raw)
	if len(body) == 0 {
		writeError(w, http.StatusBadRequest, nil, newError(CodeParseError, "Parse error: the body is empty"))
		return nil, 0, false
	}
	// The one check of the whole body: everything after reads it with the
	// walkers of internal/jsonwalk, which rely on it.
	if !jsonwalk.Valid(body) {
		writeError(w, http.StatusBadRequest, nil, newError(CodeParseError, "Parse error: the body is not valid JSON"))
		return nil, 0, false
	}
	ex.raw, ex.batch = raw, body[0] == '['
	if v := header(r.Header, protocolVersionKey); v != "" {
		if !supported(v) {
			writeError(w, http.StatusBadRequest, singleID(body), unsupportedVersion(v))
			return nil, 0, false
		}
		ex.version = v
	}
	return body, format, true
}

// refuseUndeclared refuses a request without MCP-Protocol-Version whose
// _meta declares a stateless version, and reports whether it did: such a
// request must say so in the header too, and served as 2025-03-26 it would
// have what it asked for ignored.
func (h *handler) refuseUndeclared(w http.ResponseWriter, m *message) bool {
	v := metaProtocolVersionOf(m.params)
	if v == "" || legacy(v) {
		return false
	}
	writeError(w, http.StatusBadRequest, m.id, newError(CodeHeaderMismatch,
		"Header mismatch: the %s header is required; _meta declares %q", protocolVersionHeader, v))
	return true
}

// writeError answers with the JSON-RPC error response to id under status.
func writeError(w http.ResponseWriter, status int, id json.RawMessage, e *wireError) {
	httpjson.Write(w, status, errorResponse(id, e))
}

// writeOutcome writes the answer to a single message: nothing when it went
// out on a stream already, the refusal of the auth hook, 202 when there is
// nothing to answer, an error with its HTTP status, or the answer in the
// negotiated format; with Retry-After when the outcome asks for it.
func (h *handler) writeOutcome(w http.ResponseWriter, format responseFormat, out *outcome) {
	if out.retryAfter > 0 && !out.streamed {
		w.Header().Set("Retry-After", httpjson.RetryAfter(out.retryAfter))
	}
	switch {
	case out.streamed:
	case out.refused:
		writeRefusal(w, out)
	case out.data == nil:
		w.WriteHeader(http.StatusAccepted)
	case out.tail != nil && out.status == 0 && format == formatJSON:
		h.writeParts(w, out)
	default:
		out.flatten()
		if out.status != 0 {
			writeStatus(w, out.status, out.data)
			return
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
		var m message
		if perr := m.parse(it.Val); perr != nil {
			answers = append(answers, encodeError(m.id, perr))
			continue
		}
		var out outcome
		h.answer(ex, &m, &out)
		out.flatten()
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
		writeRefusal(w, &refusal)
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

// answer handles one parsed message, setting *out, which must be zero, to
// its outcome. A panic while answering a request (a tool provider that
// panics while listing, a result whose encoding panics) is logged with its
// stack and becomes an internal error for that request alone (see
// recoverAnswer).
func (h *handler) answer(ex *exchange, m *message, out *outcome) {
	if m.kind != kindRequest {
		h.receive(ex, m) // notifications and client responses: accepted, nothing to say
		return
	}
	defer h.recoverAnswer(ex, m, out)
	if m.method != "tools/call" {
		h.dispatch(ex, m, out)
		return
	}
	p, werr := readCallParams(m.params)
	if werr == nil {
		werr = checkMetaProgressToken(p.meta)
	}
	if werr != nil {
		out.data = encodeError(m.id, werr)
		return
	}
	m.call = p
	h.runCall(ex, m, p.name, p.args, nil, out)
}

// receive handles a message that is not a request: an answer to an input
// request (input.go), a cancellation (cancel.go), or any other
// notification, which is ignored.
func (h *handler) receive(ex *exchange, m *message) {
	switch {
	case m.kind == kindResponse:
		h.inputs.deliver(ex.r.Context(), m)
	case m.kind == kindNotification && m.method == "notifications/cancelled":
		h.running.cancel(ex.r.Context(), ex.r.Header.Get(sessionHeaderKey), m.params)
	}
}

// recoverAnswer is deferred while a request is answered: it recovers a
// panic, logs it with its stack, and makes the request's outcome an
// internal error.
func (h *handler) recoverAnswer(ex *exchange, m *message, out *outcome) {
	if p := recover(); p != nil {
		httpjson.LogPanic(ex.r.Context(), h.x.SurfaceKit().Logger(), "mcp: answering a JSON-RPC request", p)
		*out = outcome{data: encodeError(m.id, newError(CodeInternalError, "Internal error"))}
	}
}

// dispatch answers one request other than tools/call (see answer) by its
// method, setting out.data.
func (h *handler) dispatch(ex *exchange, m *message, out *outcome) {
	var result any
	var err *wireError
	switch m.method {
	case "initialize":
		if ex.batch {
			err = newError(CodeInvalidRequest, "Invalid Request: initialize must not be part of a batch")
			break
		}
		var ir initializeResult
		ir, err = h.initialize(m.params)
		if err == nil {
			h.rememberCapabilities(ex, m.params, ir.ProtocolVersion)
		}
		result = ir
	case "ping":
		result = struct{}{}
	case "tools/list":
		v := viewListed
		if ex.version == NewestInitializeVersion {
			v = viewExec // with each tool's execution.taskSupport (tasks_2025_11_25.go)
		}
		*out = h.listTools(ex.r, m, v)
		return
	case "logging/setLevel":
		result, err = h.setLogLevel(m)
	case "tasks/get", "tasks/result", "tasks/cancel":
		if ex.version != NewestInitializeVersion {
			err = newError(CodeMethodNotFound, "Method not found: %s (tasks are served at protocol version %s)", m.method, NewestInitializeVersion)
			break
		}
		*out = h.serveLegacyTask(ex, m) // tasks_2025_11_25.go
		return
	default:
		err = newError(CodeMethodNotFound, "Method not found: %s", m.method)
	}
	if err != nil {
		out.data = encodeError(m.id, err)
		return
	}
	out.data = h.encodeResult(ex.r, m.id, result)
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
