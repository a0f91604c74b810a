package streamquota

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"log/slog"
	"math"
	"sync"
	"sync/atomic"
	"time"

	"github.com/toolexec/toolexec"
)

// SharedConfig configures a Shared counter.
type SharedConfig struct {
	// Limits is the store the replicas share (toolexec.WithStore's), whose
	// concurrency slots count each caller's streams.
	Limits toolexec.Limits
	// Total caps the streams of this process, all callers together;
	// PerCaller caps one caller's, across every replica sharing Limits.
	Total, PerCaller int
	// Prefix starts the slot key of every caller; the rest is a digest of
	// the caller, so that no identity or address is written to the store.
	Prefix string
	// LeaseTTL is how long a stream's slot stays held unless renewed; a
	// stream renews its slot every third of it while it is open.
	LeaseTTL time.Duration
	// OpTimeout bounds each store operation.
	OpTimeout time.Duration
	// Logger hears when the store stops and starts answering, once each
	// time, and Name starts those lines ("mcp: listen streams").
	Logger *slog.Logger
	Name   string
}

// Shared is a Counter for replicas sharing a store: the total cap is
// counted in the process (it bounds what this process holds), each
// caller's cap in the store's concurrency slots, so that a caller holds at
// most PerCaller streams across every replica. Acquire checks the total
// first (no round trip), then takes the caller's slot in one Admit; a
// refused stream gives back what it took.
//
// A stream's slot is a lease, renewed every third of LeaseTTL while the
// stream is open and given back when it ends (within OpTimeout, whatever
// the context it was opened with), so the slots of a replica that dies
// free themselves within LeaseTTL. A stream whose lease ran out (the store
// lost it, or could not be reached for longer) takes a slot again at its
// next renewal.
//
// While the store cannot be reached (an Admit that fails or takes longer
// than OpTimeout), a stream is counted for its caller in the process
// instead, for its whole life, and is never refused for that: N replicas
// then hold at most N times PerCaller of a caller's streams. The change is
// logged at warning level once, and at info level once the store answers
// again.
type Shared struct {
	cfg   SharedConfig
	local *Local // callers' streams opened while the store could not be reached

	mu   sync.Mutex
	open int // streams of this process, all callers together

	down atomic.Bool // the last store operation failed
}

// NewShared returns a Shared counter configured by cfg. A Total or
// PerCaller of 0 or less admits nothing.
func NewShared(cfg SharedConfig) *Shared {
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	return &Shared{cfg: cfg, local: NewLocal(math.MaxInt, cfg.PerCaller)}
}

// Acquire implements Counter. It never returns an error: a store that
// cannot be reached has the caller counted in the process.
func (s *Shared) Acquire(ctx context.Context, caller string) (func(), Verdict, error) {
	if !s.take() {
		return nil, ServerFull, nil
	}
	if s.cfg.PerCaller <= 0 {
		s.put()
		return nil, CallerFull, nil
	}
	key := s.slotKey(caller)
	// Not cancelled with ctx: a slot the store took must be known, so that
	// it is given back, not left to run out.
	adm, err := s.admit(context.WithoutCancel(ctx), key)
	switch {
	case err != nil:
		release, v, _ := s.local.Acquire(ctx, caller)
		if v != Admitted {
			s.put()
			return nil, v, nil
		}
		var once sync.Once
		return func() {
			once.Do(func() {
				release()
				s.put()
			})
		}, Admitted, nil
	case adm.SlotsFull:
		s.put()
		return nil, CallerFull, nil
	}
	// (A store that admitted the stream without a lease is asked for one
	// again at the first renewal.)
	l := &lease{s: s, key: key, id: adm.Lease}
	l.mu.Lock() // renew reads timer
	l.timer = time.AfterFunc(s.cfg.LeaseTTL/3, l.renew)
	l.mu.Unlock()
	return l.release, Admitted, nil
}

// Open returns how many streams this process holds, all callers together.
func (s *Shared) Open() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.open
}

// take counts one more stream against the total, unless it is reached.
func (s *Shared) take() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.open >= s.cfg.Total {
		return false
	}
	s.open++
	return true
}

