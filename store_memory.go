package toolexec

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"strconv"
	"sync"
	"time"

	"github.com/hashicorp/golang-lru/v2/simplelru"

	"github.com/toolexec/toolexec/internal/fairlru"
)

// MemoryStore is the in-process Store: what one process keeps for itself
// when it runs alone. An Executor without WithStore keeps its own; tests
// and single-process hosts may share one between Executors. Everything it
// holds is bounded:
//
//   - KV: a MemoryCache of DefaultCacheSize entries;
//   - rates: MaxLocalRateKeys callers, the least recently seen forgotten
//     first;
//   - slots: one lease per call holding one;
//   - event logs: MaxMemoryLogs logs of at most MaxEventsPerLog
//     events each, MaxMemoryLogBytes of events in all; the least
//     recently written log of the owner holding the most (OwnedEventLog),
//     and a log's oldest events, are dropped first;
//   - tasks of the Executors sharing it (WithTasks): in maps of their own,
//     bounded as TaskSettings says for one Executor (the first to run a
//     task sets the bounds), never evicted to make room in the KV; the
//     bounds drop the largest holder's finished tasks, never a running
//     one.
//
// Executors given one MemoryStore with WithStore count together, as one
// server: a tool's concurrency limit, a caller's rate and the cache are
// theirs in common (a host serving several sets of tools from one process,
// each through an Executor of its own, says so). A call waiting there for
// a concurrency slot gets one as soon as one is given back, in the order
// the calls came.
//
// Create one with NewMemoryStore: the zero value is not usable.
type MemoryStore struct {
	*MemoryCache
	limits memoryLimits
	bus    memoryBus
	logs   memoryLogs

	tasksOnce               sync.Once
	taskRecords, taskLeases *taskMemory
}

// taskMemories implements taskKeeper: the maps are made on first use,
// sized by the settings of the first Executor to ask.
func (s *MemoryStore) taskMemories(settings TaskSettings) (records, leases KV) {
	s.tasksOnce.Do(func() { s.taskRecords, s.taskLeases = newTaskMemories(settings) })
	return s.taskRecords, s.taskLeases
}

// NewMemoryStore returns an empty MemoryStore.
func NewMemoryStore() *MemoryStore {
	s := &MemoryStore{MemoryCache: NewMemoryCache(0)}
	s.limits.init()
	s.logs.init(&s.bus)
	return s
}

// Admit implements Limits.
func (s *MemoryStore) Admit(ctx context.Context, a AdmitRequest) (AdmitResult, error) {
	var value []byte
	var found bool
	if a.Read != "" {
		value, found, _ = s.Get(ctx, a.Read)
		if found {
			a.SlotKey = "" // answered from the value: no slot
		}
	}
	adm := s.limits.admit(a, time.Now())
	if adm.Admitted() {
		adm.Value, adm.Found = value, found
	}
	return adm, nil
}

// RenewSlot implements Limits.
func (s *MemoryStore) RenewSlot(_ context.Context, key, lease string, ttl time.Duration) (bool, error) {
	return s.limits.renew(key, lease, ttl, time.Now()), nil
}

// Release implements Limits.
func (s *MemoryStore) Release(ctx context.Context, r ReleaseRequest) error {
	var err error
	if r.Write != "" {
		// Stored first: a call that takes the slot given back finds it.
		err = s.Set(ctx, r.Write, r.Value, r.TTL)
	}
	if r.Lease != "" {
		s.limits.release(r.SlotKey, r.Lease)
	}
	return err
}

// waitSlot implements slotQueue.
func (s *MemoryStore) waitSlot(ctx context.Context, key string, max int, ttl time.Duration) (string, error) {
	return s.limits.waitSlot(ctx, key, max, ttl)
}

// Publish implements PubSub.
func (s *MemoryStore) Publish(_ context.Context, channel string, message []byte) error {
	s.bus.publish(channel, message)
	return nil
}

// Subscribe implements PubSub.
func (s *MemoryStore) Subscribe(_ context.Context, channel string, fn func([]byte)) (func(), error) {
	return s.bus.subscribe(channel, fn), nil
}

