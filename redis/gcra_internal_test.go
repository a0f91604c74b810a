package redis

import (
	"context"
	"fmt"
	"strconv"
	"testing"
	"time"

	goredis "github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolexec/toolexec"
	"github.com/toolexec/toolexec/internal/gcra"
	"github.com/toolexec/toolexec/redis/redistest"
)

// TestAdmitScriptCountsRatesAsGoDoes runs admitScript's rate against a
// real Redis for a table of rates and states, and checks each answer
// against gcra.Decide, the arithmetic MemoryStore counts with, given the
// same parameters and Redis's own clock.
func TestAdmitScriptCountsRatesAsGoDoes(t *testing.T) {
	srv := redistest.New(t)
	client := goredis.NewClient(&goredis.Options{Addr: srv.Addr})
	t.Cleanup(func() { _ = client.Close() })
	ctx := context.Background()

	rates := []toolexec.RateLimit{
		{Rate: 4, Per: time.Second, Burst: 2},
		{Rate: 10},
		{Rate: 3, Per: time.Hour},
		{Rate: 7, Per: time.Second, Burst: 3},              // an interval of a fraction of a microsecond
		{Rate: 1_000_000, Per: time.Second, Burst: 1},      // one microsecond
		{Rate: 1_000_000_000, Per: time.Second, Burst: 10}, // below Redis's clock: one microsecond
	}
	n, refused := 0, 0
	for _, rate := range rates {
		iv, tol, ok := gcraParams(rate)
		require.True(t, ok)
		interval, tolerance := time.Duration(iv)*time.Microsecond, time.Duration(tol)*time.Microsecond
		// The state before the call, as offsets from Redis's clock: none
		// (a caller never seen), long past, now, and owing less than,
		// about, and more than the burst allows.
		for _, owed := range []*time.Duration{nil, new(-10 * time.Second), new(time.Duration(0)), new(interval / 2),
			new(tolerance - interval), new(tolerance - interval + time.Millisecond), new(tolerance), new(3 * tolerance)} {
			n++
			name := rate.String() + "/never seen"
			if owed != nil {
				name = fmt.Sprintf("%s/owing %s", rate, *owed)
			}
			t.Run(name, func(t *testing.T) {
				key := fmt.Sprintf("gcra-test:%d", n)
				var tat time.Time // zero: never seen
				if owed != nil {
					now, err := client.Time(ctx).Result()
					require.NoError(t, err)
					tat = now.Add(*owed).Truncate(time.Microsecond)
					require.NoError(t, client.Set(ctx, key, strconv.FormatInt(tat.UnixMicro(), 10), time.Hour).Err())
				}
				res, err := admitScript.Run(ctx, client, []string{key, "gcra-test:noslot", "gcra-test:noread"},
					"1", iv, tol, "0", 0, 0, "", "0", 0).Slice()
				require.NoError(t, err)
				require.Len(t, res, 3)
				code, wait, now := res[0].(int64), res[1].(int64), time.UnixMicro(res[2].(int64))

				wantTAT, wantWait := gcra.Decide(tat, now, interval, tolerance)
				stored, err := client.Get(ctx, key).Int64()
				require.NoError(t, err)
				if wantWait > 0 {
					refused++
					assert.Equal(t, int64(1), code, "refused")
					assert.Equal(t, wantWait.Microseconds(), wait, "the wait")
					assert.Equal(t, tat.UnixMicro(), stored, "a refused call changes nothing")
					return
				}
				assert.Equal(t, int64(0), code, "admitted")
				assert.Equal(t, wantTAT.UnixMicro(), stored, "the new theoretical arrival time")
			})
		}
	}
	assert.True(t, refused > 0 && refused < n, "the table holds calls refused and calls admitted (%d of %d refused)", refused, n)
}
