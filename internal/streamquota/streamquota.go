// Package streamquota counts long-lived streams (MCP subscriptions/listen,
// say) against two caps: one for the whole server and one for each caller.
//
// Counter is the seam: a surface asks it to admit each stream and releases
// the stream when it ends, and knows nothing of where the counts live.
// Local keeps them in the process; Shared counts each caller's across the
// replicas sharing a store, behind the same interface.
package streamquota

import (
	"context"
	"sync"
)

// Verdict is what Counter.Acquire decided.
type Verdict uint8

const (
	// Admitted: the stream is counted; release it when it ends.
	Admitted Verdict = iota
	// CallerFull: the caller holds its maximum of streams already.
	CallerFull
	// ServerFull: the server holds its maximum of streams already.
	ServerFull
)

// Counter admits streams within its caps.
type Counter interface {
	// Acquire counts one more stream for caller (a non-empty key naming
	// who opens it) and returns Admitted with the function that uncounts
	// it, or the cap that refused it (release is then nil). release must
	// be called once the stream ends; calling it again does nothing. A
	// counter that cannot count returns an error, and the stream must not
	// be opened (Shared, whose store cannot be reached, counts in the
	// process instead).
	Acquire(ctx context.Context, caller string) (release func(), v Verdict, err error)
}

// Local is a Counter held in the process. Its memory is one map entry per
// caller holding at least one stream.
type Local struct {
	total, perCaller int

	mu     sync.Mutex
	open   int
	caller map[string]int
}

// NewLocal returns a Counter admitting at most total streams in all and
// perCaller for any one caller. A cap of 0 or less admits nothing.
func NewLocal(total, perCaller int) *Local {
	return &Local{total: total, perCaller: perCaller, caller: make(map[string]int)}
}

// Acquire implements Counter. The per-caller cap is checked first, so a
// caller over its own share hears that it is, whatever the server's load.
func (l *Local) Acquire(_ context.Context, caller string) (func(), Verdict, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.caller[caller] >= l.perCaller {
		return nil, CallerFull, nil
	}
	if l.open >= l.total {
		return nil, ServerFull, nil
	}
	l.open++
	l.caller[caller]++
	var once sync.Once
	return func() { once.Do(func() { l.release(caller) }) }, Admitted, nil
}

func (l *Local) release(caller string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.open--
	if n := l.caller[caller] - 1; n > 0 {
		l.caller[caller] = n
	} else {
		delete(l.caller, caller)
	}
}

// Open returns how many streams are counted, in all and for caller.
func (l *Local) Open(caller string) (total, byCaller int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.open, l.caller[caller]
}
