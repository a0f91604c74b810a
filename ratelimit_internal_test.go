package toolexec

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

func TestGCRAAllowsBurstThenOneCallPerInterval(t *testing.T) {
	l := RateLimit{Rate: 4, Per: time.Second, Burst: 2} // one call every 250ms, two at once
	now := time.Unix(1_000_000, 0)
	var tat time.Time

	var wait time.Duration
	tat, wait = l.decide(tat, now)
	assert.Zero(t, wait)
	tat, wait = l.decide(tat, now)
	assert.Zero(t, wait, "the second call of the burst")
	_, wait = l.decide(tat, now)
	assert.Equal(t, 250*time.Millisecond, wait, "the third waits one interval")

	_, wait = l.decide(tat, now.Add(100*time.Millisecond))
	assert.Equal(t, 150*time.Millisecond, wait)
	tat, wait = l.decide(tat, now.Add(250*time.Millisecond))
	assert.Zero(t, wait, "one interval later, one more call")
	_, wait = l.decide(tat, now.Add(250*time.Millisecond))
	assert.Equal(t, 250*time.Millisecond, wait)

	tat, wait = l.decide(tat, now.Add(time.Hour))
	assert.Zero(t, wait, "after a quiet spell the whole burst is back")
	_, wait = l.decide(tat, now.Add(time.Hour))
	assert.Zero(t, wait)
}

func TestRateLimitDefaults(t *testing.T) {
	interval, tolerance, ok := RateLimit{Rate: 10}.params()
	assert.True(t, ok)
	assert.Equal(t, 100*time.Millisecond, interval, "Per defaults to a second")
	assert.Equal(t, time.Second, tolerance, "Burst defaults to Rate")

	_, _, ok = RateLimit{Rate: 0, Per: time.Second}.params()
	assert.False(t, ok, "Rate 0 does not limit")
	newTAT, wait := RateLimit{}.decide(time.Time{}, time.Now())
	assert.Zero(t, wait)
	assert.True(t, newTAT.IsZero())
}
