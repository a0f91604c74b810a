package oxp

import (
	"bytes"
	"encoding/json"
	"errors"
	"math"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/toolexec/toolexec"
	"github.com/toolexec/toolexec/internal/httpjson"
	"github.com/toolexec/toolexec/internal/jsonwalk"
)

// call is POST /tools/call. The order of checks, each ending the call with
// its answer:
//
//  1. the body: within the Executor's size limit (413), a well-formed call
//     request in either form (400);
//  2. the tool id resolves to a served tool version (400), answered as the
//     execution gate's refusal (400) when execution is disabled, since the
//     gate comes first in the pipeline, and as the auth hook's refusal to
//     a caller it refuses where tools are hidden per caller;
//  3. toolexec.Executor.Call: the gate (400), the auth hook (401), the
//     tool's requirements (400, missing_requirements; a per-call
//     interceptor, so only an authenticated call learns of them, given
//     only for a tool version that declares requirements), the
//     input (422), then the tool itself (200, success true or false).
//
// The tool runs below this frame, which holds only what the answer needs
// (pendingCall): reading the request (admit) and writing the answer
// (finish) happen in frames of their own, so the call needs little stack.
func (h *handler) call(w http.ResponseWriter, r *http.Request) {
	var c pendingCall
	if !h.admit(w, r, &c) {
		return
	}
	// The requirements check is a per-call interceptor only for a tool that
	// declares requirements: the others need no check, and a call without
	// per-call interceptors takes the pipeline's shorter path.
	var ics []toolexec.Interceptor
	if c.requirements {
		ics = h.callInterceptors
	}
	req := toolexec.CallRequest{
		Name:      c.name,
		Version:   c.version,
		Arguments: c.input,
		Request:   r,
		Surface:   toolexec.SurfaceOXP,
	}
	ctx := NewContext(r.Context(), c.cc)
	if c.async && !c.wrapped {
		h.callAsync(w, r.WithContext(ctx), &c, req, ics) // tasks.go
		return
	}
	start := time.Now()
	res, err := h.x.SurfaceKit().Call(ctx, req, ics...)
	h.finish(w, r, &c, milliseconds(time.Since(start)), res, err)
}

// pendingCall is what POST /tools/call keeps of an admitted call while its
// tool runs.
type pendingCall struct {
	form
	cc            *CallContext // the call's ids and context, as the tool sees them
	name, version string       // the tool version to run
	input         json.RawMessage
	outputSchema  json.RawMessage // the tool version's (see valueOf)
	requirements  bool            // the tool version declares requirements
	async         bool            // the caller asked for Prefer: respond-async, and the tool allows tasks
}

// admit reads a call request and resolves its tool into c, answering a
// request it refuses itself (steps 1 and 2 of call), and reports whether
// the call may run.
func (h *handler) admit(w http.ResponseWriter, r *http.Request, c *pendingCall) bool {
	var req callRequest
	if !h.readRequest(w, r, &req) {
		return false
	}
	var e entry
	if bad := h.resolve(req.toolID, &e); bad != nil {
		h.refuseUnresolved(w, r, &req.form, bad)
		return false
	}
	cc := new(CallContext)
	*cc = req.context
	cc.CallID, cc.TraceID, cc.ToolID = req.callID, req.traceID, e.id()
	if cc.CallID == "" {
		cc.CallID = newCallID()
	}
	c.form, c.cc, c.input = req.form, cc, req.input
	c.name, c.version, c.outputSchema = e.tool.Name, e.tool.Version, e.tool.OutputSchema
	c.requirements = !e.tool.Requirements.IsZero()
	ts := e.tool.Options.TaskSupport
	c.async = (ts == toolexec.TaskSupportOptional || ts == toolexec.TaskSupportRequired) && wantsAsync(r)
	return true
}

// readRequest reads the body of a call request into req (step 1 of call),
// answering a request it refuses itself, and reports whether it read one.
func (h *handler) readRequest(w http.ResponseWriter, r *http.Request, req *callRequest) bool {
	body, err := h.x.SurfaceKit().ReadBody(w, r)
	if err != nil {
		refuseBody(w, err)
		return false
	}
	var plain bool
	if *req, plain = decodePlainCallRequest(body); plain {
		return true
	}
	var bad *serverError
	if *req, bad = decodeCallRequest(body); bad != nil {
		h.refuse(w, &req.form, http.StatusBadRequest, bad)
		return false
	}
	return true
}