// AppendEvent implements EventLog.
func (s *MemoryStore) AppendEvent(_ context.Context, stream string, data []byte, ttl time.Duration) (string, error) {
	return s.logs.append("", stream, data, ttl, time.Now()), nil
}

// AppendOwnedEvent implements OwnedEventLog: the log stream, when this
// append creates it, is owner's, and its bytes count towards owner's
// share when the bounds drop logs (MaxMemoryLogs,
// MaxMemoryLogBytes).
func (s *MemoryStore) AppendOwnedEvent(_ context.Context, owner, stream string, data []byte, ttl time.Duration) (string, error) {
	return s.logs.append(owner, stream, data, ttl, time.Now()), nil
}

// ReadEvents implements EventLog.
func (s *MemoryStore) ReadEvents(_ context.Context, stream, after string, max int) ([]Event, bool, error) {
	evs, found := s.logs.read(stream, after, max, time.Now())
	return evs, found, nil
}

// WatchEvents implements EventLog.
func (s *MemoryStore) WatchEvents(_ context.Context, stream string, notify func()) (func(), error) {
	return s.bus.subscribe(eventChannel(stream), func([]byte) { notify() }), nil
}

// eventChannel is the bus channel of stream's appends.
func eventChannel(stream string) string { return "\x00events\x00" + stream }

// memoryLimits counts rates and slots in the process.
type memoryLimits struct {
	mu    sync.Mutex
	rates *simplelru.LRU[string, time.Time] // rate key: its theoretical arrival time
	slots map[string]map[string]time.Time   // slot key: lease id: expiry
	queue map[string][]*slotWaiter          // slot key: calls waiting for a slot, first come first
}

// slotWaiter is a call waiting for a slot of a MemoryStore: the slot is
// handed to it, as a lease, when it comes first and one is free.
type slotWaiter struct {
	lease chan string // buffered: the lease handed over
	max   int
	ttl   time.Duration
}

func (l *memoryLimits) init() {
	l.rates, _ = simplelru.NewLRU[string, time.Time](MaxLocalRateKeys, nil)
	l.slots = make(map[string]map[string]time.Time)
	l.queue = make(map[string][]*slotWaiter)
}

// admit decides a, atomically, at now.
func (l *memoryLimits) admit(a AdmitRequest, now time.Time) AdmitResult {
	l.mu.Lock()
	defer l.mu.Unlock()
	var newTAT time.Time
	if a.RateKey != "" {
		tat, _ := l.rates.Peek(a.RateKey)
		var wait time.Duration
		if newTAT, wait = a.Rate.decide(tat, now); wait > 0 {
			return AdmitResult{RateWait: wait}
		}
	}
	var lease string
	if a.SlotKey != "" {
		if len(l.queue[a.SlotKey]) > 0 {
			// Calls are waiting for a slot: the next one freed is theirs.
			return AdmitResult{SlotsFull: true}
		}
		held := l.slots[a.SlotKey]
		for id, exp := range held {
			if !now.Before(exp) {
				delete(held, id) // run out: its holder died, or stopped renewing
			}
		}
		if len(held) >= a.SlotMax {
			return AdmitResult{SlotsFull: true}
		}
		if held == nil {
			held = make(map[string]time.Time, a.SlotMax)
			l.slots[a.SlotKey] = held
		}
		lease = newLeaseID()
		held[lease] = now.Add(a.SlotTTL)
	}
	if a.RateKey != "" {
		l.rates.Add(a.RateKey, newTAT)
	}
	return AdmitResult{Lease: lease}
}

func (l *memoryLimits) renew(key, lease string, ttl time.Duration, now time.Time) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	held := l.slots[key]
	exp, ok := held[lease]
	if !ok || !now.Before(exp) {
		return false
	}
	held[lease] = now.Add(ttl)
	return true
}

func (l *memoryLimits) release(key, lease string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	delete(l.slots[key], lease)
	l.handOff(key, time.Now())
}

