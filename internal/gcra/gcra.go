// Package gcra is the arithmetic of the generic cell rate algorithm that
// rate limits count with, once for every store: toolexec's MemoryStore
// runs it as it is, and the Redis store passes Params to a Lua script
// that does the same arithmetic in Redis (its tests check that the two
// agree).
//
// A rate of Rate calls per Per allows one call every interval (Per/Rate),
// and lets calls run up to tolerance (interval × Burst) ahead of it: a
// rate's whole state is its theoretical arrival time (TAT), the moment
// its caller would have caught up had it called once per interval.
package gcra

import "time"

// Params returns the emission interval of rate calls per per (a second
// when per <= 0), at least a nanosecond, and the burst tolerance, burst
// intervals (rate when burst <= 0). ok is false when rate <= 0: no limit.
func Params(rate int, per time.Duration, burst int) (interval, tolerance time.Duration, ok bool) {
	if rate <= 0 {
		return 0, 0, false
	}
	if per <= 0 {
		per = time.Second
	}
	if burst <= 0 {
		burst = rate
	}
	interval = max(per/time.Duration(rate), 1)
	return interval, interval * time.Duration(burst), true
}

// Decide decides one call at now against tat, the rate's theoretical
// arrival time (the zero time, or any time before now, for a caller with
// nothing owed): it returns the new tat when the call is allowed (wait is
// 0), or tat unchanged and how long until a call would be allowed.
func Decide(tat, now time.Time, interval, tolerance time.Duration) (newTAT time.Time, wait time.Duration) {
	if tat.Before(now) {
		tat = now
	}
	newTAT = tat.Add(interval)
	if over := newTAT.Sub(now) - tolerance; over > 0 {
		return tat, over
	}
	return newTAT, 0
}
