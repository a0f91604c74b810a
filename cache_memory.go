package toolexec

import (
	"bytes"
	"context"
	"time"

	lru "github.com/hashicorp/golang-lru/v2"
)

// DefaultCacheSize is how many results a MemoryCache made with a size of 0
// or less holds.
const DefaultCacheSize = 1024

// MemoryCache is the in-process Cache: a bounded least-recently-used store
// (github.com/hashicorp/golang-lru) whose entries each carry their own
// expiry, so tools with different TTLs share it. When full, the least
// recently used entry makes room; an expired entry counts as missing and is
// dropped when read. It is safe for concurrent use.
//
// A MemoryCache lives in one process: replicas behind a load balancer each
// keep their own. Use a shared store behind the Cache interface when they
// must agree. Create one with NewMemoryCache: the zero value is not usable.
type MemoryCache struct {
	lru *lru.Cache[string, memoryEntry]
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
	c, err := lru.New[string, memoryEntry](size)
	if err != nil { // only for size <= 0, excluded above
		panic(err)
	}
	return &MemoryCache{lru: c, now: time.Now}
}

// Get returns the value stored under key unless it has expired. The
// returned slice is shared with the cache and must not be modified.
func (c *MemoryCache) Get(_ context.Context, key string) ([]byte, bool, error) {
	e, ok := c.lru.Get(key)
	if !ok {
		return nil, false, nil
	}
	if !e.expires.IsZero() && !c.now().Before(e.expires) {
		c.lru.Remove(key)
		return nil, false, nil
	}
	return e.value, true, nil
}

// Set stores a copy of value under key for ttl; ttl <= 0 keeps it until it
// is evicted.
func (c *MemoryCache) Set(_ context.Context, key string, value []byte, ttl time.Duration) error {
	e := memoryEntry{value: bytes.Clone(value)}
	if ttl > 0 {
		e.expires = c.now().Add(ttl)
	}
	c.lru.Add(key, e)
	return nil
}

// Len reports how many entries the cache holds, expired ones not yet
// dropped included.
func (c *MemoryCache) Len() int { return c.lru.Len() }

// Purge empties the cache.
func (c *MemoryCache) Purge() { c.lru.Purge() }
