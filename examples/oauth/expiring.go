package main

import "time"

// expiring is a map whose entries expire, holding at most max of them:
// putting one more first drops the expired ones, then, if it is still
// full, the one that expires first. It is not safe for concurrent use (the
// provider's mutex guards every one).
type expiring[V any] struct {
	max   int
	items map[string]expiringEntry[V]
}

type expiringEntry[V any] struct {
	v       V
	expires time.Time
}

func newExpiring[V any](max int) *expiring[V] {
	return &expiring[V]{max: max, items: map[string]expiringEntry[V]{}}
}

// put stores v under key for ttl.
func (m *expiring[V]) put(key string, v V, ttl time.Duration) {
	now := time.Now()
	if _, ok := m.items[key]; !ok && len(m.items) >= m.max {
		first := ""
		var firstAt time.Time
		for k, e := range m.items {
			if now.After(e.expires) {
				delete(m.items, k)
				continue
			}
			if first == "" || e.expires.Before(firstAt) {
				first, firstAt = k, e.expires
			}
		}
		if len(m.items) >= m.max {
			delete(m.items, first)
		}
	}
	m.items[key] = expiringEntry[V]{v: v, expires: now.Add(ttl)}
}

// get returns the value under key, unless it has expired.
func (m *expiring[V]) get(key string) (V, bool) {
	e, ok := m.items[key]
	if !ok || time.Now().After(e.expires) {
		delete(m.items, key)
		var zero V
		return zero, false
	}
	return e.v, true
}

// take returns the value under key, unless it has expired, and removes it.
func (m *expiring[V]) take(key string) (V, bool) {
	v, ok := m.get(key)
	delete(m.items, key)
	return v, ok
}
