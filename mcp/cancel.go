package mcp

import (
	"context"
	"github.com/toolexec/toolexec/internal/jsonwalk"
	"sync"
)

// inFlight holds the cancel functions of the running calls a 2025 client
// can cancel with notifications/cancelled: those of clients that hold a
// capability token (see rememberCapabilities), keyed by the token and the
// call's JSON-RPC id as sent. The token, random per initialize, is what
// makes the id the client's own: without it, one client's id 1 could not be
// told from another's, and such calls are cancelled only by disconnecting.
// A cancellation for a call this process does not run is passed to every
// replica sharing the Executor's store (see relay), so that it reaches the
// call wherever a balancer sent it.
type inFlight struct {
	relay *relay
	mu    sync.Mutex
	calls map[string]context.CancelFunc
}

func inFlightKey(token string, id []byte) string { return token + "\x00" + string(id) }

// track registers a call and returns the context it runs in, the
// function that cancels that context, and the function that unregisters
// the call (and cancels its context).
func (f *inFlight) track(ctx context.Context, token string, id []byte) (context.Context, context.CancelFunc, func()) {
	f.relay.ensure(ctx) // so that cancellations reaching other replicas find the call here
	ctx, cancel := context.WithCancel(ctx)
	key := inFlightKey(token, id)
	f.mu.Lock()
	if f.calls == nil {
		f.calls = make(map[string]context.CancelFunc)
	}
	_, dup := f.calls[key]
	if !dup { // a client reusing an id in flight cancels only the first
		f.calls[key] = cancel
	}
	f.mu.Unlock()
	return ctx, cancel, func() {
		if !dup {
			f.mu.Lock()
			delete(f.calls, key)
			f.mu.Unlock()
		}
		cancel()
	}
}

// cancel answers notifications/cancelled: the call with params' requestId,
// started by a client holding token, is cancelled, here or on the replica
// that runs it.
func (f *inFlight) cancel(ctx context.Context, token string, params []byte) {
	if token == "" {
		return
	}
	var id []byte
	for it := jsonwalk.Members(params); it.Next(); {
		if it.Is("requestId") {
			id = it.Val
		}
	}
	if !validID(id) {
		return
	}
	if !f.cancelLocal(token, id) {
		f.relay.send(ctx, "", &relayMsg{Kind: "cancel", Token: token, RequestID: id})
	}
}

// cancelLocal cancels the call of this process that token's client sent
// with id, and reports whether there was one.
func (f *inFlight) cancelLocal(token string, id []byte) bool {
	f.mu.Lock()
	cancel := f.calls[inFlightKey(token, id)]
	f.mu.Unlock()
	if cancel != nil {
		cancel()
	}
	return cancel != nil
}