// refuseUnresolved answers a call whose tool id resolve refused with bad
// (step 2 of call), as the pipeline answers a call of an unknown tool:
// before the auth hook, unless tools are hidden per caller
// (toolexec.WithToolFilter), where a caller the hook refuses gets that
// refusal instead, so that only an admitted caller learns which tools
// exist.
func (h *handler) refuseUnresolved(w http.ResponseWriter, r *http.Request, f *form, bad *serverError) {
	kit := h.x.SurfaceKit()
	if !kit.ExecutionAllowed() {
		// The pipeline, which never sees this call, would have said so
		// before looking the tool up.
		h.refuse(w, f, http.StatusBadRequest, executionDisabled())
		return
	}
	if kit.FiltersTools() {
		if _, err := kit.Authenticate(r); err != nil && h.refuseFailure(w, f, err) {
			return
		}
	}
	h.refuse(w, f, http.StatusBadRequest, bad)
}

// refuseBody answers a request whose body could not be read: 413 over the
// size limit, 400 otherwise.
func refuseBody(w http.ResponseWriter, err error) {
	if e, ok := toolexec.AsError(err); ok && e.Code == toolexec.CodeTooLarge {
		httpjson.Write(w, http.StatusRequestEntityTooLarge, serverError{Message: "The request is too large", DeveloperMessage: e.Message})
		return
	}
	httpjson.Write(w, http.StatusBadRequest, serverError{Message: "The request body could not be read", DeveloperMessage: err.Error()})
}

// finish answers a call Executor.Call ran, or refused, in duration
// milliseconds (step 3 of call).
func (h *handler) finish(w http.ResponseWriter, r *http.Request, c *pendingCall, duration float64, res *toolexec.CallToolResult, err error) {
	var value json.RawMessage
	var failure *callError
	if err != nil {
		if h.refuseFailure(w, &c.form, err) {
			return
		}
		failure = callErrorOf(err)
	} else if res.IsError {
		msg := res.Text()
		if msg == "" {
			msg = "The tool reported an error"
		}
		failure = &callError{Message: msg}
	} else {
		v, verr := valueOf(c.outputSchema, res)
		if verr != nil {
			h.x.SurfaceKit().Logger().ErrorContext(r.Context(), "oxp: result could not be encoded", "tool", c.cc.ToolID, "error", verr)
			failure = &callError{Message: "The tool's result could not be encoded"}
		} else {
			value = v
		}
	}
	h.answer(w, &c.form, c.cc.CallID, duration, value, failure)
}

// answer writes a CallToolResponse, wrapped when the request was: a
// success with value when failure is nil, else a failure.
func (h *handler) answer(w http.ResponseWriter, f *form, callID string, duration float64, value json.RawMessage, failure *callError) {
	if failure == nil && !f.wrapped {
		if data, ok := appendSuccess(nil, callID, duration, value); ok {
			// The headers middleware has set Content-Type and nosniff, and
			// nothing since has had the ResponseWriter.
			w.WriteHeader(http.StatusOK)
			_, _ = w.Write(httpjson.ValidUTF8(data))
			return
		}
	}
	resp := &callResponse{CallID: callID, Duration: duration, Success: failure == nil, Error: failure}
	if failure == nil {
		v := value
		resp.Value = &v
	}
	if f.wrapped {
		httpjson.Write(w, http.StatusOK, wrappedResponse{Schema: f.schema, Result: resp})
		return
	}
	httpjson.Write(w, http.StatusOK, resp)
}

