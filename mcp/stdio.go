package mcp

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sync"
	"time"

	"github.com/toolexec/toolexec"
	"github.com/toolexec/toolexec/internal/hostguard"
	"github.com/toolexec/toolexec/internal/jsonwalk"
)

// MCP's stdio transport: the client starts the server as a subprocess and
// writes JSON-RPC messages to its standard input, one a line; the server
// writes its messages to its standard output, one a line, and nothing else
// there. ServeStdio carries each message to the same handler NewHandler
// builds, as the POST a Streamable HTTP client would send, so that every
// version, method, limit and error is what it is over HTTP; what HTTP keeps
// in headers (the negotiated version and the session of 2025 versions, the
// request headers 2026-07-28 mirrors from the body) it supplies itself.

// StdioMaxInFlight is how many requests ServeStdio runs at once; a request
// read while that many are running waits for one of them to end, and
// stdin is not read meanwhile.
const StdioMaxInFlight = 64

// stdioDrainTimeout is how long ServeStdio lets the requests still running
// at the end of its input finish before it cancels them.
const stdioDrainTimeout = 5 * time.Second

// ServeStdio serves the MCP surface of x over the stdio transport: it reads
// newline-delimited JSON-RPC messages from in and writes each answer and
// notification to out as one line of compact JSON, until in ends or ctx is
// done. Nothing else is ever written to out; log lines go to x's logger.
// opts are those of NewHandler.
//
// Every protocol version NewHandler serves is served: on 2025 versions the
// client's initialize fixes the version and, when the handler hands one
// out, the session token for the messages after it (as an HTTP client
// repeats them in headers); at 2026-07-28 each request carries its own
// version in _meta, as the specification's stdio binding says. Requests
// run concurrently, at most StdioMaxInFlight at once, and their answers are
// written as they complete; a call's progress and log notifications, the
// input requests of 2025 versions and the notifications of a
// subscriptions/listen request are written as they happen. A
// notifications/cancelled naming a running request cancels it, and
// nothing more is written for it. When the Executor's provider reports
// tool changes (toolexec.ToolsChangedNotifier), a client that initialized
// at a 2025 version is told listChanged: true and gets
// notifications/tools/list_changed after every change; at 2026-07-28
// subscriptions/listen delivers them.
//
// A line longer than the Executor's body limit (toolexec.WithMaxBodyBytes,
// 1 MiB by default) is skipped without being held in memory and answered
// with a JSON-RPC error with a null id. The auth hook, if x has one, sees
// requests without credentials: a process reached over stdio is its
// client's own, so serve stdio with an Executor whose hook admits such
// requests, or without one.
//
// At the end of in, requests still running have a few seconds to finish
// (subscriptions/listen streams end at once), then are cancelled, and
// ServeStdio returns nil. When ctx is done it cancels every request and
// returns ctx's error without waiting for a Read on in that blocks (the
// goroutine reading in ends when that Read returns). It returns the error
// of a failed read of in or write to out.
func ServeStdio(ctx context.Context, x *toolexec.Executor, in io.Reader, out io.Writer, opts ...Option) error {
	h, ok := NewHandler(x, opts...).(*handler)
	if !ok {
		return errors.New("mcp: ServeStdio: unexpected handler")
	}
	// The DNS-rebinding defense checks the Host and Origin headers a
	// browser sends; nothing reaches a process's standard input through a
	// browser, and the messages carry no such headers to check.
	h.guard = hostguard.Guard{}
	h.guard.Disable()
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	s := &stdioServer{
		h:       h,
		out:     &lineWriter{w: out, fail: cancel},
		ctx:     ctx,
		running: map[string]*stdioCall{},
		slots:   make(chan struct{}, StdioMaxInFlight),
	}
	defer s.stopNotifying()
	lines := make(chan stdioLine)
	go readLines(ctx, in, int(x.SurfaceKit().MaxBodyBytes()), lines)
	for {
		select {
		case <-ctx.Done():
			s.cancelAll()
			s.wg.Wait()
			return s.exitError(ctx)
		case l := <-lines:
			switch {
			case l.err == io.EOF:
				s.drain()
				return s.exitError(ctx)
			case l.err != nil:
				s.cancelAll()
				s.wg.Wait()
				return fmt.Errorf("mcp: reading stdio: %w", l.err)
			case l.tooLong:
				s.out.writeMessage(encodeError(nil, newError(CodeRequestRejected,
					"Request Entity Too Large: a message holds at most %d bytes", x.SurfaceKit().MaxBodyBytes())))
			default:
				s.handle(l.data)
			}
		}
	}
}

