package mcp

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/toolexec/toolexec"
	"github.com/toolexec/toolexec/internal/caller"
	"github.com/toolexec/toolexec/internal/httpjson"
)

// DefaultResumeWindow is how long a 2025 client that lost a call's stream
// has to resume it, unless WithResumeWindow says otherwise.
const DefaultResumeWindow = 30 * time.Second

// Resumable streams (MCP 2025-03-26 to 2025-11-25, "Resumability and
// Redelivery"): every event of a 2025 tools/call's SSE stream carries an
// id and is appended to an event log in the Executor's store, kept for the
// resume window after its last event. A client that lost the connection
// sends GET with Last-Event-ID to any replica sharing the store, which
// replays what followed that event and follows the log until the call's
// response. The call itself does not end when its client goes away: it
// runs on, for as long as a client reads its stream somewhere or, when
// none does, for the resume window, and is cancelled then.
//
// A stream's log opens with a header event (never sent to clients) naming
// the call's request id and its caller; only that caller resumes it, and a
// stream id is 128 random bits besides. The replica running the call
// appends a keep-alive event every third of the window, so a reader
// elsewhere tells a call that is quiet from one whose replica died (no
// event for half the window, well before the log expires a whole window
// after its last event; or the log gone), which it answers with a
// JSON-RPC error so the client is not left waiting.
//
// A response the log could not take when the call ended (the store did
// not answer) is appended once the store answers again, within the
// window, so that a client resuming then reads the call's end at once
// rather than waiting for events that will never come.
//
// MCP 2026-07-28 removed resumption: its streams carry no ids, and GET is
// answered 405 there as before.

// MaxResumableBytes is how much of a stream's messages its log keeps for
// a client to resume from: 4 MiB. Past it the stream goes on, without
// event ids, and can no longer be resumed; when its client goes away the
// call ends, as it does without resumption.
const MaxResumableBytes = 4 << 20

// streamIDPrefix starts a stream id: the prefix, the replica's id, "-",
// and 128 random bits in hex.
const streamIDPrefix = "s-"

// eventIDSep separates a stream id from an event's id in the log within an
// SSE event id.
const eventIDSep = "_"

// streamLog is the event log of a stream.
func streamLog(id string) string { return "mcp:stream:" + id }

// Events of the log that are no messages begin with a zero byte: the
// header, and keep-alives.
const (
	headerEvent    = "\x00h"
	keepAliveEvent = "\x00k"
)

// streamHeader is the header event's content.
type streamHeader struct {
	RequestID json.RawMessage `json:"id"`
	Principal string          `json:"p,omitempty"`
}

// resumable is the resumable side of one 2025 call's stream.
type resumable struct {
	h         *handler
	requestID json.RawMessage
	call      *callCtx // the call's context (callStream.ctx)

	mu        sync.Mutex
	id        string // set when the stream starts
	principal string // the caller, bound before the first event
	owner     string // whose share of the store's logs the stream's log counts in (logOwner)
	bound     bool
	headerOK  bool        // the header reached the log: the stream can be resumed from it
	logOK     bool        // the header reached the log, and every event since
	endLogged bool        // the call's response reached the log
	endLate   bool        // the response is being offered to the log again (ended)
	logged    int         // bytes of messages logged (MaxResumableBytes)
	keepAlive *time.Timer // appends keep-alives while the stream is open
	orphaned  *time.Timer // runs while no client reads the stream; cancels the call when it fires
	done      bool
}

// openResumable makes s's stream resumable, and returns the context the
// call runs in (s.ctx): the request's, ctx, except that the client going
// away does not end it once the stream has started (see clientGone). It
// costs nothing more until the call asks for its context's Done channel
// or the stream starts (see callCtx).
func (h *handler) openResumable(ctx context.Context, s *callStream, requestID json.RawMessage) context.Context {
	s.res = &s.resState
	s.res.h, s.res.requestID, s.res.call = h, requestID, &s.ctx
	s.ctx.init(ctx, s)
	return &s.ctx
}

// valuesOnly is a callCtx seen as a context with its parent's values and
// none of its cancellation, as context.WithoutCancel makes one, so that it
// costs the call no allocation of its own: the parent of a detached
// callCtx's live context.
type valuesOnly callCtx

func (*valuesOnly) Deadline() (time.Time, bool) { return time.Time{}, false }
func (*valuesOnly) Done() <-chan struct{}       { return nil }
func (*valuesOnly) Err() error                  { return nil }
func (v *valuesOnly) Value(key any) any         { return v.parent.Value(key) }