// put uncounts a stream take counted.
func (s *Shared) put() {
	s.mu.Lock()
	s.open--
	s.mu.Unlock()
}

// slotKey is the store key of caller's slots: Prefix and a digest of the
// caller.
func (s *Shared) slotKey(caller string) string {
	sum := sha256.Sum256([]byte(caller))
	return s.cfg.Prefix + hex.EncodeToString(sum[:16])
}

// admit takes one of key's slots, bounded by OpTimeout.
func (s *Shared) admit(ctx context.Context, key string) (toolexec.AdmitResult, error) {
	ctx, cancel := context.WithTimeout(ctx, s.cfg.OpTimeout)
	defer cancel()
	adm, err := s.cfg.Limits.Admit(ctx, toolexec.AdmitRequest{SlotKey: key, SlotMax: s.cfg.PerCaller, SlotTTL: s.cfg.LeaseTTL})
	s.note(err)
	return adm, err
}

// note logs the store's first failure after a success, and its first
// success after a failure.
func (s *Shared) note(err error) {
	switch {
	case err == nil:
		if s.down.CompareAndSwap(true, false) {
			s.cfg.Logger.Info(s.cfg.Name + ": the shared store answers again; each caller's streams are counted in it")
		}
	default:
		if s.down.CompareAndSwap(false, true) {
			s.cfg.Logger.Warn(s.cfg.Name+": the shared store cannot be reached; each caller's streams are counted in this process until it answers", "error", err)
		}
	}
}

// lease is the slot one open stream holds in the store, renewed until the
// stream ends.
type lease struct {
	s   *Shared
	key string

	mu    sync.Mutex
	id    string // the lease held; "" while the stream holds none
	timer *time.Timer
	done  bool // released
	over  bool // a lost lease found every slot held: logged once
}

// renew extends the lease, or takes a slot again when it ran out, then
// schedules the next renewal. A store that cannot be reached keeps the
// lease as it is, to be tried again.
func (l *lease) renew() {
	l.mu.Lock()
	id, done := l.id, l.done
	l.mu.Unlock()
	if done {
		return
	}
	s := l.s
	if id != "" {
		ctx, cancel := context.WithTimeout(context.Background(), s.cfg.OpTimeout)
		ok, err := s.cfg.Limits.RenewSlot(ctx, l.key, id, s.cfg.LeaseTTL)
		cancel()
		s.note(err)
		if err != nil || ok {
			l.schedule()
			return
		}
		id = "" // it ran out: another stream may hold the slot now
	}
	adm, err := s.admit(context.Background(), l.key)
	if err == nil {
		id = adm.Lease
	}
	l.mu.Lock()
	if l.done {
		l.mu.Unlock()
		l.give(id) // the stream ended meanwhile
		return
	}
	l.id = id
	warn := err == nil && id == "" && !l.over
	l.over = l.over || warn
	l.timer.Reset(s.cfg.LeaseTTL / 3)
	l.mu.Unlock()
	if warn {
		s.cfg.Logger.Warn(s.cfg.Name + ": an open stream's slot ran out and its caller's slots are all held; the stream is counted again once one is free")
	}
}

// schedule arms the next renewal, unless the stream ended.
func (l *lease) schedule() {
	l.mu.Lock()
	if !l.done {
		l.timer.Reset(l.s.cfg.LeaseTTL / 3)
	}
	l.mu.Unlock()
}

// release ends the stream's count: its place in the total, and its slot,
// given back in the store. Calling it again does nothing.
func (l *lease) release() {
	l.mu.Lock()
	if l.done {
		l.mu.Unlock()
		return
	}
	l.done = true
	l.timer.Stop()
	id := l.id
	l.id = ""
	l.mu.Unlock()
	l.s.put()
	l.give(id)
}

// give gives the slot id back in the store, bounded by OpTimeout; a slot
// not given back runs out within LeaseTTL.
func (l *lease) give(id string) {
	if id == "" {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), l.s.cfg.OpTimeout)
	err := l.s.cfg.Limits.Release(ctx, toolexec.ReleaseRequest{SlotKey: l.key, Lease: id})
	cancel()
	l.s.note(err)
}