// stdioServer is one ServeStdio run.
type stdioServer struct {
	h   *handler
	out *lineWriter
	ctx context.Context
	wg  sync.WaitGroup

	// slots holds a token per request running (StdioMaxInFlight).
	slots chan struct{}

	mu sync.Mutex
	// version and session are what a 2025 initialize settled: the
	// negotiated version and the Mcp-Session-Id the handler issued.
	version, session string
	// running are the requests running, by their id as sent.
	running map[string]*stdioCall
	// stopChanges ends the tool change subscription (nil: none).
	stopChanges func()
}

// stdioCall is one request running.
type stdioCall struct {
	cancel context.CancelFunc
	// listen: a subscriptions/listen request, which ends only when
	// cancelled.
	listen bool
	mu     sync.Mutex
	// cancelled: the client cancelled it; nothing more is written for it.
	cancelled bool
}

// exitError is what ServeStdio returns once its requests are done: the
// error of a failed write, or ctx's own error when ctx ended the run.
func (s *stdioServer) exitError(ctx context.Context) error {
	if err := s.out.failed(); err != nil {
		return err
	}
	if cause := context.Cause(ctx); cause != nil && ctx.Err() != nil {
		return cause
	}
	return nil
}

// handle serves one line.
func (s *stdioServer) handle(line []byte) {
	if !jsonwalk.Valid(line) || line[0] != '{' {
		// Not a message: the handler says what is wrong with it (a parse
		// error, or a batch the version does not allow).
		s.start(line, nil, nil, false)
		return
	}
	env := readStdioEnvelope(line)
	switch {
	case env.method == "notifications/cancelled" && env.id == nil:
		s.cancelRequest(env.params)
	case env.method == "" || env.id == nil:
		// A client's answer to an input request, or a notification: the
		// handler takes it at once, and answers nothing.
		s.serve(context.WithoutCancel(s.ctx), line, s.headers(&env), nil, false)
	default:
		s.start(line, &env, s.headers(&env), env.method == "subscriptions/listen")
	}
}

// start runs a request (or anything the handler must answer) in its own
// goroutine, once a slot is free.
func (s *stdioServer) start(line []byte, env *stdioEnvelope, hdr http.Header, listen bool) {
	select {
	case s.slots <- struct{}{}:
	case <-s.ctx.Done():
		return
	}
	ctx, cancel := context.WithCancel(s.ctx)
	c := &stdioCall{cancel: cancel, listen: listen}
	key := ""
	if env != nil && env.id != nil {
		key = string(env.id)
		s.mu.Lock()
		if _, dup := s.running[key]; dup {
			key = "" // ids must be unique while running; this one cannot be cancelled
		} else {
			s.running[key] = c
		}
		s.mu.Unlock()
	}
	if hdr == nil {
		hdr = s.headers(&stdioEnvelope{})
	}
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		defer func() { <-s.slots }()
		defer cancel()
		if key != "" {
			defer func() {
				s.mu.Lock()
				delete(s.running, key)
				s.mu.Unlock()
			}()
		}
		s.serve(ctx, line, hdr, c, env != nil && env.method == "initialize")
	}()
}

