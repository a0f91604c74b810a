package mcp

import (
	"encoding/json"
	"github.com/toolexec/toolexec/internal/jsonwalk"
	"net/http"
	"time"
)

// listenKeepAlive is how often a quiet subscriptions/listen stream carries
// an SSE comment, so that proxies and clients do not close it as idle.
const listenKeepAlive = 25 * time.Second

// metaSubscriptionID is the _meta key that ties a notification to the
// subscriptions/listen request that opened its stream.
const metaSubscriptionID = "io.modelcontextprotocol/subscriptionId"

// listen answers subscriptions/listen (2026-07-28): an SSE stream that
// opens with notifications/subscriptions/acknowledged, naming the
// notifications the server agreed to send, then carries
// notifications/tools/list_changed each time the Executor's tool set
// changes, until the client closes it. Only toolsListChanged is honoured,
// and only when the Executor's provider reports changes
// (toolexec.Executor.NotifiesToolsChanged): the handler serves no prompts
// or resources. Changes that come faster than the client reads are
// coalesced into one notification.
//
// The method is 2026-07-28's (answerModern, which checked the headers
// and _meta): on earlier versions it is not found.
func (h *handler) listen(ex *exchange, m *message) outcome {
	if ex.r.Context().Done() == nil {
		// A context that can never end (a hand-made request, not one a
		// server received) would hold the stream open forever.
		return outcome{data: encodeError(m.id, newError(CodeInternalError, "Internal error: the request cannot be cancelled"))}
	}
	if !acceptsEventStream(ex.r) {
		return outcome{data: encodeError(m.id, newError(CodeInvalidRequest,
			"Invalid Request: subscriptions/listen answers with an event stream: the client must accept text/event-stream"))}
	}
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
	honoured := wantTools && h.x.NotifiesToolsChanged()
	changed := make(chan struct{}, 1)
	if honoured {
		stop := h.x.OnToolsChanged(func() {
			select {
			case changed <- struct{}{}:
			default: // one is already queued: the client will list once
			}
		})
		defer stop()
		h.relay.ensure(ex.r.Context()) // and other replicas' changes (relay.go)
		defer h.listeners.add(changed)()
	}
	type subMeta struct {
		ID json.RawMessage `json:"io.modelcontextprotocol/subscriptionId"`
	}
	type filter struct {
		ToolsListChanged bool `json:"toolsListChanged,omitempty"`
	}
	notification := func(method string, params any) []byte {
		data, _ := encodeNotification(method, params) // fixed shapes: they always encode
		return data
	}
	w := ex.w
	writeSSEHeader(w)
	ack := notification("notifications/subscriptions/acknowledged", struct {
		Meta          subMeta `json:"_meta"`
		Notifications filter  `json:"notifications"`
	}{subMeta{m.id}, filter{ToolsListChanged: honoured}})
	if writeEvent(w, ack) != nil {
		return outcome{streamed: true}
	}
	listChanged := notification("notifications/tools/list_changed", struct {
		Meta subMeta `json:"_meta"`
	}{subMeta{m.id}})
	ticker := time.NewTicker(listenKeepAlive)
	defer ticker.Stop()
	ctx := ex.r.Context()
	rc := http.NewResponseController(w)
	for {
		select {
		case <-ctx.Done():
			return outcome{streamed: true}
		case <-changed:
			if writeEvent(w, listChanged) != nil {
				return outcome{streamed: true}
			}
		case <-ticker.C:
			if _, err := w.Write([]byte(":\n\n")); err != nil || rc.Flush() != nil {
				return outcome{streamed: true}
			}
		}
	}
}
