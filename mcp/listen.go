package mcp

import (
	"crypto/sha256"
	"encoding/json"
	"errors"
	"net/http"
	"os"
	"time"

	"github.com/toolexec/toolexec"
	"github.com/toolexec/toolexec/internal/jsonwalk"
	"github.com/toolexec/toolexec/internal/streamquota"
)

// listenKeepAlive is how often a quiet subscriptions/listen stream carries
// an SSE comment, so that proxies and clients do not close it as idle.
const listenKeepAlive = 25 * time.Second

// listenRetryAfter is the wait a listen request refused by WithListenLimits
// is told to wait before trying again.
const listenRetryAfter = 5 * time.Second

// listenSlotPrefix starts the store key of a caller's listen streams,
// counted across replicas sharing the Executor's store; the rest of the
// key is a digest of the caller (streamquota.Shared).
const listenSlotPrefix = "listen:"

// listenStoreTimeout bounds each store operation that counts a caller's
// listen streams across replicas, as the pipeline's limits are bounded: a
// store that does not answer in time has the caller counted in the
// process instead.
const listenStoreTimeout = 2 * time.Second

// maxSubscriptionIDBytes bounds the id of a subscriptions/listen request,
// as sent: every notification of its stream repeats it.
const maxSubscriptionIDBytes = 256

// listen answers subscriptions/listen (2026-07-28): an SSE stream that
// opens with notifications/subscriptions/acknowledged, naming the
// notifications the server agreed to send, then carries
// notifications/tools/list_changed each time the list of tools its caller
// is shown changes, and notifications/tasks each time a task it asked for
// (notifications.taskIds, the tasks extension: tasks_listen.go) changes,
// until the client closes it. toolsListChanged is honoured only when the
// Executor's provider reports changes
// (toolexec.SurfaceKit.NotifiesToolsChanged), and taskIds only for tasks of
// the caller's, from a client that declares the tasks extension: the
// handler serves no prompts or resources. Changes that come faster than the client reads are
// coalesced into one notification.
//
// A stream holds a connection and memory for as long as the client
// wants, so opening one takes what a call takes: the Executor's auth hook
// admits it (a refusal is answered as a refused tools/call is), and
// WithListenLimits bounds how many are open, per caller and in all. The
// caller is told of a change only when the tools it may see changed
// (toolexec.WithToolFilter), so a stream reveals nothing of tools hidden
// from it. Every write has a deadline (see sseWriter): a client that stops
// reading is dropped.
//
// The method is 2026-07-28's (answerModern, which checked the headers
// and _meta): on earlier versions it is not found.
func (h *handler) listen(ex *exchange, m *message, meta *requestMeta) outcome {
	if len(m.id) > maxSubscriptionIDBytes {
		return failWith(m.id, http.StatusBadRequest, newError(CodeInvalidRequest,
			"Invalid Request: a subscriptions/listen id is repeated in every notification and must be at most %d bytes of JSON", maxSubscriptionIDBytes))
	}
	if ex.r.Context().Done() == nil {
		// A context that can never end (a hand-made request, not one a
		// server received) would hold the stream open forever.
		return outcome{data: encodeError(m.id, newError(CodeInternalError, "Internal error: the request cannot be cancelled"))}
	}
	if !acceptsEventStream(ex.r) {
		return outcome{data: encodeError(m.id, newError(CodeInvalidRequest,
			"Invalid Request: subscriptions/listen answers with an event stream: the client must accept text/event-stream"))}
	}
	taskIDs, werr := listenTaskIDs(m.params)
	if werr != nil {
		return failWith(m.id, http.StatusBadRequest, werr)
	}
	if len(taskIDs) > 0 && !declaresExtension(meta.clientCapabilities, extTasks) {
		return failWith(m.id, http.StatusBadRequest, missingTasksExtension(
			"Missing required client capability: task notifications need the %s extension in clientCapabilities", extTasks))
	}
	caller, err := h.x.SurfaceKit().Authenticate(ex.r)
	if err != nil {
		return refusedOutcome(m.id, asError(err))
	}
	release, out := h.admitListener(caller, m)
	if release == nil {
		return out
	}
	defer release()
	h.serveListener(ex, m, caller, taskIDs)
	return outcome{streamed: true}
}

// admitListener counts one more listen stream for caller (the request as
// the auth hook passed it on), and returns the function that uncounts it,
// or nil and the refusal to answer when WithListenLimits does not admit
// it.
func (h *handler) admitListener(caller *http.Request, m *message) (func(), outcome) {
	release, v, err := h.listens.Acquire(caller.Context(), h.callerKey(caller))
	if err != nil {
		h.x.SurfaceKit().Logger().ErrorContext(caller.Context(), "mcp: listen streams could not be counted", "error", err)
		v = streamquota.ServerFull
	}
	var out outcome
	switch v {
	case streamquota.Admitted:
		return release, out
	case streamquota.CallerFull:
		out = failWith(m.id, http.StatusTooManyRequests, newError(CodeRequestRejected,
			"Too many requests: this caller holds its maximum of %d listen streams; close one or retry later", h.maxListenPerCaller))
	default:
		out = failWith(m.id, http.StatusServiceUnavailable, newError(CodeRequestRejected,
			"Service unavailable: the server holds its maximum of listen streams; retry later"))
	}
	out.retryAfter = listenRetryAfter
	return nil, out
}