// bind records the caller of a stream from the call's context (after the
// auth hook), before its first event.
func (r *resumable) bind(ctx context.Context) {
	if r == nil {
		return
	}
	r.mu.Lock()
	if !r.bound {
		r.bound, r.principal = true, callerPrincipal(ctx)
		r.owner = r.h.logOwner(ctx)
	}
	r.mu.Unlock()
}

// start opens the stream's log; the callStream's lock is held.
func (r *resumable) start() {
	var b [16]byte
	_, _ = rand.Read(b[:])
	id := streamIDPrefix + r.h.relay.id + "-" + hex.EncodeToString(b[:])
	r.mu.Lock()
	r.id = id
	principal := r.principal
	r.mu.Unlock()
	hdr, _ := json.Marshal(streamHeader{RequestID: r.requestID, Principal: principal})
	_, err := r.h.appendEvent(r.owner, id, append([]byte(headerEvent), hdr...))
	r.mu.Lock()
	defer r.mu.Unlock()
	r.logOK, r.headerOK = err == nil, err == nil
	if r.done || !r.logOK {
		return
	}
	r.h.resumes.add(id, r)
	r.keepAlive = time.AfterFunc(r.h.resumeWindow/3, r.keepAliveTick)
	go r.h.relay.ensure(context.Background()) // so that readers elsewhere can say they are attached
}

// append logs an event and returns its SSE id, "" when it was not logged:
// the store could not be reached, or the stream is past MaxResumableBytes.
// From the first event not logged on, the stream cannot be resumed (a
// client resuming from an earlier event would miss it), and nothing more
// is logged. The callStream's lock is held.
func (r *resumable) append(data []byte) string {
	r.mu.Lock()
	id, owner, ok := r.id, r.owner, r.logOK && r.logged+len(data) <= MaxResumableBytes
	r.logged += len(data)
	r.logOK = ok
	r.mu.Unlock()
	if !ok {
		return ""
	}
	eid, err := r.h.appendEvent(owner, id, data)
	if err != nil {
		r.mu.Lock()
		r.logOK = false
		r.mu.Unlock()
		return ""
	}
	return id + eventIDSep + eid
}

// ended notes that the call's response, data, was sent on the stream,
// logged reporting whether the log took it. A response the log did not
// take, of a stream a client may resume (its header was logged), is
// appended once the store answers again, trying for the resume window:
// a client that resumes the stream, here or elsewhere, then reads the
// call's end, even after events it will not see (those the store did not
// take meanwhile).
func (r *resumable) ended(data []byte, logged bool) {
	r.mu.Lock()
	r.endLogged = r.endLogged || logged
	id, owner, late := r.id, r.owner, r.headerOK && !r.endLogged && !r.endLate
	r.endLate = r.endLate || late
	r.mu.Unlock()
	if !late {
		return
	}
	go func() {
		deadline := time.Now().Add(r.h.resumeWindow)
		for time.Now().Before(deadline) {
			if _, err := r.h.appendEvent(owner, id, data); err == nil {
				return
			}
			time.Sleep(lateEndRetry)
		}
	}()
}

// lateEndRetry is how often a response the log did not take is offered to
// it again.
const lateEndRetry = 500 * time.Millisecond

// keepAliveTick appends a keep-alive, which also keeps the log.
func (r *resumable) keepAliveTick() {
	r.mu.Lock()
	id, owner, done := r.id, r.owner, r.done
	r.mu.Unlock()
	if done {
		return
	}
	_, _ = r.h.appendEvent(owner, id, []byte(keepAliveEvent))
	r.mu.Lock()
	if !r.done {
		r.keepAlive.Reset(r.h.resumeWindow / 3)
	}
	r.mu.Unlock()
}

// detach starts the wait for a client to resume the stream.
func (r *resumable) detach() {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.done || r.orphaned != nil {
		return
	}
	r.orphaned = time.AfterFunc(r.h.resumeWindow, r.call.cancel)
}

// attached hears that a client reads the stream (on any replica): the wait
// starts over.
func (r *resumable) attached() {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.orphaned != nil && !r.done {
		r.orphaned.Reset(r.h.resumeWindow)
	}
}

// finish ends the stream's resumable side, once the call has ended.
func (r *resumable) finish() {
	r.call.stopWatch()
	r.mu.Lock()
	r.done = true
	id := r.id
	for _, t := range []*time.Timer{r.keepAlive, r.orphaned} {
		if t != nil {
			t.Stop()
		}
	}
	r.mu.Unlock()
	if id != "" {
		r.h.resumes.remove(id)
	}
	r.call.cancel()
}

// clientGone runs when the request's context ends. Before the stream has
// started there is nothing to resume, and the call is cancelled, as any
// call whose client goes away, and so it is when the stream cannot be
// resumed; otherwise the call runs on while a client may resume its
// stream.
func (s *callStream) clientGone() {
	s.mu.Lock()
	started := s.started
	s.gone = true
	s.mu.Unlock()
	if !started || !s.res.resumable() {
		s.ctx.cancel()
		return
	}
	s.res.detach()
}

