// Package toolenc keeps the JSON encoding of each tool a surface lists, so
// that a list is assembled from encodings made once instead of encoding
// every tool on every request.
//
// An encoding is reused only while the tool it was made from is unchanged:
// each lookup compares the tool the provider gives now with the one the
// encoding was made from (see Cache.Same). That makes the cache correct for
// any tool provider, whether or not it reports changes, and for per-caller
// lists (a filtered list is assembled from the same per-tool encodings). The
// comparison is cheap: a string or a schema is compared with one memory
// comparison, and strings the provider hands out again are the same memory,
// where the comparison stops at once.
//
// For a provider that reports its changes, Lists goes further: it keeps
// the items listed and the encoded lists themselves, per generation of the
// tool set, so a list request neither asks the provider for its tools nor
// assembles anything until the next change.
package toolenc

import (
	"slices"
	"sync"
)

// Cache holds one encoding per key (a tool's name, or its name and
// version). The zero value is not usable: set Key, Same, Encode and Clone. A Cache
// is safe for concurrent use.
type Cache[T any] struct {
	// Key names t's slot in the cache.
	Key func(t *T) string
	// Same reports whether b encodes exactly as a, the tool the cached
	// encoding was made from. It must return false when that cannot be told
	// cheaply (a tool with a _meta map, say): such a tool is encoded on every
	// use.
	Same func(a, b *T) bool
	// Encode encodes t as the surface lists it: compact JSON, valid UTF-8,
	// escaped as encoding/json escapes it.
	Encode func(t *T) ([]byte, error)
	// Clone copies t for keeping beside its encoding, deeply enough that
	// memory the provider may change in place later (schema bytes, hints
	// behind pointers) is not shared with it, so Same sees such a change.
	Clone func(t *T) T

	mu      sync.RWMutex
	entries map[string]*entry[T]
}

type entry[T any] struct {
	tool T
	data []byte
}

// Get returns t's encoding, from the cache when t is unchanged since it was
// encoded. The bytes are shared: the caller must not modify them.
func (c *Cache[T]) Get(t *T) ([]byte, error) {
	key := c.Key(t)
	c.mu.RLock()
	e, ok := c.entries[key]
	c.mu.RUnlock()
	if ok && c.Same(&e.tool, t) {
		return e.data, nil
	}
	return c.encode(key, t)
}

// encode encodes t and keeps the encoding when t can be compared.
func (c *Cache[T]) encode(key string, t *T) ([]byte, error) {
	data, err := c.Encode(t)
	if err != nil {
		return nil, err
	}
	if c.Same(t, t) {
		c.mu.Lock()
		if c.entries == nil {
			c.entries = make(map[string]*entry[T])
		}
		c.entries[key] = &entry[T]{tool: c.Clone(t), data: data}
		c.mu.Unlock()
	}
	return data, nil
}

// AppendList appends the encodings of tools to dst, separated by commas,
// and returns the extended slice, grown once to its final size plus room
// bytes more (for what the caller appends after the list). A tool that cannot be
// encoded is left out, and skip is called with it and the error, so that
// one broken tool does not hide the others.
func (c *Cache[T]) AppendList(dst []byte, tools []T, room int, skip func(t *T, err error)) []byte {
	parts, size := c.encodings(len(tools), func(i int) *T { return &tools[i] }, skip)
	dst = slices.Grow(dst, size+len(tools)+room)
	first := true
	for _, data := range parts {
		if data == nil {
			continue
		}
		if !first {
			dst = append(dst, ',')
		}
		first = false
		dst = append(dst, data...)
	}
	return dst
}

// encodings returns the encodings of the n tools at(0), ..., at(n-1), from
// the cache where each is unchanged, and their total size; a tool that
// cannot be encoded has a nil encoding, and skip is called with it.
func (c *Cache[T]) encodings(n int, at func(i int) *T, skip func(t *T, err error)) (parts [][]byte, size int) {
	parts = make([][]byte, n)
	c.mu.RLock()
	for i := range n {
		t := at(i)
		key := c.Key(t)
		if e, ok := c.entries[key]; ok && c.Same(&e.tool, t) {
			parts[i] = e.data
			size += len(e.data)
			continue
		}
		c.mu.RUnlock()
		data, err := c.encode(key, t)
		c.mu.RLock()
		if err != nil {
			skip(t, err)
			continue
		}
		parts[i] = data
		size += len(data)
	}
	c.mu.RUnlock()
	return parts, size
}

// Trim bounds the cache by the size of the tool set: when it holds more
// than twice n entries plus a margin (tools that were renamed or removed
// leave theirs behind), it drops them all, to be encoded again on use.
// Surfaces call it with the number of tools the provider lists.
func (c *Cache[T]) Trim(n int) { trim(&c.mu, &c.entries, n) }

// trim drops every entry of *entries, guarded by mu, when there are more
// than twice n plus a margin.
func trim[M ~map[string]E, E any](mu *sync.RWMutex, entries *M, n int) {
	mu.RLock()
	over := len(*entries) > 2*n+256
	mu.RUnlock()
	if over {
		mu.Lock()
		if len(*entries) > 2*n+256 {
			*entries = nil
		}
		mu.Unlock()
	}
}

// Len returns the number of encodings held.
func (c *Cache[T]) Len() int {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return len(c.entries)
}