// appendSuccess writes the common answer, a success whose call id is plain
// ASCII, with its value (already encoded by valueOf: compact, escaped as
// encoding/json escapes) put in as it is, instead of json.Marshal scanning
// and compacting the value again. The bytes, newline included, are those
// json.Marshal writes of the callResponse (TestSuccessWrittenAsMarshalWritesIt);
// ok is false for any other answer, which takes json.Marshal.
func appendSuccess(dst []byte, callID string, duration float64, value json.RawMessage) (_ []byte, ok bool) {
	if value == nil || !plainJSONString(callID) ||
		duration < 0 || duration >= 1e21 || (duration != 0 && duration < 1e-6) {
		return dst, false
	}
	dst = slices.Grow(dst, len(value)+len(callID)+64)
	dst = append(dst, `{"call_id":"`...)
	dst = append(dst, callID...)
	dst = append(dst, `","duration":`...)
	dst = strconv.AppendFloat(dst, duration, 'f', -1, 64) // encoding/json's format in this range
	dst = append(dst, `,"success":true,"value":`...)
	dst = append(dst, value...)
	return append(dst, "}\n"...), true
}

// plainJSONString reports whether s is written by encoding/json as it is,
// between quotes: printable ASCII without '"', '\\', '<', '>' or '&'.
func plainJSONString(s string) bool {
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c < 0x20 || c >= 0x7f, c == '"', c == '\\', c == '<', c == '>', c == '&':
			return false
		}
	}
	return true
}

// refuse writes a ServerErrorResponse; in the wrapped form it echoes the
// request's $schema, as the earlier drafts did.
func (h *handler) refuse(w http.ResponseWriter, f *form, status int, body *serverError) {
	if f.wrapped {
		body.Schema = f.schema
	}
	httpjson.Write(w, status, body)
}

// refuseFailure answers the failures of Executor.Call that happen before
// the tool runs, and reports whether it did. The others are tool execution
// errors, answered with success false.
func (h *handler) refuseFailure(w http.ResponseWriter, f *form, err error) bool {
	var miss *missingRequirementsError
	if errors.As(err, &miss) {
		h.refuse(w, f, http.StatusBadRequest, miss.serverError())
		return true
	}
	e, ok := toolexec.AsError(err)
	if !ok {
		return false
	}
	switch e.Code {
	case toolexec.CodeExecutionDisabled:
		h.refuse(w, f, http.StatusBadRequest, executionDisabled())
	case toolexec.CodeNotFound:
		h.refuse(w, f, http.StatusBadRequest, &serverError{Message: "The tool is not available", DeveloperMessage: e.Message})
	case toolexec.CodeUnauthorized:
		// OXP: a server that requires authentication and did not get
		// valid credentials answers 400 with a Server Error Response.
		// Why the hook refused is only logged; the hook's challenge, when
		// it gave one, tells the client how to authenticate.
		if e.Challenge != "" {
			w.Header().Set("WWW-Authenticate", e.Challenge)
		}
		h.refuse(w, f, http.StatusBadRequest, unauthenticated())
	case toolexec.CodeForbidden:
		h.refuseForbidden(w, f, e)
	case toolexec.CodeTooLarge:
		h.refuse(w, f, http.StatusRequestEntityTooLarge, &serverError{Message: "The request is too large", DeveloperMessage: e.Message})
	case toolexec.CodeRateLimited:
		// Refused before the tool ran, as a busy server refuses: HTTP's
		// own answer, which clients and proxies know to wait on.
		if e.RetryAfter > 0 {
			w.Header().Set("Retry-After", httpjson.RetryAfter(e.RetryAfter))
		}
		h.refuse(w, f, http.StatusTooManyRequests, &serverError{Message: e.Message})
	case toolexec.CodeTaskRequired:
		h.refuse(w, f, http.StatusBadRequest, &serverError{Message: "The tool runs only as an asynchronous call",
			DeveloperMessage: e.Message + " Send Prefer: respond-async, and poll the Location of the 202 answer."})
	case toolexec.CodeInvalidArguments:
		body := invalidInput(e)
		if f.wrapped {
			body.Schema = f.schema
		}
		httpjson.Write(w, http.StatusUnprocessableEntity, body)
	default:
		return false
	}
	return true
}

// unauthenticated is the answer to a call the auth hook refused: fixed
// words, whatever the hook wrote.
func unauthenticated() *serverError {
	return &serverError{
		Message:          "Authentication is required",
		DeveloperMessage: "the server did not accept the request's credentials; send valid ones (such as Authorization: Bearer <token>)",
	}
}