// resumable reports whether every event so far was logged, so that a
// client may resume the stream.
func (r *resumable) resumable() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.logOK
}

// resumeRegistry finds the resumable streams this handler's calls hold.
type resumeRegistry struct {
	mu sync.Mutex
	m  map[string]*resumable
}

func (g *resumeRegistry) add(id string, r *resumable) {
	g.mu.Lock()
	if g.m == nil {
		g.m = make(map[string]*resumable)
	}
	g.m[id] = r
	g.mu.Unlock()
}

func (g *resumeRegistry) remove(id string) {
	g.mu.Lock()
	delete(g.m, id)
	g.mu.Unlock()
}

// attached hears, through the relay, that a client reads stream.
func (g *resumeRegistry) attached(stream string) {
	g.mu.Lock()
	r := g.m[stream]
	g.mu.Unlock()
	if r != nil {
		r.attached()
	}
}

// appendEvent appends to a stream's log, bounded by keyOpTimeout. The log
// is owner's (logOwner) when the store keeps owners
// (toolexec.OwnedEventLog), so that its bounds fall on the caller holding
// the most logs: one caller's flood of streams drops its own logs, not
// another caller's.
func (h *handler) appendEvent(owner, stream string, data []byte) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), keyOpTimeout)
	defer cancel()
	if owned, ok := h.store.(toolexec.OwnedEventLog); ok {
		return owned.AppendOwnedEvent(ctx, owner, streamLog(stream), data, h.resumeWindow)
	}
	return h.store.AppendEvent(ctx, streamLog(stream), data, h.resumeWindow)
}

// logOwner names whose share of the store's logs a call's stream log
// counts in, as rate limits and listen streams count callers: a digest of
// the identity the auth hook established, else of the network the call
// came from (toolexec.WithIPv6CallerPrefix). Credentials without an
// identity do not name a share, since a caller could send new ones with
// each call to take a fresh share each time.
func (h *handler) logOwner(ctx context.Context) string {
	id, _ := toolexec.IdentityFromContext(ctx)
	addr := ""
	if call := toolexec.CallFromContext(ctx); call != nil && call.Request != nil {
		addr = h.x.SurfaceKit().CallerAddress(call.Request)
	}
	return caller.Share(id, addr)
}

// resumeBatch is how many events a resumed stream reads at a time.
const resumeBatch = 256

