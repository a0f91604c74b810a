package redis_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	goredis "github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolexec/toolexec"
	"github.com/toolexec/toolexec/internal/testlog"
	"github.com/toolexec/toolexec/redis"
	"github.com/toolexec/toolexec/redis/redistest"
)

// A paused Redis queues the scripts of admissions whose callers gave up
// (their connection's bytes wait in its socket buffer) and runs them when
// it resumes; each would take a slot no replica owns. A call that ended
// during the pause could not give its slot back either. Neither may hold
// a slot once Redis answers again.
func TestNoSlotIsHeldByAbandonedCallsAfterRedisPauses(t *testing.T) {
	t.Parallel()
	srv := redistest.New(t)
	var logs testlog.Buffer
	entered, hold := make(chan struct{}), make(chan struct{})
	var runs atomic.Int32
	h := func(_ context.Context, _ string, args map[string]any) ([]toolexec.Content, bool, string, error) {
		runs.Add(1)
		if args["hold"] != nil {
			close(entered)
			<-hold
		}
		return []toolexec.Content{toolexec.Text("ok")}, false, "", nil
	}
	one := &toolexec.ConcurrencyLimit{Max: 1}
	withLogs := func(t *testing.T, prefix string) toolexec.Store {
		s, err := redis.Open(context.Background(), srv.URL(), redis.Options{Prefix: prefix, Logger: logs.Logger()})
		require.NoError(t, err)
		t.Cleanup(func() { _ = s.Close() })
		return s
	}
	xs := replicas(t, withLogs, 2, h, []toolexec.Tool{{Name: "one", Options: toolexec.ToolOptions{ConcurrencyLimit: one}}},
		toolexec.WithConcurrencyLimit(toolexec.ConcurrencyLimit{Max: 2}), toolexec.WithLogger(logs.Logger()))
	for _, x := range xs {
		_, err := run(x, "", "one", `{"warm":1}`) // connections and scripts are ready
		require.NoError(t, err)
	}

	held := make(chan error, 1)
	go func() { _, err := run(xs[0], "", "one", `{"hold":1}`); held <- err }()
	<-entered // holds the one slot, taken before the pause
	srv.Pause()
	paused := time.Now()
	// Calls during the pause: each replica sends an admission about once a
	// second (its breaker fails the others at once), which waits in Redis's
	// socket buffer after its caller gave up; the calls run, counted in
	// their process.
	for i := 0; time.Since(paused) < 3*time.Second; i++ {
		_, err := run(xs[i%2], "", "one", fmt.Sprintf(`{"i":%d}`, i))
		require.NoError(t, err)
		time.Sleep(150 * time.Millisecond)
	}
	close(hold) // the held call ends while Redis does not answer: its slot cannot be given back now
	require.NoError(t, <-held)
	srv.Resume()
	time.Sleep(1200 * time.Millisecond) // each replica's breaker lets it try Redis again

	// Every replica's calls run again as soon as the replica tries Redis
	// again (within its breaker's second): no slot is held by a call that
	// no longer runs, so none waits for a lease to run out (15 s).
	for round := range 3 {
		for i, x := range xs {
			ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
			_, err := x.Call(ctx, toolexec.CallRequest{Name: "one", Arguments: json.RawMessage(fmt.Sprintf(`{"after":%d}`, round))})
			cancel()
			require.NoError(t, err, "round %d, replica %d: the tool's one slot is free", round, i)
		}
	}
	assert.Contains(t, logs.String(), "concurrency slots held by calls that no longer run were given back once Redis answered again",
		"the held call's slot, which it could not give back while Redis was paused")
}

// delayHook holds every script for delay before sending it, whatever its
// context says, as a Redis that stopped answering holds what it was sent.
type delayHook struct{ delay atomic.Int64 }

func (d *delayHook) DialHook(next goredis.DialHook) goredis.DialHook { return next }
func (d *delayHook) ProcessHook(next goredis.ProcessHook) goredis.ProcessHook {
	return func(ctx context.Context, cmd goredis.Cmder) error {
		if wait := time.Duration(d.delay.Load()); wait > 0 && strings.HasPrefix(strings.ToLower(cmd.Name()), "eval") {
			time.Sleep(wait)
			ctx = context.WithoutCancel(ctx)
		}
		return next(ctx, cmd)
	}
}
func (d *delayHook) ProcessPipelineHook(next goredis.ProcessPipelineHook) goredis.ProcessPipelineHook {
	return next
}

func TestAnAdmissionThatReachesRedisAfterItsCallerGaveUpTakesNothing(t *testing.T) {
	t.Parallel()
	srv := redistest.New(t)
	client := goredis.NewClient(&goredis.Options{Addr: srv.Addr, ContextTimeoutEnabled: true})
	defer client.Close()
	var hook delayHook
	client.AddHook(&hook)
	s := redis.New(client, redis.Options{Logger: discardLogger()})
	ctx := context.Background()
	a := toolexec.AdmitRequest{SlotKey: "slots:late", SlotMax: 1, SlotTTL: time.Minute,
		RateKey: "rate:late", Rate: toolexec.RateLimit{Rate: 1, Per: time.Hour}}
	warm := toolexec.AdmitRequest{SlotKey: "slots:warm", SlotMax: 1, SlotTTL: time.Minute}
	adm, err := s.Admit(ctx, warm) // the store learns Redis's clock
	require.NoError(t, err)
	require.NoError(t, s.Release(ctx, toolexec.ReleaseRequest{SlotKey: warm.SlotKey, Lease: adm.Lease}))

	hook.delay.Store(int64(300 * time.Millisecond))
	late, cancel := context.WithTimeout(ctx, 100*time.Millisecond)
	_, err = s.Admit(late, a)
	cancel()
	require.Error(t, err, "the admission ran after its caller's deadline")
	hook.delay.Store(0)

	n, err := client.ZCard(ctx, "toolexec:slots:late").Result()
	require.NoError(t, err)
	assert.Zero(t, n, "it took no slot")
	adm, err = s.Admit(ctx, a)
	require.NoError(t, err)
	assert.True(t, adm.Admitted(), "nor a share of the rate: the one call an hour is still there to take")
	assert.NotEmpty(t, adm.Lease)
}