// serve passes one message to the handler as the POST an HTTP client would
// send, and writes what it answers. c is the request's entry (nil for a
// message that is not a request); initialize says the message is an
// initialize request, whose answer settles the session.
func (s *stdioServer) serve(ctx context.Context, line []byte, hdr http.Header, c *stdioCall, initialize bool) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, "http://localhost/mcp", bytes.NewReader(line))
	if err != nil {
		return
	}
	req.Header = hdr
	req.RemoteAddr = stdioRemoteAddr
	rw := &stdioResponse{s: s, call: c, header: http.Header{}, initialize: initialize}
	s.h.ServeHTTP(rw, req)
	rw.finish(line)
}

// stdioRemoteAddr is the RemoteAddr of the requests a stdio message
// becomes: it tells them from HTTP requests (a stdio stream has no
// connection to lose, so it is not resumable: resume.go).
const stdioRemoteAddr = "stdio"

// headers are the request headers an HTTP client would send with the
// message: the version it speaks, and at 2025 versions the session
// initialize settled, or at 2026-07-28 the headers mirrored from the body.
func (s *stdioServer) headers(env *stdioEnvelope) http.Header {
	hdr := http.Header{}
	hdr.Set("Content-Type", "application/json")
	hdr.Set("Accept", "application/json, text/event-stream")
	if v := env.metaVersion; v != "" && !legacy(v) {
		hdr.Set(protocolVersionKey, v)
		hdr.Set(methodHeader, env.method)
		if env.method == "tools/call" {
			s.mirrorCall(hdr, env)
		} else if id := taskNameOf(env.method, env.params); id != "" {
			hdr.Set(nameHeader, headerSentinel(id)) // the tasks extension (tasks_2026_07_28.go)
		}
		return hdr
	}
	if env.method == "initialize" {
		return hdr
	}
	s.mu.Lock()
	version, session := s.version, s.session
	s.mu.Unlock()
	if version != "" {
		hdr.Set(protocolVersionKey, version)
	}
	if session != "" {
		hdr.Set(sessionHeaderKey, session)
	}
	return hdr
}

// mirrorCall sets the headers 2026-07-28's Streamable HTTP mirrors from a
// tools/call's body: Mcp-Name, and Mcp-Param-* for each argument the
// tool's schema declares with x-mcp-header. The stdio binding has no
// header layer, so there is nothing they could disagree with.
func (s *stdioServer) mirrorCall(hdr http.Header, env *stdioEnvelope) {
	if env.name == "" {
		return
	}
	hdr.Set(nameHeader, headerSentinel(env.name))
	t, ok := s.h.x.Lookup(env.name, "")
	if !ok {
		return
	}
	params := headerParams(t.InputSchema)
	if len(params) == 0 || len(env.arguments) == 0 || env.arguments[0] != '{' {
		return
	}
	var values map[string]any
	dec := json.NewDecoder(bytes.NewReader(env.arguments))
	dec.UseNumber()
	if dec.Decode(&values) != nil {
		return
	}
	for _, p := range params {
		v, ok := lookupPath(values, p.path)
		if !ok || v == nil {
			continue
		}
		switch v := v.(type) {
		case string:
			hdr.Set(p.header, headerSentinel(v))
		case bool, json.Number:
			hdr.Set(p.header, headerSentinel(fmt.Sprint(v)))
		}
	}
}

// headerSentinel is a header value in the Base64 form decodeHeaderValue
// reads, which holds any string.
func headerSentinel(v string) string {
	return "=?base64?" + base64.StdEncoding.EncodeToString([]byte(v)) + "?="
}

// cancelRequest cancels the running request a notifications/cancelled
// names; nothing more is written for it. An unknown id is ignored, as the
// specification asks.
func (s *stdioServer) cancelRequest(params []byte) {
	if len(params) == 0 || params[0] != '{' {
		return
	}
	var id []byte
	for it := jsonwalk.Members(params); it.Next(); {
		if it.Is("requestId") {
			id = it.Val
		}
	}
	if id == nil {
		return
	}
	s.mu.Lock()
	c := s.running[string(id)]
	s.mu.Unlock()
	if c == nil {
		return
	}
	c.mu.Lock()
	c.cancelled = true
	c.mu.Unlock()
	c.cancel()
}

