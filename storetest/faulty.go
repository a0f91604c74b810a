package storetest

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/toolexec/toolexec"
)

// Op names one method of toolexec.Store (or of toolexec.OwnedEventLog),
// for FaultyStore.
type Op int

// The operations of a Store.
const (
	OpGet Op = iota
	OpSet
	OpAdd
	OpCompareAndSwap
	OpDelete
	OpAdmit
	OpRenewSlot
	OpRelease
	OpPublish
	OpSubscribe
	OpAppendEvent
	OpAppendOwnedEvent
	OpReadEvents
	OpWatchEvents
	numOps
)

var opNames = [numOps]string{"Get", "Set", "Add", "CompareAndSwap", "Delete", "Admit", "RenewSlot", "Release",
	"Publish", "Subscribe", "AppendEvent", "AppendOwnedEvent", "ReadEvents", "WatchEvents"}

// String is the method's name.
func (op Op) String() string {
	if op < 0 || op >= numOps {
		return "Op(?)"
	}
	return opNames[op]
}

// ErrUnreachable is the error of an operation FaultyStore.Fail made fail,
// as a store that cannot be reached answers.
var ErrUnreachable = errors.New("storetest: store unreachable")

// FaultyStore is a toolexec.Store that answers as the store it wraps until
// a test says otherwise, for tests of what a store's user does when the
// store cannot be reached, stalls, or loses what it held: Fail makes
// operations fail, Hang makes them wait for their context to end,
// LoseLeases makes renewals find their slots gone, and Recover ends all of
// it. It counts every operation it is asked, faulted or not (Calls), and
// keeps every admission Admit is asked (Admissions).
//
// Besides Store it implements toolexec.OwnedEventLog: AppendOwnedEvent is
// the wrapped store's, or its AppendEvent when it has none. It does not
// pass on what the wrapped store does beyond those interfaces (a
// MemoryStore's queue of calls waiting for a slot, say): it behaves as a
// store of another process would.
//
// Create one with NewFaultyStore. It is safe for concurrent use.
type FaultyStore struct {
	store toolexec.Store

	mu         sync.Mutex
	failing    [numOps]bool
	hanging    [numOps]bool
	lose       int // leases RenewSlot is still to lose; < 0: every one
	calls      [numOps]int
	admissions []toolexec.AdmitRequest
}

// NewFaultyStore returns a FaultyStore that, until told otherwise, answers
// as s.
func NewFaultyStore(s toolexec.Store) *FaultyStore { return &FaultyStore{store: s} }

// Fail makes ops, or every operation when none is named, fail with
// ErrUnreachable, without reaching the wrapped store, until Recover.
func (f *FaultyStore) Fail(ops ...Op) { f.set(&f.failing, ops) }

// Hang makes ops, or every operation when none is named, wait until their
// context ends and fail with its error, as a store that stopped answering
// does, until Recover. Hanging goes before failing: an operation both
// hangs and fails hangs.
func (f *FaultyStore) Hang(ops ...Op) { f.set(&f.hanging, ops) }

func (f *FaultyStore) set(faults *[numOps]bool, ops []Op) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(ops) == 0 {
		for op := range numOps {
			faults[op] = true
		}
	}
	for _, op := range ops {
		faults[op] = true
	}
}

// LoseLeases makes the next n RenewSlot calls (every one, until Recover,
// when n is negative) find their lease gone, as a store that restarted
// would: each gives the lease's slot back in the wrapped store and reports
// false.
func (f *FaultyStore) LoseLeases(n int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.lose = n
}

// Recover ends every fault: from now on the store answers as the one it
// wraps. Operations hanging already go on hanging until their context ends.
func (f *FaultyStore) Recover() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.failing, f.hanging, f.lose = [numOps]bool{}, [numOps]bool{}, 0
}

// Calls is how many times op has been asked of the store so far, faulted
// or not.
func (f *FaultyStore) Calls(op Op) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.calls[op]
}

// Admissions are the admissions Admit has been asked so far, oldest first,
// faulted or not.
func (f *FaultyStore) Admissions() []toolexec.AdmitRequest {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]toolexec.AdmitRequest(nil), f.admissions...)
}

// enter counts op and returns the fault it meets, if any.
func (f *FaultyStore) enter(ctx context.Context, op Op) error {
	f.mu.Lock()
	f.calls[op]++
	hang, fail := f.hanging[op], f.failing[op]
	f.mu.Unlock()
	if hang {
		<-ctx.Done()
		return ctx.Err()
	}
	if fail {
		return ErrUnreachable
	}
	return nil
}

// Get implements toolexec.KV.
func (f *FaultyStore) Get(ctx context.Context, key string) ([]byte, bool, error) {
	if err := f.enter(ctx, OpGet); err != nil {
		return nil, false, err
	}
	return f.store.Get(ctx, key)
}

