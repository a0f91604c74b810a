package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"sync"

	"github.com/toolexec/toolexec"
	"github.com/toolexec/toolexec/internal/jsonwalk"
)

// callStream is the toolexec.Peer of one tools/call that is not part of a
// batch. It sends nothing until the tool reports progress, logs at a level
// the client asked for, or (2025 versions) asks for input; the first such
// message turns the response into an SSE stream, which then carries the
// notifications, the server's requests and, last, the call's response.
// When nothing is sent the response stays the plain JSON body it always was.
//
// On 2026-07-28 input requests are not sent on the stream: RequestInput
// answers from the retried request's inputResponses (and the signed
// requestState), or records the questions and fails with
// toolexec.ErrInputRequired, and the call is answered with an
// input-required result (see mrtr.go).
//
// Every write to the stream has a deadline (see sseWriter): a client that
// stops reading fails the write that blocks on it, the stream is dropped
// and the call's context cancelled, so the tool stops and its concurrency
// slot is freed.
type callStream struct {
	h    *handler
	r    *http.Request // the call's request, for the log line of a dropped stream
	out  sseWriter
	sse  bool // the client accepts text/event-stream
	meta callMeta
	// ctx is the call's context when the call may write to the stream
	// (callCtx; parent is nil when it does not): cancelCall ends it when
	// the stream fails and when the call ends (closeStream).
	ctx callCtx
	// cancel, when set, ends the context of a call notifications/cancelled
	// can reach (cancel.go), instead of ctx.
	cancel context.CancelFunc

	mrtr      *mrtrCall // 2026-07-28: the call's input state (mrtrState); nil on 2025 versions
	mrtrState mrtrCall
	res       *resumable // 2025 over SSE: the stream's resumable side (resState, resume.go); nil when not resumable
	resState  resumable
	untrack   func() // ends the call's registration for notifications/cancelled

	mu      sync.Mutex
	missing clientCaps // capabilities the tool asked for that the client did not declare
	// progressed, lastProgress: the last progress sent, which the next
	// must exceed
	progressed   bool
	lastProgress float64
	started      bool // the SSE response has begun
	closed       bool // the call's response was sent: nothing more may be written
	failed       bool // a write failed: the client is gone
	gone         bool // a resumable stream's client went away: events are only logged
}

// callMeta is what tools/call's params carry beside the name and the
// arguments: _meta's progress token and log level, the client's
// capabilities, and 2026-07-28's inputResponses and requestState.
type callMeta struct {
	progressToken  json.RawMessage // nil: no progress wanted
	logLevel       int             // severity of the lowest level to send; -1: none
	caps           clientCaps
	inputResponses json.RawMessage
	requestState   string
}

// metaLogLevel is the _meta key naming the lowest level of log messages a
// request wants (MCP 2026-07-28; the handler reads it on 2025 versions too).
const metaLogLevel = "io.modelcontextprotocol/logLevel"

// clientCaps is what a client declared it answers.
type clientCaps struct {
	elicitForm, elicitURL, sampling, roots bool
}

// readCaps reads a ClientCapabilities object. An elicitation capability
// without form or url members is form mode alone, as MCP 2025-11-25 keeps
// for clients of the versions before it.
func readCaps(raw []byte) clientCaps {
	var c clientCaps
	if len(raw) == 0 || raw[0] != '{' {
		return c
	}
	for it := jsonwalk.Members(raw); it.Next(); {
		switch {
		case it.Is("sampling"):
			c.sampling = isObject(it.Val)
		case it.Is("roots"):
			c.roots = isObject(it.Val)
		case it.Is("elicitation"):
			if !isObject(it.Val) {
				continue
			}
			form, url := false, false
			for e := jsonwalk.Members(it.Val); e.Next(); {
				switch {
				case e.Is("form"):
					form = isObject(e.Val)
				case e.Is("url"):
					url = isObject(e.Val)
				}
			}
			c.elicitForm = form || !url
			c.elicitURL = url
		}
	}
	return c
}

func isObject(raw []byte) bool { return len(raw) > 0 && raw[0] == '{' }

