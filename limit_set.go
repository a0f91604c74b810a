package toolexec

import "sync"

// maxIdleLimiters is how many per-tool limiters with no call in flight an
// Executor keeps for reuse. Past it, a limiter is dropped as soon as its
// last call ends, so a provider that mints tool names cannot grow memory
// without bound: the set holds at most maxIdleLimiters limiters plus one
// per call in flight.
const maxIdleLimiters = 1024

// limiterSet holds the limiters of tools with their own ConcurrencyLimit,
// one per tool version, each counted by the calls holding it. The zero
// value is empty and ready.
type limiterSet struct {
	mu sync.Mutex
	m  map[toolKey]*countedLimiter
}

type countedLimiter struct {
	*limiter
	refs int // calls holding it; guarded by limiterSet.mu
}

// get returns the limiter of key configured as want, made or replaced as
// needed, and counts the caller as holding it until put.
func (s *limiterSet) get(key toolKey, want ConcurrencyLimit) *countedLimiter {
	s.mu.Lock()
	defer s.mu.Unlock()
	c := s.m[key]
	if c == nil || c.cfg != want {
		// New, or the tool's limit changed: calls holding the old one
		// finish on it.
		c = &countedLimiter{limiter: newLimiter(want)}
		if s.m == nil {
			s.m = make(map[toolKey]*countedLimiter)
		}
		s.m[key] = c
	}
	c.refs++
	return c
}

// put ends a hold taken by get. An idle limiter is dropped when the set is
// over maxIdleLimiters, or when it has been replaced.
func (s *limiterSet) put(key toolKey, c *countedLimiter) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if c.refs--; c.refs > 0 {
		return
	}
	if cur := s.m[key]; cur == c && len(s.m) > maxIdleLimiters {
		delete(s.m, key)
	}
}

// len reports how many limiters the set holds.
func (s *limiterSet) len() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.m)
}
