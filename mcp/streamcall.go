package mcp

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"github.com/toolexec/toolexec/internal/jsonwalk"
	"net/http"
	"strings"
	"time"

	"github.com/toolexec/toolexec"
	"github.com/toolexec/toolexec/internal/streamquota"
)

// streaming is the handler's configuration for streamed calls, input
// requests and listen streams (see WithLogLevel, WithInputStateKey,
// WithInputTimeout, WithStreamWriteTimeout, WithListenLimits).
type streaming struct {
	logLevel     toolexec.LogLevel // "" is info; "off": none
	defaultSev   int               // logLevel's severity; -1: none
	stateKey     []byte            // WithInputStateKey; nil: shared, rotated keys (keyring.go)
	inputTimeout time.Duration
	inputs       *inputRouter
	running      *inFlight     // calls notifications/cancelled can reach (cancel.go)
	writeTimeout time.Duration // WithStreamWriteTimeout: the ceiling of one write to an SSE stream

	// WithListenLimits, and the count of open subscriptions/listen
	// streams they bound (listen.go).
	maxListen, maxListenPerCaller int
	listens                       streamquota.Counter
}

// CodeMissingClientCapability (-32021, MCP 2026-07-28's
// MissingRequiredClientCapabilityError): a tools/call whose tool asked for
// input of a kind the request's clientCapabilities did not declare, and
// failed for want of it. Sent with HTTP 400 and
// error.data.requiredCapabilities naming what was missing. On 2025 versions
// the same call is an isError result instead.
const CodeMissingClientCapability = -32021

// DefaultInputTimeout is how long a call waits for the client's answer to
// an input request on 2025 versions, and how long a 2026-07-28
// requestState stays valid, unless WithInputTimeout says otherwise.
const DefaultInputTimeout = 10 * time.Minute

// initStreaming completes the configuration once the options have run.
func (h *handler) initStreaming() {
	switch h.logLevel {
	case "":
		h.defaultSev = toolexec.LogInfo.Severity()
	default:
		h.defaultSev = h.logLevel.Severity() // "off", or anything else: -1
	}
	if h.inputTimeout <= 0 {
		h.inputTimeout = DefaultInputTimeout
	}
	h.inputs = &inputRouter{timeout: h.inputTimeout, waiting: make(map[string]chan inputAnswer)}
	h.running = &inFlight{}
	if h.writeTimeout <= 0 {
		h.writeTimeout = DefaultStreamWriteTimeout
	}
	if h.maxListen <= 0 {
		h.maxListen = DefaultMaxListenStreams
	}
	if h.maxListenPerCaller <= 0 {
		h.maxListenPerCaller = DefaultMaxListenStreamsPerCaller
	}
	h.listens = h.listenCounter()
}

// listenCounter is what counts listen streams: in the process, or, when
// the Executor's store is shared (toolexec.WithStore), each caller's
// streams across the replicas sharing it (the total stays this
// replica's: it bounds this process's goroutines and memory).
func (h *handler) listenCounter() streamquota.Counter {
	kit := h.x.SurfaceKit()
	if !kit.StoreShared() {
		return streamquota.NewLocal(h.maxListen, h.maxListenPerCaller)
	}
	return streamquota.NewShared(streamquota.SharedConfig{
		Limits: kit.Store(), Total: h.maxListen, PerCaller: h.maxListenPerCaller,
		Prefix: listenSlotPrefix, LeaseTTL: kit.LeaseTTL(), OpTimeout: listenStoreTimeout,
		Logger: kit.Logger(), Name: "mcp: listen streams",
	})
}

// openStream prepares the Peer of a tools/call: the context the call runs
// in, and the stream, its Peer. meta is the _meta of a 2026-07-28 request,
// nil on 2025 versions. The stream is nil when nothing can stream and no
// input can be asked (a batch, or a 2025 client that does not accept
// text/event-stream): the call then runs exactly as it did before streaming
// existed, at no cost.
func (h *handler) openStream(ex *exchange, m *message, name string, args json.RawMessage, meta *requestMeta) (context.Context, *callStream, *wireError) {
	ctx := ex.r.Context()
	if ex.batch {
		return ctx, nil, nil
	}
	sse := ex.sse
	if meta == nil && !sse {
		return ctx, nil, nil
	}
	var cm callMeta
	var werr *wireError
	if meta != nil {
		cm, werr = modernCallMeta(m.params, meta)
	} else {
		cm, werr = legacyCallMeta(m.call.meta, h.defaultSev)
	}
	if werr != nil {
		return ctx, nil, werr
	}
	// The allocation streaming adds to a call (its 2026-07-28 input state
	// included), and only to a call that could stream; one that can write
	// to a stream adds the context its stream cancels when it fails.
	s := &callStream{h: h, r: ex.r, out: sseWriter{w: ex.w, timeout: h.writeTimeout}, sse: sse, meta: cm}
	if meta != nil {
		s.mrtr = &s.mrtrState
		if werr = h.openMRTR(s.mrtr, name, args, &s.meta); werr != nil {
			return ctx, nil, werr
		}
	} else {
		token := header(ex.r.Header, sessionHeaderKey)
		s.meta.caps = capsFromSession(token)
		if h.resumeWindow > 0 && s.writes() && ex.r.RemoteAddr != stdioRemoteAddr {
			// The stream can be resumed: the call runs in a context of its
			// own, which the client going away ends only when it does not
			// come back (resume.go), and which the stream's cancel ends.
			ctx = h.openResumable(ctx, s, m.id)
		}
		if strings.HasPrefix(token, sessionPrefix) {
			// A call notifications/cancelled can reach runs in a
			// context of its own already: the stream cancels that one.
			ctx, s.cancel, s.untrack = h.running.track(ctx, token, m.id)
			return ctx, s, nil
		}
	}
	if s.writes() && s.res == nil {
		s.ctx.init(ctx, nil)
		ctx = &s.ctx
	}
	return ctx, s, nil
}

