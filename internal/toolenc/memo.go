package toolenc

import (
	"slices"
	"sync"
)

// Memo keeps one value made from each tool (a document's fragments, say),
// as Cache keeps one encoding: a value is reused while the tool it was made
// from is unchanged (Same), and made again otherwise. The zero value is not
// usable: set Key, Same, Make and Clone. A Memo is safe for concurrent use;
// the values it returns are shared, and nobody may modify them.
type Memo[T, V any] struct {
	// Key names t's slot.
	Key func(t *T) string
	// Same reports whether b would make the value made from a. It must
	// return false when that cannot be told cheaply: such a tool's value is
	// made on every use.
	Same func(a, b *T) bool
	// Make makes t's value.
	Make func(t *T) V
	// Clone copies t for keeping beside its value, deeply enough that Same
	// sees a change the provider makes in place later.
	Clone func(t *T) T

	mu      sync.RWMutex
	entries map[string]*memoEntry[T, V]
}

type memoEntry[T, V any] struct {
	tool  T
	value V
}

// Get returns t's value, made again only when t changed since it was made.
func (m *Memo[T, V]) Get(t *T) V {
	key := m.Key(t)
	m.mu.RLock()
	e, ok := m.entries[key]
	m.mu.RUnlock()
	if ok && m.Same(&e.tool, t) {
		return e.value
	}
	v := m.Make(t)
	if m.Same(t, t) {
		m.mu.Lock()
		if m.entries == nil {
			m.entries = make(map[string]*memoEntry[T, V])
		}
		m.entries[key] = &memoEntry[T, V]{tool: m.Clone(t), value: v}
		m.mu.Unlock()
	}
	return v
}

// Trim bounds the memo by the size of the tool set, as Cache.Trim does.
func (m *Memo[T, V]) Trim(n int) { trim(&m.mu, &m.entries, n) }

// Len returns the number of values held.
func (m *Memo[T, V]) Len() int {
	m.mu.RLock()
	defer m.mu.RUnlock()
	return len(m.entries)
}

// keptKey names a value Kept holds: its form and the list it was made for.
type keptKey struct {
	form int
	all  bool   // made for every item
	hash uint64 // of the positions, when not all
}

type keptEntry struct {
	pos   []int32
	value any
}

// Kept returns the value of form made for the items at positions pos of
// s.Items, in that order (every item when pos is nil), made the
// first time that form of that exact list is asked for by build. It is how a surface
// keeps, per generation of the tool set, a document it serves in several
// forms (each a form number of its own) and to several callers. Per form,
// at most limit lists besides the whole one are kept: when that many are
// kept and another is made, they are all dropped, to be made again on use.
// The value is shared: nobody may modify it.
func Kept[V, T any, K comparable](s *Snapshot[T, K], form int, pos []int32, limit int, build func() V) V {
	key := keptKey{form: form, all: pos == nil}
	if !key.all {
		key.hash = hashPositions(pos)
	}
	s.mu.Lock()
	e := s.kept[key]
	s.mu.Unlock()
	if e != nil && (key.all || slices.Equal(e.pos, pos)) {
		return e.value.(V)
	}
	v := build()
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.kept == nil {
		s.kept = map[keptKey]*keptEntry{}
	}
	if !key.all {
		n := 0
		for k := range s.kept {
			if k.form == form && !k.all {
				n++
			}
		}
		if n >= limit {
			for k := range s.kept {
				if k.form == form && !k.all {
					delete(s.kept, k)
				}
			}
		}
	}
	s.kept[key] = &keptEntry{pos: slices.Clone(pos), value: v}
	return v
}