// add sets the capability kind needs.
func (c *clientCaps) add(kind toolexec.InputKind) {
	switch kind {
	case toolexec.InputKindElicitForm:
		c.elicitForm = true
	case toolexec.InputKindElicitURL:
		c.elicitURL = true
	case toolexec.InputKindSampling:
		c.sampling = true
	case toolexec.InputKindRoots:
		c.roots = true
	}
}

func (c *clientCaps) merge(o clientCaps) {
	c.elicitForm = c.elicitForm || o.elicitForm
	c.elicitURL = c.elicitURL || o.elicitURL
	c.sampling = c.sampling || o.sampling
	c.roots = c.roots || o.roots
}

// wire is the ClientCapabilities object naming c.
func (c clientCaps) wire() map[string]any {
	out := map[string]any{}
	if c.elicitForm || c.elicitURL {
		e := map[string]any{} // {}: form mode
		if c.elicitURL {
			e["url"] = struct{}{}
			if c.elicitForm {
				e["form"] = struct{}{}
			}
		}
		out["elicitation"] = e
	}
	if c.sampling {
		out["sampling"] = struct{}{}
	}
	if c.roots {
		out["roots"] = struct{}{}
	}
	return out
}

// supports reports whether the capabilities cover kind.
func (c clientCaps) supports(kind toolexec.InputKind) bool {
	switch kind {
	case toolexec.InputKindElicitForm:
		return c.elicitForm
	case toolexec.InputKindElicitURL:
		return c.elicitURL
	case toolexec.InputKindSampling:
		return c.sampling
	case toolexec.InputKindRoots:
		return c.roots
	}
	return false
}

// maxProgressTokenBytes bounds a progress token, as sent (JSON, quotes
// included): every progress notification repeats it, so a large one would
// multiply what the client sent by the number of reports.
const maxProgressTokenBytes = 256

// checkProgressToken refuses a progress token (a _meta member as sent; nil
// when absent) that is neither a string nor a number, or is longer than
// maxProgressTokenBytes.
func checkProgressToken(token []byte) *wireError {
	switch {
	case token == nil || string(token) == "null":
		return nil
	case !validID(token):
		return newError(CodeInvalidParams, "Invalid params: progressToken must be a string or a number")
	case len(token) > maxProgressTokenBytes:
		return newError(CodeInvalidParams, "Invalid params: progressToken must be at most %d bytes of JSON", maxProgressTokenBytes)
	}
	return nil
}

// checkMetaProgressToken checks the progress token of a tools/call's _meta
// (the object as sent, or nil), whether or not the call can stream, so that
// a token is refused or accepted alike on every path.
func checkMetaProgressToken(meta []byte) *wireError {
	if !isObject(meta) {
		return nil
	}
	for it := jsonwalk.Members(meta); it.Next(); {
		if it.Is("progressToken") {
			return checkProgressToken(it.Val)
		}
	}
	return nil
}

// readStreamMeta sets the progress token and the log level from the _meta
// members as sent (nil when absent). A progress token that is neither a
// string nor a number or longer than maxProgressTokenBytes, or a log level
// that is not one of MCP's eight, is invalid params.
func (m *callMeta) readStreamMeta(token, level []byte) *wireError {
	if werr := checkProgressToken(token); werr != nil {
		return werr
	}
	if token != nil && string(token) != "null" {
		m.progressToken = token
	}
	if level != nil {
		s, _ := jsonString(level)
		sev := toolexec.LogLevel(s).Severity()
		if sev < 0 {
			return newError(CodeInvalidParams, "Invalid params: %s must be one of debug, info, notice, warning, error, critical, alert, emergency", metaLogLevel)
		}
		m.logLevel = sev
	}
	return nil
}

// legacyCallMeta reads the _meta of a 2025 tools/call (the object as
// sent, or nil; callParams read it): its progress token and log level.
// defaultLevel is the severity sent when _meta names no level (-1: none).
// The client's capabilities come from its session token (see
// capsFromSession), as 2025 versions declare them in initialize.
func legacyCallMeta(meta []byte, defaultLevel int) (callMeta, *wireError) {
	m := callMeta{logLevel: defaultLevel}
	if !isObject(meta) {
		return m, nil
	}
	var token, level []byte
	for mt := jsonwalk.Members(meta); mt.Next(); {
		switch {
		case mt.Is("progressToken"):
			token = mt.Val
		case mt.Is(metaLogLevel):
			level = mt.Val
		}
	}
	return m, m.readStreamMeta(token, level)
}

