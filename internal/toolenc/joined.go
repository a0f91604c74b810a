package toolenc

import (
	"slices"
	"sync"
)

// Joined is a list's encoding that pages can be cut from: the encodings of
// its items joined by commas, with where each item's ends, so that any run
// of items is one slice of the same bytes, shared by every request that
// lists it.
type Joined struct {
	data []byte  // each item's encoding followed by a comma
	ends []int32 // ends[i]: the end of item i's part of data; an item left out adds nothing
}

// Join encodes items in order (positions in items; nil: items as they are)
// from c's encodings, as AppendList does: an item that cannot be encoded is
// left out, and skip is called with it and the error. The result counts
// every item of order, left out or not, so that a page of positions is the
// same whether or not an item in it could be encoded.
func (c *Cache[T]) Join(items []T, order []int32, skip func(t *T, err error)) *Joined {
	n := len(items)
	at := func(i int) *T { return &items[i] }
	if order != nil {
		n = len(order)
		at = func(i int) *T { return &items[order[i]] }
	}
	parts, size := c.encodings(n, at, skip)
	j := &Joined{data: make([]byte, 0, size+n), ends: make([]int32, n)}
	for i, data := range parts {
		if data != nil {
			j.data = append(append(j.data, data...), ',')
		}
		j.ends[i] = int32(len(j.data))
	}
	return j
}

// Len is the number of items, those left out included.
func (j *Joined) Len() int { return len(j.ends) }

// Slice returns the items from start to end (0 ≤ start ≤ end ≤ Len) as the
// inside of a JSON array: their encodings separated by commas. The bytes
// are shared: the caller must not modify them.
func (j *Joined) Slice(start, end int) []byte {
	if start >= end {
		return nil
	}
	from := int32(0)
	if start > 0 {
		from = j.ends[start-1]
	}
	b := j.data[from:j.ends[end-1]]
	if len(b) > 0 {
		b = b[:len(b)-1] // the last item's comma
	}
	return b
}

// Subsets keeps values made from exact lists of items (per-caller lists),
// keyed by a kind the caller chooses and the items' positions in order:
// at most MaxSubsets, all dropped when another is made past that, to be
// made again on use. The zero value is empty and ready; a Subsets is safe
// for concurrent use.
type Subsets[V any] struct {
	mu sync.Mutex
	m  map[uint64]*subset[V]
}

// subset is one kept value, with the kind and positions it was made for.
type subset[V any] struct {
	kind uint8
	pos  []int32
	v    V
}

// Get returns the value kept for kind and pos, calling make for it (outside
// any lock) the first time that exact list is asked for.
func (s *Subsets[V]) Get(kind uint8, pos []int32, make func() V) V {
	h := hashPositions(pos) ^ uint64(kind)*0x9e3779b97f4a7c15
	s.mu.Lock()
	e := s.m[h]
	s.mu.Unlock()
	if e != nil && e.kind == kind && slices.Equal(e.pos, pos) {
		return e.v
	}
	v := make()
	s.mu.Lock()
	if len(s.m) >= MaxSubsets {
		s.m = nil
	}
	if s.m == nil {
		s.m = map[uint64]*subset[V]{}
	}
	s.m[h] = &subset[V]{kind: kind, pos: slices.Clone(pos), v: v}
	s.mu.Unlock()
	return v
}
