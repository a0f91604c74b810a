package mcp

import (
	"time"

	"github.com/toolexec/toolexec"
)

// shared is what lets the handlers of several replicas, sharing the
// Executor's store, serve a client as one server: the keys that sign
// requestState (keyring.go), the relay between replicas (relay.go), and
// resumable streams (resume.go). Without toolexec.WithStore the store is
// the Executor's own, in the process.
type shared struct {
	store        toolexec.Store
	keys         keyring
	relay        relay
	resumes      resumeRegistry
	resumeWindow time.Duration // WithResumeWindow; < 0: resumption off
}

// initShared completes the configuration once the options have run.
func (h *handler) initShared() {
	kit := h.x.SurfaceKit()
	h.store = kit.Store()
	log := kit.Logger()
	h.keys.fixed, h.keys.kv, h.keys.log = h.stateKey, h.store, log
	h.keys.rotation = DefaultStateKeyRotation
	h.keys.keep = h.inputTimeout + time.Minute
	h.relay.h, h.relay.id, h.relay.store, h.relay.log = h, newReplicaID(), h.store, log
	h.inputs.relay, h.running.relay = &h.relay, &h.relay
	if h.resumeWindow == 0 {
		h.resumeWindow = DefaultResumeWindow
	}
}

// WithResumeWindow sets how long a 2025 client that lost a call's SSE
// stream has to resume it with GET and Last-Event-ID, on this replica or
// any other sharing the Executor's store (toolexec.WithStore): the
// stream's events are kept for d after its last one, and a call whose
// client went away runs on for d, waiting for one to resume its stream,
// before it is cancelled. The default is DefaultResumeWindow; d < 0 turns
// resumption off: events carry no ids, GET is answered 405, and a call
// ends as soon as its client goes away.
func WithResumeWindow(d time.Duration) Option {
	return optionFunc(func(h *handler) {
		if d < 0 {
			d = -1
		}
		h.resumeWindow = d
	})
}