// modernCallMeta reads a 2026-07-28 tools/call: the progress token, log
// level and client capabilities of its _meta, which requestMeta.read read
// already, and the inputResponses and requestState of its params. Log
// messages are sent only when _meta names a level.
func modernCallMeta(params []byte, meta *requestMeta) (callMeta, *wireError) {
	m := callMeta{logLevel: -1, caps: readCaps(meta.clientCapabilities)}
	if werr := m.readStreamMeta(meta.progressToken, meta.logLevel); werr != nil {
		return m, werr
	}
	for it := jsonwalk.Members(params); it.Next(); {
		switch {
		case it.Is("inputResponses"):
			if string(it.Val) != "null" {
				m.inputResponses = it.Val
			}
		case it.Is("requestState"):
			s, ok := jsonString(it.Val)
			if !ok && string(it.Val) != "null" {
				return m, newError(CodeInvalidParams, "Invalid params: requestState must be a string")
			}
			m.requestState = s
		}
	}
	return m, nil
}

// acceptsEventStream reports whether the request's Accept admits
// text/event-stream.
func acceptsEventStream(r *http.Request) bool {
	for _, v := range r.Header["Accept"] {
		for v != "" {
			var part string
			part, v, _ = strings.Cut(v, ",")
			if acceptedFormat(part) == formatSSE {
				return true
			}
		}
	}
	return false
}

// Progress implements toolexec.Peer: a notifications/progress on the
// stream, when the request carried a progress token.
func (s *callStream) Progress(ctx context.Context, p toolexec.Progress) error {
	if s.meta.progressToken == nil || !s.sse {
		return nil
	}
	s.res.bind(ctx)
	s.mu.Lock()
	if s.progressed && p.Progress <= s.lastProgress {
		s.mu.Unlock()
		return nil // MCP: progress must increase with each notification
	}
	s.progressed, s.lastProgress = true, p.Progress
	s.mu.Unlock()
	params := struct {
		Token    json.RawMessage `json:"progressToken"`
		Progress float64         `json:"progress"`
		Total    float64         `json:"total,omitempty"`
		Message  string          `json:"message,omitempty"`
	}{s.meta.progressToken, p.Progress, p.Total, p.Message}
	return s.notify(ctx, "notifications/progress", params)
}

// Log implements toolexec.Peer: a notifications/message on the stream, when
// the message's level is at or above the call's level.
func (s *callStream) Log(ctx context.Context, m toolexec.LogMessage) error {
	sev := m.Level.Severity()
	if s.meta.logLevel < 0 || sev < s.meta.logLevel || !s.sse {
		return nil
	}
	s.res.bind(ctx)
	params := struct {
		Level  toolexec.LogLevel `json:"level"`
		Logger string            `json:"logger,omitempty"`
		Data   any               `json:"data"`
	}{m.Level, m.Logger, m.Data}
	return s.notify(ctx, "notifications/message", params)
}

// writes reports whether anything the call does can be written to its
// stream: progress (the request carried a token), log messages (at the
// call's level), or, on 2025 versions, input requests the client declared
// it answers. Only such a call needs a context its stream can cancel.
func (s *callStream) writes() bool {
	if !s.sse {
		return false
	}
	return s.meta.progressToken != nil || s.meta.logLevel >= 0 || (s.mrtr == nil && s.meta.caps != clientCaps{})
}

// InputSupported implements toolexec.Peer.
func (s *callStream) InputSupported(kind toolexec.InputKind) bool {
	if s.mrtr == nil && !s.sse {
		return false // 2025: the requests travel on the call's stream
	}
	return s.meta.caps.supports(kind)
}

// RequestInput implements toolexec.Peer.
func (s *callStream) RequestInput(ctx context.Context, reqs []toolexec.InputRequest) ([]toolexec.InputResponse, error) {
	var missing clientCaps
	for i := range reqs {
		if kind := reqs[i].Kind(); !s.InputSupported(kind) {
			missing.add(kind)
		}
	}
	if missing != (clientCaps{}) {
		s.mu.Lock()
		s.missing.merge(missing)
		s.mu.Unlock()
		return nil, toolexec.ErrInputUnsupported
	}
	if s.mrtr != nil {
		return s.mrtr.request(ctx, reqs)
	}
	s.res.bind(ctx)
	return s.h.inputs.ask(ctx, s, reqs)
}