// handOff gives the free slots of key, if any, to the calls waiting for
// one, in the order they came, and forgets key when nothing holds or
// waits for it. l.mu is held.
func (l *memoryLimits) handOff(key string, now time.Time) {
	held := l.slots[key]
	for id, exp := range held {
		if !now.Before(exp) {
			delete(held, id) // run out: its holder died, or stopped renewing
		}
	}
	q := l.queue[key]
	for len(q) > 0 && len(held) < q[0].max {
		w := q[0]
		q[0] = nil
		q = q[1:]
		if held == nil {
			held = make(map[string]time.Time, w.max)
			l.slots[key] = held
		}
		lease := newLeaseID()
		held[lease] = now.Add(w.ttl)
		w.lease <- lease
	}
	if len(q) == 0 {
		delete(l.queue, key)
	} else {
		l.queue[key] = q
	}
	if len(held) == 0 {
		delete(l.slots, key)
	}
}

// waitSlot waits its turn for a slot of key (max of them, held for ttl),
// and returns the lease of the slot handed to it; or, when ctx ends first,
// ctx's error, having taken nothing.
func (l *memoryLimits) waitSlot(ctx context.Context, key string, max int, ttl time.Duration) (string, error) {
	w := &slotWaiter{lease: make(chan string, 1), max: max, ttl: ttl}
	l.mu.Lock()
	l.queue[key] = append(l.queue[key], w)
	l.handOff(key, time.Now())
	l.mu.Unlock()
	// Slots whose lease runs out free themselves with no release to hand
	// them over: look for them now and then.
	tick := time.NewTicker(slotWaitMax)
	defer tick.Stop()
	for {
		select {
		case lease := <-w.lease:
			return lease, nil
		case <-tick.C:
			l.mu.Lock()
			l.handOff(key, time.Now())
			l.mu.Unlock()
		case <-ctx.Done():
			l.mu.Lock()
			if l.dequeue(key, w) {
				l.mu.Unlock()
				return "", ctx.Err()
			}
			l.mu.Unlock()
			// A slot was handed over as ctx ended: it goes to the next.
			l.release(key, <-w.lease)
			return "", ctx.Err()
		}
	}
}

// dequeue removes w from key's waiters, and reports whether it was still
// waiting. l.mu is held.
func (l *memoryLimits) dequeue(key string, w *slotWaiter) bool {
	q := l.queue[key]
	for i, x := range q {
		if x == w {
			q = append(q[:i], q[i+1:]...)
			if len(q) == 0 {
				delete(l.queue, key)
			} else {
				l.queue[key] = q
			}
			return true
		}
	}
	return false
}

// newLeaseID returns a fresh random lease id.
func newLeaseID() string {
	var b [12]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails (Go 1.24+)
	return hex.EncodeToString(b[:])
}

// memoryBus is an in-process PubSub.
type memoryBus struct {
	mu   sync.Mutex
	subs map[string][]*memorySub
}

type memorySub struct {
	fn func([]byte)
	mu sync.Mutex // held while fn runs, so stop waits for it
	on bool       // guarded by mu
}

func (b *memoryBus) subscribe(channel string, fn func([]byte)) func() {
	s := &memorySub{fn: fn, on: true}
	b.mu.Lock()
	if b.subs == nil {
		b.subs = make(map[string][]*memorySub)
	}
	b.subs[channel] = append(b.subs[channel], s)
	b.mu.Unlock()
	var once sync.Once
	return func() {
		once.Do(func() {
			b.mu.Lock()
			list := b.subs[channel]
			for i, x := range list {
				if x == s {
					list = append(list[:i:i], list[i+1:]...)
					break
				}
			}
			if len(list) == 0 {
				delete(b.subs, channel)
			} else {
				b.subs[channel] = list
			}
			b.mu.Unlock()
			s.mu.Lock()
			s.on = false
			s.mu.Unlock()
		})
	}
}