func executionDisabled() *serverError {
	return &serverError{
		Message:          "Tool execution is disabled on this server",
		DeveloperMessage: "the Executor was created without toolexec.WithAllowExecute(true); discovery still works",
	}
}

// invalidInput is the 422 answer to input the pipeline refused: the
// validation failures by parameter, or why the input is not an object.
//
// A failure's Path is a JSON Pointer into the input. Its first token names
// the parameter: "/b" is parameter b, "/address/city" is parameter address
// with the message prefixed by the rest of the path ("/city: ..."); several
// failures of one parameter are joined with "; ". Failures at the root (path
// "") belong to no parameter, such as a property the schema does not allow:
// they are appended to message. When validation left failures out (see
// toolexec.MaxValidationFailures), message ends with how many. The answer
// is built in one pass, linear in the failures' size.
func invalidInput(e *toolexec.Error) *validationError {
	if e.Stage != toolexec.StageValidate && len(e.Failures) == 0 && e.Omitted == 0 {
		msg := e.Message
		if e.Stage == toolexec.StageDecode {
			msg = "The input must be a JSON object"
		}
		return &validationError{Message: msg}
	}
	builders := make(map[string]*strings.Builder)
	var root strings.Builder
	root.WriteString("The input parameters are invalid")
	sep := ": "
	for _, f := range e.Failures {
		name, rest, ok := splitPointer(f)
		if !ok {
			root.WriteString(sep)
			sep = "; "
			if f.Path != "" {
				root.WriteString(f.Path)
				root.WriteString(": ")
			}
			root.WriteString(f.Message)
			continue
		}
		b := builders[name]
		if b == nil {
			b = new(strings.Builder)
			builders[name] = b
		} else {
			b.WriteString("; ")
		}
		if rest != "" {
			b.WriteString(rest)
			b.WriteString(": ")
		}
		b.WriteString(f.Message)
	}
	if e.Omitted > 0 {
		root.WriteString(" (")
		root.WriteString(strconv.Itoa(e.Omitted))
		if e.Omitted == 1 {
			root.WriteString(" more failure was omitted)")
		} else {
			root.WriteString(" more failures were omitted)")
		}
	}
	out := &validationError{Message: root.String()}
	if len(builders) > 0 {
		out.ParameterErrors = make(map[string]string, len(builders))
		for name, b := range builders {
			out.ParameterErrors[name] = b.String()
		}
	}
	return out
}

// splitPointer splits a failure's JSON Pointer into its first token,
// unescaped, and the rest of the pointer as it is; ok is false for the root
// ("") and for anything that is not a pointer.
func splitPointer(f toolexec.ValidationFailure) (first, rest string, ok bool) {
	tokens := f.Tokens()
	if len(tokens) == 0 {
		return "", "", false
	}
	if i := strings.IndexByte(f.Path[1:], '/'); i >= 0 {
		rest = f.Path[1+i:]
	}
	return tokens[0], rest, true
}

// callErrorOf is the error of a CallToolResponse for a call that failed
// after it was accepted: the tool's error, a panic, a timeout, a refusal by
// a limit, or an interceptor's failure.
func callErrorOf(err error) *callError {
	e, ok := toolexec.AsError(err)
	if !ok {
		return &callError{Message: err.Error()}
	}
	switch e.Code {
	case toolexec.CodeToolError:
		var te *toolexec.ToolError
		if errors.As(e, &te) {
			return &callError{
				Message:                 te.Message,
				DeveloperMessage:        te.DeveloperMessage,
				CanRetry:                te.CanRetry,
				AdditionalPromptContent: te.AdditionalPromptContent,
				RetryAfterMS:            ceilMS(te.RetryAfter),
			}
		}
		return &callError{Message: e.Message}
	case toolexec.CodePanic:
		// The panic's text may say more than a model should see; it goes
		// only in developer_message. The stack is only ever logged.
		// With toolexec.WithPanicDetails(true) the message is the panic's.
		ce := &callError{Message: "The tool failed unexpectedly"}
		if e.Message != toolexec.PanicMessage {
			ce.DeveloperMessage = "panic: " + e.Message
		}
		return ce
	case toolexec.CodeUnavailable:
		return &callError{Message: e.Message, CanRetry: true, RetryAfterMS: ceilMS(e.RetryAfter)}
	}
	return &callError{Message: e.Message}
}