// cancelAll cancels every running request.
func (s *stdioServer) cancelAll() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, c := range s.running {
		c.cancel()
	}
}

// drain waits for the requests still running at the end of the input: it
// ends subscriptions/listen streams at once, and cancels the others after
// stdioDrainTimeout.
func (s *stdioServer) drain() {
	s.stopNotifying()
	s.mu.Lock()
	for _, c := range s.running {
		if c.listen {
			c.cancel()
		}
	}
	s.mu.Unlock()
	done := make(chan struct{})
	go func() {
		s.wg.Wait()
		close(done)
	}()
	timer := time.NewTimer(stdioDrainTimeout)
	defer timer.Stop()
	select {
	case <-done:
	case <-timer.C:
		s.cancelAll()
		<-done
	case <-s.ctx.Done():
		s.cancelAll()
		<-done
	}
}

// initialized records what a successful 2025 initialize settled, and
// subscribes the client to tool changes when the provider reports them. It
// returns the answer to write, with tools.listChanged true in that case.
func (s *stdioServer) initialized(answer []byte, session string) []byte {
	var resp struct {
		Result *struct {
			ProtocolVersion string `json:"protocolVersion"`
		} `json:"result"`
	}
	if json.Unmarshal(answer, &resp) != nil || resp.Result == nil || !legacy(resp.Result.ProtocolVersion) {
		return answer
	}
	s.mu.Lock()
	s.version, s.session = resp.Result.ProtocolVersion, session
	s.mu.Unlock()
	if !s.h.x.SurfaceKit().NotifiesToolsChanged() {
		return answer
	}
	s.notifyChanges()
	if patched, ok := withListChanged(answer); ok {
		return patched
	}
	return answer
}

// notifyChanges starts writing notifications/tools/list_changed after
// every change of the provider's tools (once per run). Changes that come
// faster than they are written are coalesced into one notification.
func (s *stdioServer) notifyChanges() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.stopChanges != nil {
		return
	}
	changed := make(chan struct{}, 1)
	stop := s.h.x.SurfaceKit().OnToolsChanged(func() {
		select {
		case changed <- struct{}{}:
		default:
		}
	})
	done := make(chan struct{})
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		for {
			select {
			case <-changed:
				s.out.writeMessage([]byte(`{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}`))
			case <-done:
				return
			case <-s.ctx.Done():
				return
			}
		}
	}()
	var once sync.Once
	s.stopChanges = func() {
		once.Do(func() {
			stop()
			close(done)
		})
	}
}

// stopNotifying ends the tool change subscription, if any.
func (s *stdioServer) stopNotifying() {
	s.mu.Lock()
	stop := s.stopChanges
	s.mu.Unlock()
	if stop != nil {
		stop()
	}
}

// withListChanged returns an initialize answer with
// result.capabilities.tools.listChanged set to true.
func withListChanged(answer []byte) ([]byte, bool) {
	var resp map[string]json.RawMessage
	if json.Unmarshal(answer, &resp) != nil {
		return nil, false
	}
	var result map[string]json.RawMessage
	if json.Unmarshal(resp["result"], &result) != nil {
		return nil, false
	}
	var caps map[string]json.RawMessage
	if json.Unmarshal(result["capabilities"], &caps) != nil || caps == nil {
		return nil, false
	}
	var tools map[string]json.RawMessage
	if raw, ok := caps["tools"]; ok && json.Unmarshal(raw, &tools) != nil {
		return nil, false
	}
	if tools == nil {
		tools = map[string]json.RawMessage{}
	}
	tools["listChanged"] = json.RawMessage("true")
	var err error
	if caps["tools"], err = json.Marshal(tools); err != nil {
		return nil, false
	}
	if result["capabilities"], err = json.Marshal(caps); err != nil {
		return nil, false
	}
	if resp["result"], err = json.Marshal(result); err != nil {
		return nil, false
	}
	out, err := json.Marshal(resp)
	return out, err == nil
}