// resume answers GET with Last-Event-ID (2025 versions): the events of the
// stream that followed the one named, then the rest as the call sends
// them, ending with the call's response. It answers 404 for a stream it
// does not know, that has expired, or that another caller started, and
// for an event the log no longer holds. The auth hook admits the request
// as it admits a call, a resumed stream counts against WithListenLimits
// as a listen stream does, and every write has a deadline (sseWriter).
func (h *handler) resume(w http.ResponseWriter, r *http.Request) {
	if v := header(r.Header, protocolVersionKey); v != "" && !legacy(v) {
		h.methodNotAllowed(w, false, http.MethodPost) // 2026-07-28 resumes nothing
		return
	}
	if !acceptsEventStream(r) {
		h.reject(w, false, http.StatusNotAcceptable, "Not Acceptable: a resumed stream is an event stream: the client must accept text/event-stream")
		return
	}
	stream, after, ok := strings.Cut(r.Header.Get("Last-Event-ID"), eventIDSep)
	owner, named := replicaOf(stream, streamIDPrefix)
	if !ok || !named || after == "" || len(stream) != len(streamIDPrefix)+16+1+32 {
		h.noStream(w)
		return
	}
	passed, err := h.x.SurfaceKit().Authenticate(r)
	if err != nil {
		out := refusedOutcome(nil, asError(err))
		writeRefusal(w, &out)
		return
	}
	ctx := r.Context()
	log := streamLog(stream)
	hdr, err := h.streamHeader(ctx, log)
	if err != nil {
		h.storeDown(w, err)
		return
	}
	if hdr == nil || hdr.Principal != requestPrincipal(passed.Context(), passed) {
		h.noStream(w)
		return
	}
	release, refused := h.admitListener(passed, &message{})
	if release == nil {
		h.writeOutcome(w, formatJSON, &refused)
		return
	}
	defer release()
	notified := make(chan struct{}, 1)
	wctx, cancel := context.WithTimeout(ctx, keyOpTimeout)
	stop, err := h.store.WatchEvents(wctx, log, func() {
		select {
		case notified <- struct{}{}:
		default:
		}
	})
	cancel()
	if err != nil {
		h.storeDown(w, err)
		return
	}
	defer stop()
	evs, found, err := h.readEvents(ctx, log, after)
	if err != nil {
		h.storeDown(w, err)
		return
	}
	if !found {
		h.noStream(w)
		return
	}
	writeSSEHeader(w)
	out := sseWriter{w: w, timeout: h.writeTimeout}
	defer out.end()
	if out.write(nil, out.ceiling()) != nil { // the client learns at once that the stream resumes
		return
	}
	h.relay.send(ctx, owner, &relayMsg{Kind: "attach", Stream: stream})
	lastNew, lastAttach := time.Now(), time.Now()
	tick := time.NewTicker(h.resumeWindow / 10)
	defer tick.Stop()
	for {
		for _, ev := range evs {
			after = ev.ID
			if len(ev.Data) > 0 && ev.Data[0] == 0 {
				continue // the header, a keep-alive
			}
			if out.eventWithID(stream+eventIDSep+ev.ID, ev.Data, out.ceiling()) != nil {
				return // the client went away, or stopped reading
			}
			if isResponse(ev.Data) {
				return // the call's response: the stream is complete
			}
		}
		if len(evs) > 0 {
			lastNew = time.Now()
		}
		if len(evs) < resumeBatch {
			select {
			case <-ctx.Done():
				return
			case <-notified:
			case <-tick.C:
				if time.Since(lastAttach) >= h.resumeWindow/3 {
					h.relay.send(ctx, owner, &relayMsg{Kind: "attach", Stream: stream})
					lastAttach = time.Now()
				}
				if time.Since(lastNew) > h.resumeWindow/2 {
					// No event, not even a keep-alive (one every third of
					// the window), for half the window: the replica running
					// the call is gone. Said well before the log expires, a
					// window after its last event.
					callLost(&out, hdr)
					return
				}
			}
		}
		if evs, found, err = h.readEvents(ctx, log, after); err != nil {
			return // the log cannot be read: the client may try again
		}
		if !found {
			// The log no longer holds the event last sent: it expired, kept
			// by no replica (the one running the call stopped), or was
			// trimmed past it (the client may try again from an event the
			// log holds).
			if rest, err := h.streamHeader(ctx, log); err == nil && rest == nil {
				callLost(&out, hdr)
			}
			return
		}
	}
}

// callLost ends a resumed stream whose call's replica stopped before it
// answered with a JSON-RPC error saying so, so that the client is not
// left waiting.
func callLost(out *sseWriter, hdr *streamHeader) {
	_ = out.event(encodeError(hdr.RequestID, newError(CodeInternalError,
		"Internal error: the server running the call stopped before it answered")), out.ceiling())
}

// streamHeader reads a stream's header, nil when the log holds none.
func (h *handler) streamHeader(ctx context.Context, log string) (*streamHeader, error) {
	ctx, cancel := context.WithTimeout(ctx, keyOpTimeout)
	defer cancel()
	evs, _, err := h.store.ReadEvents(ctx, log, "", 1)
	if err != nil || len(evs) == 0 || !bytes.HasPrefix(evs[0].Data, []byte(headerEvent)) {
		return nil, err
	}
	var hdr streamHeader
	if json.Unmarshal(evs[0].Data[len(headerEvent):], &hdr) != nil {
		return nil, nil
	}
	return &hdr, nil
}

func (h *handler) readEvents(ctx context.Context, log, after string) ([]toolexec.Event, bool, error) {
	ctx, cancel := context.WithTimeout(ctx, keyOpTimeout)
	defer cancel()
	return h.store.ReadEvents(ctx, log, after, resumeBatch)
}

// isResponse reports whether a logged message is a JSON-RPC response (it
// has no method), which ends a call's stream.
func isResponse(data []byte) bool {
	var m struct {
		Method *string `json:"method"`
	}
	return json.Unmarshal(data, &m) == nil && m.Method == nil
}

// noStream answers a GET whose Last-Event-ID names nothing to resume.
func (h *handler) noStream(w http.ResponseWriter) {
	httpjson.Write(w, http.StatusNotFound, errorResponse(nil, newError(CodeRequestRejected,
		"Not Found: no stream to resume for this Last-Event-ID (unknown, expired, or another caller's)")))
}

// storeDown answers a GET the store could not serve.
func (h *handler) storeDown(w http.ResponseWriter, err error) {
	h.x.SurfaceKit().Logger().Warn("mcp: a stream could not be resumed: the shared store cannot be reached", "error", err)
	w.Header().Set("Retry-After", "1")
	httpjson.Write(w, http.StatusServiceUnavailable, errorResponse(nil, newError(CodeRequestRejected,
		"Service Unavailable: the stream cannot be read now")))
}