// valueOf is a successful result's value, for a tool version whose output
// schema is outputSchema: the structured output when the
// tool gave one; else, when every content block is text, the text; null
// when there is no content at all; and the content blocks themselves, in
// MCP's form, when some are not text, so no image or resource is lost.
//
// The text is the value as JSON, rather than as a string, only when that is
// unambiguous: the tool declares an output schema, that schema does not
// allow a string at its top level (textIsJSON), and the text is one JSON
// document. So a tool answering "15" under {"type": "number"} has the value
// 15, while one answering "123" under {"type": "string"} has "123".
func valueOf(outputSchema json.RawMessage, res *toolexec.CallToolResult) (json.RawMessage, error) {
	if res.StructuredContent != nil {
		if raw, ok := res.StructuredContent.(json.RawMessage); ok && marshalsAsItself(raw) {
			return raw, nil
		}
		return json.Marshal(res.StructuredContent)
	}
	if len(res.Content) == 0 {
		return json.RawMessage("null"), nil
	}
	for _, c := range res.Content {
		if _, ok := c.(*toolexec.TextContent); !ok {
			return json.Marshal(res.Content)
		}
	}
	text := res.Text()
	if textIsJSON(outputSchema) {
		// Compacted and escaped as json.Marshal writes a RawMessage, so the
		// answer can put it in as it is; compacting is the validity check.
		var buf bytes.Buffer
		if t := bytes.TrimSpace([]byte(text)); len(t) > 0 && json.Compact(&buf, t) == nil {
			if !bytes.ContainsAny(buf.Bytes(), "<>&\u2028\u2029") {
				return buf.Bytes(), nil
			}
			var escaped bytes.Buffer
			json.HTMLEscape(&escaped, buf.Bytes())
			return escaped.Bytes(), nil
		}
	}
	return json.Marshal(text)
}

// marshalsAsItself reports whether json.Marshal writes raw, a
// json.RawMessage, as raw itself: raw is valid JSON (json.Marshal refuses
// anything else) holding no white space, which json.Marshal would compact
// away (in a string too, to keep this check one pass), and none of the
// characters it escapes (<, >, &, U+2028, U+2029). A typed tool's output,
// which json.Marshal made, usually is.
func marshalsAsItself(raw json.RawMessage) bool {
	if len(raw) == 0 {
		return false
	}
	for i, c := range raw {
		switch c {
		case ' ', '\t', '\n', '\r', '<', '>', '&':
			return false
		case 0xe2: // U+2028 and U+2029 are e2 80 a8 and e2 80 a9
			if i+2 < len(raw) && raw[i+1] == 0x80 && (raw[i+2] == 0xa8 || raw[i+2] == 0xa9) {
				return false
			}
		}
	}
	return jsonwalk.Valid(raw)
}

// textIsJSON reports whether a text result under the output schema is to
// be read as JSON: the schema's top-level "type" does not name "string" (as
// "string" or in a list of types); a schema without "type" (or the schema
// true) does not say, and the declared schema is taken to mean JSON output.
// Without a schema, or with one that cannot be read, the text stays a
// string.
func textIsJSON(schema json.RawMessage) bool {
	if len(schema) == 0 {
		return false
	}
	var s struct {
		Type json.RawMessage `json:"type"`
	}
	if err := json.Unmarshal(schema, &s); err != nil {
		return string(bytes.TrimSpace(schema)) == "true"
	}
	if len(s.Type) == 0 {
		return true
	}
	var one string
	if json.Unmarshal(s.Type, &one) == nil {
		return one != "string"
	}
	var many []string
	if json.Unmarshal(s.Type, &many) == nil {
		return !slices.Contains(many, "string")
	}
	return true
}

// milliseconds is d in milliseconds, to the microsecond.
func milliseconds(d time.Duration) float64 {
	return math.Round(float64(d)/float64(time.Microsecond)) / 1000
}

// ceilMS is d in whole milliseconds, rounded up so a client never retries
// too early; 0 for no wait.
func ceilMS(d time.Duration) int64 {
	if d <= 0 {
		return 0
	}
	return int64((d + time.Millisecond - 1) / time.Millisecond)
}