// callerKey names who a request comes from, for WithListenLimits: the
// identity the auth hook established, or else the network it came from
// (its IPv4 address, or its IPv6 address's prefix, as rate limits count
// it: toolexec.WithIPv6CallerPrefix).
func (h *handler) callerKey(r *http.Request) string {
	if id, ok := toolexec.IdentityFromContext(r.Context()); ok {
		return "id:" + id
	}
	return "ip:" + h.x.SurfaceKit().CallerAddress(r)
}

// serveListener writes an admitted listen stream until the client goes
// away or stops reading. caller is the request as the auth hook passed it
// on: the tool filter sees it.
func (h *handler) serveListener(ex *exchange, m *message, caller *http.Request, taskIDs []string) {
	wantTools := false
	for it := jsonwalk.Members(m.params); it.Next(); {
		if it.Is("notifications") && isObject(it.Val) {
			for n := jsonwalk.Members(it.Val); n.Next(); {
				if n.Is("toolsListChanged") {
					wantTools = string(n.Val) == "true"
				}
			}
		}
	}
	honoured := wantTools && h.x.SurfaceKit().NotifiesToolsChanged()
	changed := make(chan struct{}, 1)
	var seen [sha256.Size]byte
	if honoured {
		stop := h.x.SurfaceKit().OnToolsChanged(func() {
			select {
			case changed <- struct{}{}:
			default: // one is already queued: the client will list once
			}
		})
		defer stop()
		seen = h.visibleDigest(caller)
	}
	type subMeta struct {
		ID json.RawMessage `json:"io.modelcontextprotocol/subscriptionId"`
	}
	type filter struct {
		ToolsListChanged bool     `json:"toolsListChanged,omitempty"`
		TaskIDs          []string `json:"taskIds,omitempty"`
	}
	tasks := h.watchTasks(caller, taskIDs) // the tasks extension (tasks_listen.go)
	defer tasks.stop()
	notification := func(method string, params any) []byte {
		data, _ := encodeNotification(method, params) // fixed shapes: they always encode
		return data
	}
	sw := sseWriter{w: ex.w, timeout: h.writeTimeout}
	writeSSEHeader(ex.w)
	defer sw.end()
	ack := notification("notifications/subscriptions/acknowledged", struct {
		Meta          subMeta `json:"_meta"`
		Notifications filter  `json:"notifications"`
	}{subMeta{m.id}, filter{ToolsListChanged: honoured, TaskIDs: tasks.ids}})
	if err := sw.event(ack, sw.ceiling()); err != nil {
		h.streamDropped(ex.r, err)
		return
	}
	listChanged := notification("notifications/tools/list_changed", struct {
		Meta subMeta `json:"_meta"`
	}{subMeta{m.id}})
	ticker := time.NewTicker(listenKeepAlive)
	defer ticker.Stop()
	ctx := ex.r.Context()
	for {
		var err error
		select {
		case <-ctx.Done():
			return
		case <-changed:
			if now := h.visibleDigest(caller); now != seen {
				seen = now
				err = sw.event(listChanged, sw.ceiling())
			}
		case <-ticker.C:
			err = sw.write(keepAliveComment, sw.ceiling())
		case <-tasks.signal:
			for _, n := range tasks.notifications(m.id) {
				if err = sw.event(n, sw.ceiling()); err != nil {
					break
				}
			}
		}
		if err != nil {
			h.streamDropped(ex.r, err)
			return
		}
	}
}

// visibleDigest is a digest of the tool list the caller of r is shown:
// the tools its filter lets it see (toolexec.WithToolFilter), in name
// order, each encoded as tools/list encodes it. Two digests differ when
// the caller's list changed.
func (h *handler) visibleDigest(r *http.Request) [sha256.Size]byte {
	j := h.listed(r, viewSorted)
	d := sha256.New()
	d.Write([]byte{'['})
	d.Write(j.Slice(0, j.Len()))
	d.Write([]byte{']'})
	var sum [sha256.Size]byte
	d.Sum(sum[:0])
	return sum
}

// streamDropped logs a stream of the request r that ended because a write
// to it failed with err: at warning level when the client stopped reading
// (the write did not end by its deadline), at debug level when it went
// away.
func (h *handler) streamDropped(r *http.Request, err error) {
	logger := h.x.SurfaceKit().Logger()
	if errors.Is(err, os.ErrDeadlineExceeded) || errors.Is(err, errWriteStalled) {
		logger.WarnContext(r.Context(), "mcp: stream dropped: the client did not read it in time",
			"method", r.Header.Get(methodHeader), "remote", r.RemoteAddr, "write_timeout", h.writeTimeout)
		return
	}
	logger.DebugContext(r.Context(), "mcp: stream ended: the client went away", "remote", r.RemoteAddr, "error", err)
}
