package toolexec

import (
	"bytes"
	"context"
	"sync"
	"time"

	"github.com/hashicorp/golang-lru/v2/simplelru"
)

// taskMemory is the KV that holds an Executor's tasks when it has no shared
// store: a least-recently-used map bounded both by its count of entries and
// by the bytes of their keys and values, each entry carrying its own
// expiry. Past either bound the least recently used entries are dropped;
// an expired entry counts as missing, and is dropped when read or when it
// is the least recently used.
//
// Tasks have a store of their own, rather than the Executor's MemoryStore,
// so that cached results never push tasks out, nor tasks cached results.
type taskMemory struct {
	mu       sync.Mutex
	lru      *simplelru.LRU[string, taskEntry]
	bytes    int // keys and values held
	maxBytes int
}

type taskEntry struct {
	value   []byte
	expires time.Time
}

// taskEntryOverhead is what an entry costs beyond its key and value, as
// counted against maxBytes: the LRU's list element and map slot, the
// entry's expiry and slice header.
const taskEntryOverhead = 256

func newTaskMemory(maxEntries, maxBytes int) *taskMemory {
	m := &taskMemory{maxBytes: maxBytes}
	m.lru, _ = simplelru.NewLRU[string, taskEntry](maxEntries, func(key string, e taskEntry) {
		m.bytes -= entrySize(key, e.value)
	})
	return m
}

func entrySize(key string, value []byte) int { return len(key) + len(value) + taskEntryOverhead }

// live returns key's unexpired entry; m.mu is held.
func (m *taskMemory) live(key string, now time.Time) (taskEntry, bool) {
	e, ok := m.lru.Get(key)
	if !ok {
		return e, false
	}
	if !now.Before(e.expires) {
		m.lru.Remove(key)
		return e, false
	}
	return e, true
}

// put stores value under key until now+ttl, then drops the least recently
// used entries while the bytes held are over the bound; m.mu is held. A
// value too large to fit at all is not stored.
func (m *taskMemory) put(key string, value []byte, ttl time.Duration, now time.Time) {
	size := entrySize(key, value)
	if size > m.maxBytes {
		m.lru.Remove(key)
		return
	}
	if old, ok := m.lru.Peek(key); ok {
		// Add replaces the entry without calling the eviction callback.
		m.bytes -= entrySize(key, old.value)
	}
	m.lru.Add(key, taskEntry{value: bytes.Clone(value), expires: now.Add(ttl)})
	m.bytes += size
	for m.bytes > m.maxBytes {
		if _, _, ok := m.lru.RemoveOldest(); !ok {
			break
		}
	}
}

func (m *taskMemory) Get(_ context.Context, key string) ([]byte, bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	e, ok := m.live(key, time.Now())
	return e.value, ok, nil
}

func (m *taskMemory) Set(_ context.Context, key string, value []byte, ttl time.Duration) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.put(key, value, ttl, time.Now())
	return nil
}

func (m *taskMemory) Add(_ context.Context, key string, value []byte, ttl time.Duration) (bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	now := time.Now()
	if _, ok := m.live(key, now); ok {
		return false, nil
	}
	m.put(key, value, ttl, now)
	return true, nil
}

func (m *taskMemory) CompareAndSwap(_ context.Context, key string, old, value []byte, ttl time.Duration) (bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	now := time.Now()
	cur, ok := m.live(key, now)
	if !ok || !bytes.Equal(cur.value, old) {
		return false, nil
	}
	m.put(key, value, ttl, now)
	return true, nil
}

func (m *taskMemory) Delete(_ context.Context, key string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.lru.Remove(key)
	return nil
}