// Set implements toolexec.KV.
func (f *FaultyStore) Set(ctx context.Context, key string, value []byte, ttl time.Duration) error {
	if err := f.enter(ctx, OpSet); err != nil {
		return err
	}
	return f.store.Set(ctx, key, value, ttl)
}

// Add implements toolexec.KV.
func (f *FaultyStore) Add(ctx context.Context, key string, value []byte, ttl time.Duration) (bool, error) {
	if err := f.enter(ctx, OpAdd); err != nil {
		return false, err
	}
	return f.store.Add(ctx, key, value, ttl)
}

// CompareAndSwap implements toolexec.KV.
func (f *FaultyStore) CompareAndSwap(ctx context.Context, key string, old, value []byte, ttl time.Duration) (bool, error) {
	if err := f.enter(ctx, OpCompareAndSwap); err != nil {
		return false, err
	}
	return f.store.CompareAndSwap(ctx, key, old, value, ttl)
}

// Delete implements toolexec.KV.
func (f *FaultyStore) Delete(ctx context.Context, key string) error {
	if err := f.enter(ctx, OpDelete); err != nil {
		return err
	}
	return f.store.Delete(ctx, key)
}

// Admit implements toolexec.Limits.
func (f *FaultyStore) Admit(ctx context.Context, a toolexec.AdmitRequest) (toolexec.AdmitResult, error) {
	f.mu.Lock()
	f.admissions = append(f.admissions, a)
	f.mu.Unlock()
	if err := f.enter(ctx, OpAdmit); err != nil {
		return toolexec.AdmitResult{}, err
	}
	return f.store.Admit(ctx, a)
}

// RenewSlot implements toolexec.Limits.
func (f *FaultyStore) RenewSlot(ctx context.Context, key, lease string, ttl time.Duration) (bool, error) {
	if err := f.enter(ctx, OpRenewSlot); err != nil {
		return false, err
	}
	f.mu.Lock()
	lost := f.lose != 0
	if f.lose > 0 {
		f.lose--
	}
	f.mu.Unlock()
	if lost {
		_ = f.store.Release(ctx, toolexec.ReleaseRequest{SlotKey: key, Lease: lease}) // as a store that lost it, no slot held
		return false, nil
	}
	return f.store.RenewSlot(ctx, key, lease, ttl)
}

// Release implements toolexec.Limits.
func (f *FaultyStore) Release(ctx context.Context, r toolexec.ReleaseRequest) error {
	if err := f.enter(ctx, OpRelease); err != nil {
		return err
	}
	return f.store.Release(ctx, r)
}

// Publish implements toolexec.PubSub.
func (f *FaultyStore) Publish(ctx context.Context, channel string, message []byte) error {
	if err := f.enter(ctx, OpPublish); err != nil {
		return err
	}
	return f.store.Publish(ctx, channel, message)
}

// Subscribe implements toolexec.PubSub.
func (f *FaultyStore) Subscribe(ctx context.Context, channel string, fn func(message []byte)) (func(), error) {
	if err := f.enter(ctx, OpSubscribe); err != nil {
		return nil, err
	}
	return f.store.Subscribe(ctx, channel, fn)
}

// AppendEvent implements toolexec.EventLog.
func (f *FaultyStore) AppendEvent(ctx context.Context, stream string, data []byte, ttl time.Duration) (string, error) {
	if err := f.enter(ctx, OpAppendEvent); err != nil {
		return "", err
	}
	return f.store.AppendEvent(ctx, stream, data, ttl)
}

// AppendOwnedEvent implements toolexec.OwnedEventLog: the wrapped store's
// AppendOwnedEvent, or its AppendEvent when it has none.
func (f *FaultyStore) AppendOwnedEvent(ctx context.Context, owner, stream string, data []byte, ttl time.Duration) (string, error) {
	if err := f.enter(ctx, OpAppendOwnedEvent); err != nil {
		return "", err
	}
	if owned, ok := f.store.(toolexec.OwnedEventLog); ok {
		return owned.AppendOwnedEvent(ctx, owner, stream, data, ttl)
	}
	return f.store.AppendEvent(ctx, stream, data, ttl)
}

// ReadEvents implements toolexec.EventLog.
func (f *FaultyStore) ReadEvents(ctx context.Context, stream, after string, max int) ([]toolexec.Event, bool, error) {
	if err := f.enter(ctx, OpReadEvents); err != nil {
		return nil, false, err
	}
	return f.store.ReadEvents(ctx, stream, after, max)
}

// WatchEvents implements toolexec.EventLog.
func (f *FaultyStore) WatchEvents(ctx context.Context, stream string, notify func()) (func(), error) {
	if err := f.enter(ctx, OpWatchEvents); err != nil {
		return nil, err
	}
	return f.store.WatchEvents(ctx, stream, notify)
}

var _ toolexec.OwnedEventLog = (*FaultyStore)(nil)
var _ toolexec.Store = (*FaultyStore)(nil)
