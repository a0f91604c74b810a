// Package fairlru is a map bounded by its count of entries and by their
// bytes, whose evictions fall on whoever holds the most: each entry has an
// owner, and when room is needed the least recently used entry of the
// owner holding the largest share of either bound goes first (its
// evictable entries over the count bound, or their bytes over the bytes
// bound, whichever is more). One owner that floods the map, with many
// small entries or a few large ones, therefore evicts its own entries
// before anyone else's. An entry may be pinned: it is never evicted, only
// removed.
//
// A Map is not safe for concurrent use; its user holds a lock around it.
// Every operation costs O(log owners) beyond the entries it evicts.
package fairlru

import (
	"container/heap"
	"errors"
)

// ErrFull is Put's error when a new entry cannot be made room for: every
// other entry the bounds would have it evict is pinned.
var ErrFull = errors.New("fairlru: full of pinned entries")

// Map is the bounded map. Create one with New.
type Map[V any] struct {
	maxEntries, maxBytes int
	entries              map[string]*entry[V]
	owners               map[string]*owner[V]
	heap                 ownerHeap[V] // owners holding evictable entries, the largest share first
	bytes                int
}

type entry[V any] struct {
	key        string
	owner      *owner[V]
	value      V
	size       int
	pinned     bool
	prev, next *entry[V] // in the owner's list of evictable entries
}

// owner is one owner's share: its evictable entries, least recently used
// first.
type owner[V any] struct {
	name       string
	entries    int // pinned or not
	pinned     int
	evictable  int     // bytes of the entries in the list
	evictableN int     // entries in the list
	share      float64 // of the bounds its evictable entries hold (fix)
	head, tail *entry[V]
	index      int // in the heap; -1 when out of it
}

// New returns a Map of at most maxEntries entries and maxBytes bytes
// (the sizes its entries are given), pinned entries aside (see Put).
func New[V any](maxEntries, maxBytes int) *Map[V] {
	return &Map[V]{maxEntries: maxEntries, maxBytes: maxBytes,
		entries: make(map[string]*entry[V]), owners: make(map[string]*owner[V])}
}

// Len returns how many entries the map holds.
func (m *Map[V]) Len() int { return len(m.entries) }

// Bytes returns the bytes its entries hold.
func (m *Map[V]) Bytes() int { return m.bytes }

// Pinned returns how many pinned entries owner holds.
func (m *Map[V]) Pinned(ownerName string) int {
	o := m.owners[ownerName]
	if o == nil {
		return 0
	}
	return o.pinned
}

// Get returns key's value and marks it the most recently used of its
// owner's.
func (m *Map[V]) Get(key string) (V, bool) {
	e, ok := m.entries[key]
	if !ok {
		var zero V
		return zero, false
	}
	if !e.pinned {
		o := e.owner
		o.unlink(e)
		o.push(e)
	}
	return e.value, true
}

// Peek returns key's value without marking it used.
func (m *Map[V]) Peek(key string) (V, bool) {
	e, ok := m.entries[key]
	if !ok {
		var zero V
		return zero, false
	}
	return e.value, true
}

// Put stores value under key for owner, taking size bytes, then evicts
// entries, the least recently used of the owner holding the largest share
// of the bounds first (see the package's doc), until the map is within its bounds again. A
// pinned entry is never evicted.
//
// When a new key cannot be made room for (all the entries left are
// pinned), it is not stored, and Put returns ErrFull. A key that was held
// already is always stored, even if that leaves the map over its bounds
// because everything else is pinned: a pinned entry's user bounds how many
// it pins. An unpinned entry larger than the bounds is not stored
// (ErrFull); a key held before is then removed.
func (m *Map[V]) Put(key, ownerName string, value V, size int, pinned bool) error {
	_, existed := m.entries[key]
	m.Remove(key)
	if !pinned && (size > m.maxBytes || m.maxEntries < 1) {
		return ErrFull
	}
	o := m.owners[ownerName]
	if o == nil {
		o = &owner[V]{name: ownerName, index: -1}
		m.owners[ownerName] = o
	}
	e := &entry[V]{key: key, owner: o, value: value, size: size, pinned: pinned}
	m.entries[key] = e
	m.bytes += size
	o.entries++
	if pinned {
		o.pinned++
	} else {
		o.push(e)
		m.fix(o)
	}
	for len(m.entries) > m.maxEntries || m.bytes > m.maxBytes {
		if len(m.heap) == 0 {
			if existed {
				return nil
			}
			m.Remove(key)
			return ErrFull
		}
		victim := m.heap[0].head
		m.Remove(victim.key)
		if victim == e {
			return ErrFull
		}
	}
	return nil
}

// Remove drops key, if it is held.
func (m *Map[V]) Remove(key string) {
	e, ok := m.entries[key]
	if !ok {
		return
	}
	delete(m.entries, key)
	m.bytes -= e.size
	o := e.owner
	o.entries--
	if e.pinned {
		o.pinned--
	} else {
		o.unlink(e)
		m.fix(o)
	}
	if o.entries == 0 {
		delete(m.owners, o.name)
	}
}

// Each calls f for every entry, in no order, until f returns false. f must
// not change the map.
func (m *Map[V]) Each(f func(key string, value V) bool) {
	for k, e := range m.entries {
		if !f(k, e.value) {
			return
		}
	}
}

// fix puts o where its share of the bounds places it in the heap, or out
// of it: the larger of its evictable entries' share of the count bound and
// their bytes' share of the bytes bound, so that an owner holding most of
// the entries is the largest holder when the count is overrun even if its
// entries are small.
func (m *Map[V]) fix(o *owner[V]) {
	o.share = max(float64(o.evictableN)/float64(max(m.maxEntries, 1)), float64(o.evictable)/float64(max(m.maxBytes, 1)))
	switch {
	case o.head == nil && o.index >= 0:
		heap.Remove(&m.heap, o.index)
	case o.head != nil && o.index < 0:
		heap.Push(&m.heap, o)
	case o.head != nil:
		heap.Fix(&m.heap, o.index)
	}
}

func (o *owner[V]) push(e *entry[V]) {
	e.prev, e.next = o.tail, nil
	if o.tail != nil {
		o.tail.next = e
	} else {
		o.head = e
	}
	o.tail = e
	o.evictable += e.size
	o.evictableN++
}

func (o *owner[V]) unlink(e *entry[V]) {
	if e.prev != nil {
		e.prev.next = e.next
	} else {
		o.head = e.next
	}
	if e.next != nil {
		e.next.prev = e.prev
	} else {
		o.tail = e.prev
	}
	e.prev, e.next = nil, nil
	o.evictable -= e.size
	o.evictableN--
}

// ownerHeap orders owners by their share of the bounds (owner.share), the
// largest first.
type ownerHeap[V any] []*owner[V]

func (h ownerHeap[V]) Len() int           { return len(h) }
func (h ownerHeap[V]) Less(i, j int) bool { return h[i].share > h[j].share }
func (h ownerHeap[V]) Swap(i, j int) {
	h[i], h[j] = h[j], h[i]
	h[i].index, h[j].index = i, j
}

func (h *ownerHeap[V]) Push(x any) {
	o := x.(*owner[V])
	o.index = len(*h)
	*h = append(*h, o)
}

func (h *ownerHeap[V]) Pop() any {
	old := *h
	o := old[len(old)-1]
	old[len(old)-1] = nil
	*h = old[:len(old)-1]
	o.index = -1
	return o
}
