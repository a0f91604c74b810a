package oauth

import (
	"sync"
	"time"
)

// rateLimit is a token bucket: allow succeeds at most burst times at once
// and perSecond times per second on average.
type rateLimit struct {
	perSecond, burst float64

	mu       sync.Mutex
	tokens   float64
	last     time.Time // when tokens was last refilled
	lastWarn time.Time // when shouldWarn last said yes
}

func newRateLimit(perSecond, burst float64) *rateLimit {
	return &rateLimit{perSecond: perSecond, burst: burst, tokens: burst}
}

// allow takes a token at now, and reports whether there was one.
func (l *rateLimit) allow(now time.Time) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if !l.last.IsZero() {
		if elapsed := now.Sub(l.last).Seconds(); elapsed > 0 {
			l.tokens = min(l.burst, l.tokens+elapsed*l.perSecond)
		}
	}
	l.last = now
	if l.tokens < 1 {
		return false
	}
	l.tokens--
	return true
}

// shouldWarn reports whether a refusal at now is worth a log line: the
// first, then at most one per interval (at least a second).
func (l *rateLimit) shouldWarn(now time.Time, interval time.Duration) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if !l.lastWarn.IsZero() && now.Sub(l.lastWarn) < max(interval, time.Second) {
		return false
	}
	l.lastWarn = now
	return true
}