// notify sends one notification on the stream, from the call running in
// ctx.
func (s *callStream) notify(ctx context.Context, method string, params any) error {
	data, err := encodeNotification(method, params)
	if err != nil {
		return err
	}
	return s.send(ctx, data, false)
}

// encodeNotification encodes a JSON-RPC notification.
func encodeNotification(method string, params any) ([]byte, error) {
	return json.Marshal(struct {
		JSONRPC string `json:"jsonrpc"`
		Method  string `json:"method"`
		Params  any    `json:"params"`
	}{jsonrpcVersion, method, params})
}

// errStreamClosed is what a message sent after the call's response, or
// after the client went away, fails with.
var errStreamClosed = &toolexec.InputError{Code: CodeInternalError, Message: "the call's stream is closed"}

// send writes data as one SSE event, starting the stream first if needed.
// ctx is the context of the call the message comes from, whose deadline
// bounds the write's (see sseWriter.deadline); context.Background for the
// call's response, which is sent once the call has ended. last marks the
// response, after which nothing more is sent.
//
// A write that fails (the client went away, or did not read it by its
// deadline) drops the stream: nothing more is written, and the call's
// context is cancelled. A message from a call whose context has ended is
// not written, and leaves the stream as it is, for the response.
func (s *callStream) send(ctx context.Context, data []byte, last bool) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed || s.failed {
		return errStreamClosed
	}
	if ctx.Err() != nil {
		return ctx.Err()
	}
	if last {
		s.closed = true
	}
	if !s.started {
		if s.res != nil {
			// The stream begins: from now on the client going away
			// leaves the call running, for it to resume (resume.go). Had
			// it gone already, the call is cancelled, as clientGone does.
			if _, ended := s.ctx.makeLive(); ended {
				s.gone = true
			}
		}
		s.started = true
		if s.res != nil {
			s.res.start()
		}
		writeSSEHeader(s.out.w)
	}
	id := ""
	if s.res != nil {
		// Logged, so that a client may resume from it, here or elsewhere
		// (resume.go); "" when it could not be.
		id = s.res.append(data)
		if last {
			s.res.ended(data, id != "")
		}
		if s.gone && id != "" {
			return nil // for the client to resume
		}
	}
	var err error = errStreamClosed // the client is gone, and cannot resume: as for any stream dropped
	if !s.gone {
		err = s.out.eventWithID(id, data, s.out.deadline(ctx))
	}
	if err != nil {
		if id != "" {
			// The client may come back for what it missed, here or on
			// another replica: the call runs on for the resume window.
			s.gone = true
			s.res.detach()
			return nil
		}
		s.failed = true
		s.cancelCall()
		s.h.streamDropped(s.r, err)
		return errStreamClosed
	}
	return nil
}

// finish ends the call: when the stream has started, the response goes on it
// as its last event and finish reports true; otherwise it closes the stream
// to late messages (from goroutines the tool left running) and reports
// false, and the caller answers as it would have without a stream. Either
// way the call's context is cancelled: nothing of the call may run on.
func (s *callStream) finish(data []byte) bool {
	defer s.cancelCall()
	s.mu.Lock()
	started := s.started
	if !started {
		s.closed = true
	}
	s.mu.Unlock()
	if !started {
		return false
	}
	if err := s.send(context.Background(), data, true); errors.Is(err, errStreamClosed) && s.res != nil {
		// The stream failed before the response: a client that resumes it
		// reads the response from the log, once the store takes it.
		s.res.ended(data, false)
	}
	// The stream is closed (or failed): no later send touches s.out, so
	// end may wait for a write left running without holding the lock.
	s.out.end()
	return true
}

// cancelCall cancels the call's context, if it has one of its own.
func (s *callStream) cancelCall() {
	switch {
	case s.cancel != nil:
		s.cancel()
	case s.ctx.parent != nil:
		s.ctx.cancel()
	}
}