// closeStream turns the call's outcome, *out, into its answer: an
// input-required result when a 2026-07-28 handler asked for input it did
// not have, and the last event of the SSE stream when the call streamed.
func (h *handler) closeStream(ex *exchange, m *message, name string, args json.RawMessage, s *callStream, out *outcome) {
	s.mu.Lock()
	missing := s.missing
	s.mu.Unlock()
	if s.mrtr != nil && out.inputUnsupported && missing != (clientCaps{}) {
		// 2026-07-28: a call that needs a capability the client did not
		// declare is refused with -32021, HTTP 400, naming it.
		e := newError(CodeMissingClientCapability, "Missing required client capability: the tool needs input the client did not declare it can give")
		e.Data = map[string]any{"requiredCapabilities": missing.wire()}
		out.data, out.status = encodeError(m.id, e), http.StatusBadRequest
	} else if s.mrtr != nil && s.mrtr.replayed() {
		// Another caller's requestState: whatever the handler made of the
		// refusal, the call is answered as an invalid one.
		out.data, out.status = encodeError(m.id, newError(CodeInvalidParams, "Invalid params: requestState is invalid, expired, or not for this request")), http.StatusBadRequest
	} else if s.mrtr != nil {
		if asked, _, _ := s.mrtr.pending(); len(asked) > 0 {
			res, err := h.inputRequired(name, args, s.mrtr)
			if err != nil {
				h.x.SurfaceKit().Logger().ErrorContext(ex.r.Context(), "mcp: input-required result could not be built", "error", err)
				out.data = encodeError(m.id, newError(CodeInternalError, "Internal error"))
			} else {
				out.data = h.encodeResult(ex.r, m.id, res)
			}
		}
	}
	if s.untrack != nil {
		s.untrack()
	}
	if s.finish(out.data) {
		out.streamed = true
	}
	if s.res != nil {
		s.res.finish()
	}
}

// The Mcp-Session-Id header of 2025 versions. The handler keeps no
// session; it uses the header to hand a client that declared input
// capabilities in initialize a self-describing token of them, which the
// client repeats on every request, so a later tools/call knows what the
// client may be asked without the server keeping anything. At 2025-03-26
// every initialize gets one (see rememberCapabilities).
const (
	sessionHeaderKey = "Mcp-Session-Id" // as the specification writes it, and canonical
	sessionPrefix    = "toolexec-caps-"
)

// rememberCapabilities sets the session token of an initialize request
// whose client declared elicitation or sampling (roots ride along), and of
// every initialize that negotiated version 2025-03-26.
func (h *handler) rememberCapabilities(ex *exchange, params []byte, version string) {
	var caps clientCaps
	for it := jsonwalk.Members(params); it.Next(); {
		if it.Is("capabilities") {
			caps = readCaps(it.Val)
		}
	}
	flags := ""
	for _, f := range []struct {
		on bool
		c  string
	}{{caps.elicitForm, "f"}, {caps.elicitURL, "u"}, {caps.sampling, "s"}, {caps.roots, "r"}} {
		if f.on {
			flags += f.c
		}
	}
	if !caps.elicitForm && !caps.elicitURL && !caps.sampling && version != version20250326 {
		// Roots alone earn no token: most clients declare roots whether or
		// not they are ever asked (the official Go SDK always does), and a
		// session id changes how a client behaves (it opens a GET stream,
		// it sends DELETE on close), so it is issued only when it serves.
		// At 2025-03-26, the revision that introduced the header, it
		// serves always: clients of that revision may refuse to go on
		// without one (mcp-toolbox's SDKs do).
		return
	}
	var nonce [16]byte
	_, _ = rand.Read(nonce[:])
	ex.w.Header().Set(sessionHeaderKey, sessionPrefix+flags+"-"+hex.EncodeToString(nonce[:]))
}

// capsFromSession reads the capabilities from a session token
// rememberCapabilities issued; anything else declares none. The token is
// not signed: a forged one can only make the server ask a client something
// it cannot answer, which fails that call and nothing else.
func capsFromSession(token string) clientCaps {
	var c clientCaps
	rest, ok := strings.CutPrefix(token, sessionPrefix)
	if !ok {
		return c
	}
	flags, _, _ := strings.Cut(rest, "-")
	c.elicitForm = strings.Contains(flags, "f")
	c.elicitURL = strings.Contains(flags, "u")
	c.sampling = strings.Contains(flags, "s")
	c.roots = strings.Contains(flags, "r")
	return c
}

// setLogLevel answers logging/setLevel (2025 versions): a valid level is
// acknowledged with {}. A stateless server cannot carry it to the client's
// later requests, each its own HTTP request with nothing tying them
// together; calls send log messages at the level their own _meta names, or
// at the handler's default level (WithLogLevel).
//
// 2026-07-28 removed the method: there it is not found (admitModern).
func (h *handler) setLogLevel(m *message) (any, *wireError) {
	level, werr := paramString(m.params, "level")
	if werr != nil {
		return nil, werr
	}
	if toolexec.LogLevel(level).Severity() < 0 {
		return nil, newError(CodeInvalidParams, "Invalid params: level must be one of debug, info, notice, warning, error, critical, alert, emergency")
	}
	return struct{}{}, nil
}

// writeSSEHeader starts an SSE response.
func writeSSEHeader(w http.ResponseWriter) {
	hdr := w.Header()
	hdr.Set("Content-Type", "text/event-stream")
	hdr.Set("Cache-Control", "no-cache")
	hdr.Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
}
