package toolenc

import (
	"runtime"
	"sync"
	"sync/atomic"
	"weak"
)

// Changes counts the changes of its tool set a provider has reported
// (toolexec.ToolsChangedNotifier): its generation. Lists keeps a surface's
// encoded lists for one generation at a time.
type Changes struct{ n atomic.Uint64 }

// Watch returns a Changes counting the changes subscribe reports, for a
// provider that reports them: subscribe is the Executor's OnToolsChanged.
// The subscription ends once the Changes is no longer reachable (its
// handler is gone), so a provider that outlives many handlers does not keep
// them all.
func Watch(subscribe func(f func()) (stop func())) *Changes {
	c := &Changes{}
	wc := weak.Make(c)
	stop := subscribe(func() {
		if c := wc.Value(); c != nil {
			c.n.Add(1)
		}
	})
	runtime.AddCleanup(c, func(stop func()) { stop() }, stop)
	return c
}

// Generation returns how many changes have been reported so far.
func (c *Changes) Generation() uint64 { return c.n.Load() }

// MaxSubsets bounds how many per-caller lists a Snapshot keeps: when that
// many are kept and another is encoded, all are dropped, to be encoded
// again on use. Each is at most as large as the whole list, so a snapshot
// holds at most MaxSubsets+1 lists.
const MaxSubsets = 32

// Lists keeps the items a surface lists, and their encodings, for one
// generation of a provider that reports its changes: a list is made and
// encoded once per change of the tool set instead of on every request.
// The zero value is not usable: use NewLists. A nil *Lists keeps nothing
// (Snapshot returns nil), for a provider that reports no changes. Lists is
// safe for concurrent use.
type Lists[T any, K comparable] struct {
	changes *Changes
	key     func(*T) K
	cur     atomic.Pointer[Snapshot[T, K]]
}

// NewLists returns the lists of a provider whose changes changes counts;
// key names an item among the items of one generation (no two items of a
// generation may have the same key). It returns nil when changes is nil.
func NewLists[T any, K comparable](changes *Changes, key func(*T) K) *Lists[T, K] {
	if changes == nil {
		return nil
	}
	return &Lists[T, K]{changes: changes, key: key}
}

// Snapshot returns the current generation's snapshot, calling load for its
// items when the tool set has changed since the last snapshot was made. It
// returns nil when l is nil.
//
// A snapshot is made from what load returns after the generation is read,
// so it is never older than its generation; one made while a change was
// being reported is replaced on the next call.
func (l *Lists[T, K]) Snapshot(load func() []T) *Snapshot[T, K] {
	if l == nil {
		return nil
	}
	gen := l.changes.Generation()
	if s := l.cur.Load(); s != nil && s.gen == gen {
		return s
	}
	s := &Snapshot[T, K]{gen: gen, key: l.key, Items: load()}
	for {
		old := l.cur.Load()
		if (old != nil && old.gen >= gen) || l.cur.CompareAndSwap(old, s) {
			return s
		}
	}
}

// Snapshot is one generation's items with their encodings, made on first
// use: the whole list, and per-caller lists by the exact items they hold.
type Snapshot[T any, K comparable] struct {
	gen uint64
	key func(*T) K
	// Items are the items listed, shared by every request of the
	// generation: nobody may modify them.
	Items []T

	fullOnce sync.Once
	full     []byte

	indexOnce sync.Once
	index     map[K]int32

	subsets Subsets[[]byte]

	mu sync.Mutex
	// kept are the values Kept made, by form and list.
	kept map[keptKey]*keptEntry
}

// Full returns the encoding of every item, made by encode the first time.
// The bytes are shared: the caller must not modify them.
func (s *Snapshot[T, K]) Full(encode func(items []T) []byte) []byte {
	s.fullOnce.Do(func() { s.full = encode(s.Items) })
	return s.full
}

// Position returns the position in Items of the item whose key is k.
func (s *Snapshot[T, K]) Position(k K) (int32, bool) {
	s.indexOnce.Do(func() {
		s.index = make(map[K]int32, len(s.Items))
		for i := range s.Items {
			s.index[s.key(&s.Items[i])] = int32(i)
		}
	})
	p, ok := s.index[k]
	return p, ok
}

// Subset returns the encoding of the list of the items at positions pos of
// Items, in that order, made by encode the first time that exact list is
// asked for (see MaxSubsets). The bytes are shared: the caller must not
// modify them.
func (s *Snapshot[T, K]) Subset(pos []int32, encode func() []byte) []byte {
	return s.subsets.Get(0, pos, encode)
}

// hashPositions is FNV-1a over pos. A collision costs an encoding, never a
// wrong answer: Subset compares the positions themselves.
func hashPositions(pos []int32) uint64 {
	h := uint64(14695981039346656037)
	for _, p := range pos {
		for range 4 {
			h ^= uint64(byte(p))
			h *= 1099511628211
			p >>= 8
		}
	}
	return h
}
