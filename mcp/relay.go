package mcp

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"log/slog"
	"sync"
	"time"

	"github.com/toolexec/toolexec"
)

// relay carries what must reach the replica that holds a 2025 call, when
// the client's next request lands on another one behind a balancer: the
// answer to an input request the call's stream sent, a
// notifications/cancelled, and the news that a client resumed the call's
// stream elsewhere. It travels through the Executor's store (PubSub): each
// handler has a random replica id, subscribes to its own channel on first
// need, and names itself in the ids it hands out (input request ids,
// stream ids), so any replica knows where to send. Cancellations, whose
// request ids are the client's own, go to every replica.
//
// Within one process the store is the Executor's own, and all of this
// stays in the process. Messages are small JSON objects; one that cannot
// be delivered (the store is down, the replica is gone) is lost, and the
// call waits for its answer as it would for a client that never answers.
type relay struct {
	h     *handler
	id    string // this handler's replica id: 16 hex digits
	store toolexec.PubSub
	log   *slog.Logger

	mu      sync.Mutex
	stops   []func()  // the subscriptions, once made
	lastTry time.Time // the last failed attempt to subscribe
}

// The relay's channels: one per replica, and one every replica hears.
const (
	replicaChannelPrefix = "mcp:replica:"
	broadcastChannel     = "mcp:broadcast"
)

// relayMsg is one message between replicas.
type relayMsg struct {
	Kind string `json:"k"` // "answer", "cancel", "attach"
	// answer: the input request's id and the client's response members.
	ID     string          `json:"id,omitempty"`
	Result json.RawMessage `json:"result,omitempty"`
	Error  json.RawMessage `json:"error,omitempty"`
	// cancel: the client's capability token and the request id it sent.
	Token     string          `json:"token,omitempty"`
	RequestID json.RawMessage `json:"rid,omitempty"`
	// attach: the stream a client is reading.
	Stream string `json:"s,omitempty"`
}

func newReplicaID() string {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// ensure subscribes to the replica's channel and the broadcast, once;
// after a failure it tries again at most once a second.
func (r *relay) ensure(ctx context.Context) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.stops != nil || time.Since(r.lastTry) < time.Second {
		return
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), keyOpTimeout)
	defer cancel()
	own, err := r.store.Subscribe(ctx, replicaChannelPrefix+r.id, r.receive)
	if err == nil {
		var all func()
		if all, err = r.store.Subscribe(ctx, broadcastChannel, r.receive); err == nil {
			r.stops = []func(){own, all}
			return
		}
		own()
	}
	r.lastTry = time.Now()
	r.log.Warn("mcp: the shared store cannot be reached: answers and cancellations sent to other replicas cannot reach this one", "error", err)
}

// send publishes m to the replica named replica ("" for every replica).
func (r *relay) send(ctx context.Context, replica string, m *relayMsg) {
	data, err := json.Marshal(m)
	if err != nil {
		return
	}
	ch := broadcastChannel
	if replica != "" {
		ch = replicaChannelPrefix + replica
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), keyOpTimeout)
	defer cancel()
	if err := r.store.Publish(ctx, ch, data); err != nil {
		r.log.Debug("mcp: a message for another replica was lost", "kind", m.Kind, "error", err)
	}
}

// receive handles a message from another replica (or this one).
func (r *relay) receive(data []byte) {
	var m relayMsg
	if json.Unmarshal(data, &m) != nil {
		return
	}
	switch m.Kind {
	case "answer":
		r.h.inputs.deliverLocal(m.ID, inputAnswer{result: m.Result, error: m.Error})
	case "cancel":
		r.h.running.cancelLocal(m.Token, m.RequestID)
	case "attach":
		r.h.resumes.attached(m.Stream)
	}
}

// replicaOf returns the replica id an id this package handed out names
// (an input request id, a stream id: PREFIX + REPLICA + "-" + ...), and
// whether it names one.
func replicaOf(id, prefix string) (string, bool) {
	if len(id) < len(prefix)+17 || id[:len(prefix)] != prefix || id[len(prefix)+16] != '-' {
		return "", false
	}
	rid := id[len(prefix) : len(prefix)+16]
	for _, c := range []byte(rid) {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return "", false
		}
	}
	return rid, true
}
