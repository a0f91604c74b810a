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
// Like input requests, cancellation reaches only the process running the
// call.
type inFlight struct {
	mu    sync.Mutex
	calls map[string]context.CancelFunc
}

func inFlightKey(token string, id []byte) string { return token + "\x00" + string(id) }

// track registers a call and returns the context it runs in, the
// function that cancels that context, and the function that unregisters
// the call (and cancels its context).
func (f *inFlight) track(ctx context.Context, token string, id []byte) (context.Context, context.CancelFunc, func()) {
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
// started by a client holding token, is cancelled.
func (f *inFlight) cancel(token string, params []byte) {
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
	f.mu.Lock()
	cancel := f.calls[inFlightKey(token, id)]
	f.mu.Unlock()
	if cancel != nil {
		cancel()
	}
}
