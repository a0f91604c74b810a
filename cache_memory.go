package toolexec

import (
	"bytes"
	"context"
	"sync"
	"time"

	"github.com/hashicorp/golang-lru/v2/simplelru"
)

// DefaultCacheSize is how many results a MemoryCache made with a size of 0
// or less holds.
const DefaultCacheSize = 1024

// MemoryCache is the in-process Cache: a bounded least-recently-used store
// (github.com/hashicorp/golang-lru) whose entries each carry their own
// expiry, so tools with different TTLs share it. When full, the least
// recently used entry makes room; an expired entry counts as missing and is
// dropped when read. It is also a KV, whose atomic operations are atomic
// within the process. It is safe for concurrent use.
//
// A MemoryCache lives in one process: replicas behind a load balancer each
// keep their own. Use a shared store (WithStore) when they must agree.
// Create one with NewMemoryCache: the zero value is not usable.
type MemoryCache struct {
	mu  sync.Mutex
	lru *simplelru.LRU[string, memoryEntry]
	now func() time.Time // time.Now; tests replace it
}

type memoryEntry struct {
	value   []byte
	expires time.Time // zero: never
}

// NewMemoryCache returns an empty MemoryCache holding up to size entries;
// size <= 0 means DefaultCacheSize.
func NewMemoryCache(size int) *MemoryCache {
	if size <= 0 {
		size = DefaultCacheSize
	}
	c, err := simplelru.NewLRU[string, memoryEntry](size, nil)
	if err != nil { // only for size <= 0, excluded above
		panic(err)
	}
	return &MemoryCache{lru: c, now: time.Now}
}

// live returns the unexpired entry of key; c.mu is held.
func (c *MemoryCache) live(key string) (memoryEntry, bool) {
	e, ok := c.lru.Get(key)
	if !ok {
		return e, false
	}
	if !e.expires.IsZero() && !c.now().Before(e.expires) {
		c.lru.Remove(key)
		return e, false
	}
	return e, true
}

// entry is value's entry for ttl: a copy of value, and its expiry.
func (c *MemoryCache) entry(value []byte, ttl time.Duration) memoryEntry {
	e := memoryEntry{value: bytes.Clone(value)}
	if e.value == nil {
		e.value = []byte{}
	}
	if ttl > 0 {
		e.expires = c.now().Add(ttl)
	}
	return e
}

// Get returns the value stored under key unless it has expired. The
// returned slice is shared with the cache and must not be modified.
func (c *MemoryCache) Get(_ context.Context, key string) ([]byte, bool, error) {
	c.mu.Lock()
	e, ok := c.live(key)
	c.mu.Unlock()
	return e.value, ok, nil
}

// Set stores a copy of value under key for ttl; ttl <= 0 keeps it until it
// is evicted.
func (c *MemoryCache) Set(_ context.Context, key string, value []byte, ttl time.Duration) error {
	e := c.entry(value, ttl)
	c.mu.Lock()
	c.lru.Add(key, e)
	c.mu.Unlock()
	return nil
}

// Add stores a copy of value under key for ttl when key holds no unexpired
// value, and reports whether it did.
func (c *MemoryCache) Add(_ context.Context, key string, value []byte, ttl time.Duration) (bool, error) {
	e := c.entry(value, ttl)
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.live(key); ok {
		return false, nil
	}
	c.lru.Add(key, e)
	return true, nil
}

// CompareAndSwap stores a copy of value under key for ttl when key holds
// exactly old, and reports whether it did.
func (c *MemoryCache) CompareAndSwap(_ context.Context, key string, old, value []byte, ttl time.Duration) (bool, error) {
	e := c.entry(value, ttl)
	c.mu.Lock()
	defer c.mu.Unlock()
	cur, ok := c.live(key)
	if !ok || !bytes.Equal(cur.value, old) {
		return false, nil
	}
	c.lru.Add(key, e)
	return true, nil
}

// Delete removes key.
func (c *MemoryCache) Delete(_ context.Context, key string) error {
	c.mu.Lock()
	c.lru.Remove(key)
	c.mu.Unlock()
	return nil
}

// Len reports how many entries the cache holds, expired ones not yet
// dropped included.
func (c *MemoryCache) Len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.lru.Len()
}

// Purge empties the cache.
func (c *MemoryCache) Purge() {
	c.mu.Lock()
	c.lru.Purge()
	c.mu.Unlock()
}