// publish calls the channel's subscribers, on the publisher's goroutine,
// in the order they subscribed; a message is delivered to one subscriber
// at a time.
func (b *memoryBus) publish(channel string, message []byte) {
	b.mu.Lock()
	list := b.subs[channel]
	b.mu.Unlock()
	for _, s := range list {
		s.mu.Lock()
		if s.on {
			s.fn(message)
		}
		s.mu.Unlock()
	}
}

// MaxMemoryLogs, MaxEventsPerLog and MaxMemoryLogBytes bound a
// MemoryStore's event logs: how many logs it keeps, how many events each
// keeps (the oldest dropped first), and how many bytes of events they hold
// together. Past the count or the bytes, the least recently written log of
// the owner holding the largest share of either bound (of the logs, or of
// their bytes) is dropped (see OwnedEventLog), so that one caller's flood
// of logs, many short ones or a few long ones, drops its own first.
const (
	MaxMemoryLogs     = 4096
	MaxEventsPerLog   = 1024
	MaxMemoryLogBytes = 64 << 20
)

// memoryLogs is an in-process EventLog.
type memoryLogs struct {
	mu   sync.Mutex
	logs *fairlru.Map[*memoryLog]
	bus  *memoryBus
}

type memoryLog struct {
	owner   string
	next    uint64 // the sequence number of the next event
	events  []memoryEvent
	bytes   int
	expires time.Time
}

type memoryEvent struct {
	seq  uint64
	data []byte
}

func (m *memoryLogs) init(bus *memoryBus) {
	m.logs = fairlru.New[*memoryLog](MaxMemoryLogs, MaxMemoryLogBytes)
	m.bus = bus
}

// get returns the unexpired log of stream; m.mu is held.
func (m *memoryLogs) get(stream string, now time.Time) *memoryLog {
	lg, ok := m.logs.Peek(stream)
	if !ok {
		return nil
	}
	if !now.Before(lg.expires) {
		m.logs.Remove(stream)
		return nil
	}
	return lg
}

// append adds data to stream's log, which a new log is owner's (an
// existing one keeps its owner).
func (m *memoryLogs) append(owner, stream string, data []byte, ttl time.Duration, now time.Time) string {
	m.mu.Lock()
	lg := m.get(stream, now)
	if lg == nil {
		lg = &memoryLog{owner: owner, next: 1}
	}
	seq := lg.next
	lg.next++
	if len(lg.events) == MaxEventsPerLog {
		lg.bytes -= len(lg.events[0].data)
		lg.events = append(lg.events[:0], lg.events[1:]...)
	}
	lg.events = append(lg.events, memoryEvent{seq: seq, data: append([]byte(nil), data...)})
	lg.bytes += len(data)
	lg.expires = now.Add(ttl)
	// Written: the most recently written of its owner's, at its new size;
	// the bounds then drop the largest holder's least recently written. A
	// log larger than every bound is not kept.
	_ = m.logs.Put(stream, lg.owner, lg, lg.bytes, false)
	m.mu.Unlock()
	m.bus.publish(eventChannel(stream), nil)
	return strconv.FormatUint(seq, 10)
}

func (m *memoryLogs) read(stream, after string, max int, now time.Time) ([]Event, bool) {
	var n uint64 // the sequence number of after; 0 reads from the start
	if after != "" {
		var err error
		if n, err = strconv.ParseUint(after, 10, 64); err != nil || n == 0 {
			return nil, false
		}
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	lg := m.get(stream, now)
	if lg == nil {
		return nil, after == ""
	}
	first := lg.next // the oldest event held
	if len(lg.events) > 0 {
		first = lg.events[0].seq
	}
	if after != "" && (n >= lg.next || n+1 < first) {
		// after is not an event of this log, or the events right after
		// it were dropped.
		return nil, false
	}
	var out []Event
	for _, e := range lg.events {
		if e.seq <= n {
			continue
		}
		if max > 0 && len(out) == max {
			break
		}
		out = append(out, Event{ID: strconv.FormatUint(e.seq, 10), Data: append([]byte(nil), e.data...)})
	}
	return out, true
}
