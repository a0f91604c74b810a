package gcra_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/toolexec/toolexec/internal/gcra"
)

func TestParams(t *testing.T) {
	for _, tc := range []struct {
		rate                int
		per                 time.Duration
		burst               int
		interval, tolerance time.Duration
		ok                  bool
	}{
		{rate: 10, interval: 100 * time.Millisecond, tolerance: time.Second, ok: true}, // a second; a burst of rate
		{rate: 4, per: time.Second, burst: 2, interval: 250 * time.Millisecond, tolerance: 500 * time.Millisecond, ok: true},
		{rate: 3, per: time.Hour, burst: -1, interval: 20 * time.Minute, tolerance: time.Hour, ok: true},
		{rate: 2_000_000_000, per: time.Second, burst: 1, interval: 1, tolerance: 1, ok: true}, // never below a nanosecond
		{rate: 0, per: time.Second},
		{rate: -1},
	} {
		interval, tolerance, ok := gcra.Params(tc.rate, tc.per, tc.burst)
		assert.Equal(t, tc.ok, ok, "%+v", tc)
		assert.Equal(t, tc.interval, interval, "%+v", tc)
		assert.Equal(t, tc.tolerance, tolerance, "%+v", tc)
	}
}

func TestDecide(t *testing.T) {
	now := time.Unix(1_000_000, 0)
	const interval, tolerance = 250 * time.Millisecond, 500 * time.Millisecond
	for _, tc := range []struct {
		name   string
		tat    time.Time
		newTAT time.Time
		wait   time.Duration
	}{
		{"never seen", time.Time{}, now.Add(interval), 0},
		{"long quiet", now.Add(-time.Hour), now.Add(interval), 0},
		{"owing one interval", now.Add(interval), now.Add(2 * interval), 0},
		{"owing all the burst but one call", now.Add(tolerance - interval), now.Add(tolerance), 0},
		{"owing the whole burst", now.Add(tolerance), now.Add(tolerance), interval},
		{"owing more", now.Add(tolerance + 100*time.Millisecond), now.Add(tolerance + 100*time.Millisecond), 350 * time.Millisecond},
	} {
		newTAT, wait := gcra.Decide(tc.tat, now, interval, tolerance)
		assert.Equal(t, tc.wait, wait, tc.name)
		if tc.wait > 0 {
			assert.Equal(t, tc.tat, newTAT, "%s: a refused call leaves the state as it was", tc.name)
		} else {
			assert.Equal(t, tc.newTAT, newTAT, tc.name)
		}
	}
}
