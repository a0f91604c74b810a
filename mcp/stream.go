package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"github.com/toolexec/toolexec/internal/jsonwalk"
	"net/http"
	"strings"
	"sync"

	"github.com/toolexec/toolexec"
	"github.com/toolexec/toolexec/internal/httpjson"
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
type callStream struct {
	h    *handler
	w    http.ResponseWriter
	sse  bool // the client accepts text/event-stream
	meta callMeta

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
	case toolexec.InputElicitForm:
		c.elicitForm = true
	case toolexec.InputElicitURL:
		c.elicitURL = true
	case toolexec.InputSampling:
		c.sampling = true
	case toolexec.InputRoots:
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
	case toolexec.InputElicitForm:
		return c.elicitForm
	case toolexec.InputElicitURL:
		return c.elicitURL
	case toolexec.InputSampling:
		return c.sampling
	case toolexec.InputRoots:
		return c.roots
	}
	return false
}

// readStreamMeta sets the progress token and the log level from the _meta
// members as sent (nil when absent). A progress token that is neither a
// string nor a number, or a log level that is not one of MCP's eight, is
// invalid params.
func (m *callMeta) readStreamMeta(token, level []byte) *wireError {
	if token != nil && string(token) != "null" {
		if !validID(token) {
			return newError(CodeInvalidParams, "Invalid params: progressToken must be a string or a number")
		}
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

// legacyCallMeta reads the _meta of a 2025 tools/call (params is an object,
// or nil; callParams checked it): its progress token and log level.
// defaultLevel is the severity sent when _meta names no level (-1: none).
// The client's capabilities come from its session token (see
// capsFromSession), as 2025 versions declare them in initialize.
func legacyCallMeta(params []byte, defaultLevel int) (callMeta, *wireError) {
	m := callMeta{logLevel: defaultLevel}
	for it := jsonwalk.Members(params); it.Next(); {
		if !it.Is("_meta") || !isObject(it.Val) {
			continue
		}
		var token, level []byte
		for mt := jsonwalk.Members(it.Val); mt.Next(); {
			switch {
			case mt.Is("progressToken"):
				token = mt.Val
			case mt.Is(metaLogLevel):
				level = mt.Val
			}
		}
		return m, m.readStreamMeta(token, level)
	}
	return m, nil
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
	return s.notify("notifications/progress", params)
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
	return s.notify("notifications/message", params)
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

// notify sends one notification on the stream.
func (s *callStream) notify(method string, params any) error {
	data, err := encodeNotification(method, params)
	if err != nil {
		return err
	}
	return s.send(data, false)
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

// send writes data as one SSE event, starting the stream first if needed;
// last marks the call's response, after which nothing more is sent.
func (s *callStream) send(data []byte, last bool) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed || s.failed {
		return errStreamClosed
	}
	if last {
		s.closed = true
	}
	if !s.started {
		s.started = true
		if s.res != nil {
			s.res.start()
		}
		writeSSEHeader(s.w)
	}
	id := ""
	if s.res != nil {
		id = s.res.append(data) // so that a client may resume from it, here or elsewhere
		if s.gone {
			return nil // logged for the client to resume
		}
	}
	if err := writeEventWithID(s.w, id, data); err != nil {
		if s.res != nil {
			s.gone = true
			return nil
		}
		s.failed = true
		return errStreamClosed
	}
	return nil
}

// finish ends the call: when the stream has started, the response goes on it
// as its last event and finish reports true; otherwise it closes the stream
// to late messages (from goroutines the tool left running) and reports
// false, and the caller answers as it would have without a stream.
func (s *callStream) finish(data []byte) bool {
	s.mu.Lock()
	started := s.started
	if !started {
		s.closed = true
	}
	s.mu.Unlock()
	if !started {
		return false
	}
	_ = s.send(data, true)
	return true
}

// writeEvent writes one SSE event carrying a JSON-RPC message and flushes
// it to the client. The message is made valid UTF-8 first, as every body the
// handler writes; a line break inside it (raw JSON a tool returned may hold
// some between tokens) continues the event on another data line, which the
// client joins back with a line feed. A ResponseWriter that cannot flush (a
// host's middleware wrapping it without Flush or Unwrap) still gets every
// event, delivered when the response ends.
func writeEvent(w http.ResponseWriter, data []byte) error { return writeEventWithID(w, "", data) }

// writeEventWithID writes an SSE event as writeEvent does, with id as its
// event id when not "" (resumable streams: resume.go).
func writeEventWithID(w http.ResponseWriter, id string, data []byte) error {
	data = httpjson.ValidUTF8(data)
	buf := make([]byte, 0, len(data)+len(id)+28)
	if id != "" {
		buf = append(buf, "id: "...)
		buf = append(buf, id...)
		buf = append(buf, '\n')
	}
	buf = append(buf, "event: message\ndata: "...)
	for _, c := range data {
		switch c {
		case '\r':
			// dropped: a carriage return is JSON white space only
		case '\n':
			buf = append(buf, "\ndata: "...)
		default:
			buf = append(buf, c)
		}
	}
	buf = append(buf, '\n', '\n')
	if _, err := w.Write(buf); err != nil {
		return err
	}
	if err := http.NewResponseController(w).Flush(); err != nil && !errors.Is(err, http.ErrNotSupported) {
		return err
	}
	return nil
}
