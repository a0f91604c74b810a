package redis_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	goredis "github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolexec/toolexec"
	"github.com/toolexec/toolexec/internal/testserver"
	"github.com/toolexec/toolexec/redis"
	"github.com/toolexec/toolexec/redis/redistest"
)

// open returns a Store on srv with a prefix of its own.
func open(t *testing.T, srv *redistest.Server, prefix string) *redis.Store {
	t.Helper()
	s, err := redis.Open(context.Background(), srv.URL(), redis.Options{Prefix: prefix})
	require.NoError(t, err)
	t.Cleanup(func() { _ = s.Close() })
	return s
}

// storeOpener opens a Store of its own under prefix, for t.
type storeOpener func(t *testing.T, prefix string) toolexec.Store

// on opens stores on srv.
func on(srv *redistest.Server) storeOpener {
	return func(t *testing.T, prefix string) toolexec.Store { return open(t, srv, prefix) }
}

// replicas returns n Executors serving tools with h, each with a Store of
// its own from stores under one prefix: n replicas of one service.
func replicas(t *testing.T, stores storeOpener, n int, h handlerFunc, tools []toolexec.Tool, opts ...toolexec.Option) []*toolexec.Executor {
	t.Helper()
	prefix := strings.ReplaceAll(t.Name(), "/", ".") + ":"
	var xs []*toolexec.Executor
	for range n {
		reg := toolexec.NewRegistry()
		for _, tool := range tools {
			reg.MustAdd(tool, h)
		}
		all := append([]toolexec.Option{toolexec.WithAllowExecute(true), toolexec.WithStore(stores(t, prefix))}, opts...)
		xs = append(xs, toolexec.New(reg, reg, all...))
	}
	return xs
}

func run(x *toolexec.Executor, id, name, args string) (*toolexec.CallToolResult, error) {
	ctx := context.Background()
	if id != "" {
		ctx = toolexec.ContextWithIdentity(ctx, id)
	}
	return x.Call(ctx, toolexec.CallRequest{Name: name, Arguments: json.RawMessage(args)})
}

func TestReplicasShareTheCache(t *testing.T) { replicasShareTheCache(t, on(redistest.New(t))) }

func replicasShareTheCache(t *testing.T, stores storeOpener) {
	var upstream atomic.Int32
	h := func(context.Context, string, map[string]any) ([]toolexec.Content, bool, string, error) {
		n := upstream.Add(1)
		return []toolexec.Content{toolexec.Text("answer " + string(rune('0'+n)))}, false, "", nil
	}
	xs := replicas(t, stores, 3, h, []toolexec.Tool{{Name: "c", Options: toolexec.ToolOptions{Cache: true}}})

	for i, x := range xs {
		res, err := run(x, "alice", "c", `{"q":1}`)
		require.NoError(t, err)
		assert.Equal(t, "answer 1", res.Content[0].(*toolexec.TextContent).Text, "replica %d", i)
	}
	assert.Equal(t, int32(1), upstream.Load(), "the upstream ran once across three replicas")

	res, err := run(xs[1], "bob", "c", `{"q":1}`)
	require.NoError(t, err)
	assert.Equal(t, "answer 2", res.Content[0].(*toolexec.TextContent).Text, "callers stay apart, as in one process")
}

func TestReplicasNeverRunAOneSlotToolTwiceAtOnce(t *testing.T) {
	replicasNeverRunAOneSlotToolTwiceAtOnce(t, on(redistest.New(t)))
}

func replicasNeverRunAOneSlotToolTwiceAtOnce(t *testing.T, stores storeOpener) {
	var running, peak, total atomic.Int32
	h := func(context.Context, string, map[string]any) ([]toolexec.Content, bool, string, error) {
		n := running.Add(1)
		for p := peak.Load(); n > p && !peak.CompareAndSwap(p, n); p = peak.Load() {
		}
		time.Sleep(2 * time.Millisecond)
		running.Add(-1)
		total.Add(1)
		return nil, false, "", nil
	}
	one := &toolexec.ConcurrencyLimit{Max: 1}
	xs := replicas(t, stores, 3, h, []toolexec.Tool{{Name: "one", Options: toolexec.ToolOptions{ConcurrencyLimit: one}}})

	var wg sync.WaitGroup
	for i := range 30 {
		wg.Go(func() {
			_, err := run(xs[i%3], "", "one", `{}`)
			assert.NoError(t, err, "every call waits for the slot and runs")
		})
	}
	wg.Wait()
	assert.Equal(t, int32(30), total.Load())
	assert.Equal(t, int32(1), peak.Load(), "never two at once, whichever replica ran them")
}

func TestReplicasHoldARateTogether(t *testing.T) { replicasHoldARateTogether(t, on(redistest.New(t))) }

func replicasHoldARateTogether(t *testing.T, stores storeOpener) {
	var runs atomic.Int32
	h := func(context.Context, string, map[string]any) ([]toolexec.Content, bool, string, error) {
		runs.Add(1)
		return nil, false, "", nil
	}
	xs := replicas(t, stores, 3, h, []toolexec.Tool{{Name: "r"}}, toolexec.WithRateLimit(toolexec.RateLimit{Rate: 4, Per: time.Hour}))

	var refused []*toolexec.Error
	for i := range 9 {
		_, err := run(xs[i%3], "alice", "r", `{}`)
		if e, ok := toolexec.AsError(err); ok {
			refused = append(refused, e)
		} else {
			require.NoError(t, err)
		}
	}
	assert.Equal(t, int32(4), runs.Load(), "four calls per hour, across the replicas")
	require.Len(t, refused, 5)
	for _, e := range refused {
		assert.Equal(t, toolexec.CodeRateLimited, e.Code)
		assert.Greater(t, e.RetryAfter, 14*time.Minute)
	}
	_, err := run(xs[0], "bob", "r", `{}`)
	assert.NoError(t, err, "another caller, another rate")
}

func TestOpenReportsAnUnreachableRedisClearly(t *testing.T) {
	addr, err := testserver.FreeAddr() // nothing listens there
	require.NoError(t, err)

	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_, err = redis.Open(ctx, "redis://user:s3cret@"+addr+"/0", redis.Options{})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "cannot reach Redis at "+addr)
	assert.NotContains(t, err.Error(), "s3cret", "the password stays out of the error")

	_, err = redis.Open(ctx, "http://user:s3cret@host/0", redis.Options{})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "not a Redis URL")
	assert.NotContains(t, err.Error(), "s3cret")

	for _, url := range []string{`redis://user:s3"cret@host/0`, `redis://user:s3\cret@host/0`, "redis://user:s3cret%zz@host/0"} {
		_, err = redis.Open(ctx, url, redis.Options{})
		require.Error(t, err, url)
		assert.Contains(t, err.Error(), "not a Redis URL", url)
		assert.NotContains(t, err.Error(), "cret", "%s: no part of the password, in any quoting", url)
	}
}

func TestValuesAreBoundedInSize(t *testing.T) {
	srv := redistest.New(t)
	s, err := redis.Open(context.Background(), srv.URL(), redis.Options{MaxValueBytes: 16})
	require.NoError(t, err)
	defer s.Close()
	ctx := context.Background()

	require.NoError(t, s.Set(ctx, "k", make([]byte, 16), time.Minute))
	assert.ErrorIs(t, s.Set(ctx, "k", make([]byte, 17), time.Minute), redis.ErrValueTooLarge)
	_, err = s.Add(ctx, "k2", make([]byte, 17), time.Minute)
	assert.ErrorIs(t, err, redis.ErrValueTooLarge)
	_, err = s.CompareAndSwap(ctx, "k", make([]byte, 16), make([]byte, 17), time.Minute)
	assert.ErrorIs(t, err, redis.ErrValueTooLarge)
}

func TestACallPaysOneRoundTripBeforeItsHandlerAndOneAfter(t *testing.T) {
	srv := redistest.New(t)
	client := goredis.NewClient(&goredis.Options{Addr: srv.Addr, ContextTimeoutEnabled: true})
	defer client.Close()
	var trips redistest.RoundTrips
	client.AddHook(&trips)
	reg := toolexec.NewRegistry()
	var before atomic.Int64
	var runs atomic.Int32
	h := func(context.Context, string, map[string]any) ([]toolexec.Content, bool, string, error) {
		before.Store(trips.Count())
		runs.Add(1)
		return []toolexec.Content{toolexec.Text("ok")}, false, "", nil
	}
	reg.MustAdd(toolexec.Tool{Name: "limited"}, h)
	reg.MustAdd(toolexec.Tool{Name: "cached", Options: toolexec.ToolOptions{Cache: true, CacheShared: true}}, h)
	x := toolexec.New(reg, reg, toolexec.WithAllowExecute(true), toolexec.WithStore(redis.New(client, redis.Options{})),
		toolexec.WithRateLimit(toolexec.RateLimit{Rate: 1000}),
		toolexec.WithConcurrencyLimit(toolexec.ConcurrencyLimit{Max: 8}))
	for _, tool := range []string{"limited", "cached"} { // the scripts are loaded, as in a running service
		_, err := run(x, "a", tool, `{"warm":1}`)
		require.NoError(t, err)
	}

	for _, tc := range []struct {
		tool, args string
		what       string
	}{
		{"limited", `{}`, "the slot given back"},
		{"cached", `{"q":1}`, "the result stored as the slot is given back, pipelined"},
	} {
		trips.Reset()
		_, err := run(x, "a", tc.tool, tc.args)
		require.NoError(t, err)
		assert.Equal(t, int64(1), before.Load(), "%s: the rate, the slot and the cache lookup in one round trip before the handler", tc.tool)
		assert.Equal(t, int64(2), trips.Count(), "%s: then %s, in one more", tc.tool, tc.what)
	}
	trips.Reset()
	runs.Store(0)
	_, err := run(x, "a", "cached", `{"q":1}`)
	require.NoError(t, err)
	assert.Zero(t, runs.Load(), "a hit")
	assert.Equal(t, int64(1), trips.Count(), "a hit: one round trip in all (the rate counted, the value read, no slot taken)")
}

func TestAHitNeedsNoSlotEvenWhenEveryOneIsHeld(t *testing.T) {
	srv := redistest.New(t)
	entered, release := make(chan struct{}), make(chan struct{})
	var runs atomic.Int32
	h := func(_ context.Context, _ string, args map[string]any) ([]toolexec.Content, bool, string, error) {
		runs.Add(1)
		if args["slow"] != nil {
			close(entered)
			<-release
		}
		return []toolexec.Content{toolexec.Text("ok")}, false, "", nil
	}
	xs := replicas(t, on(srv), 2, h, []toolexec.Tool{
		{Name: "c", Options: toolexec.ToolOptions{Cache: true, CacheShared: true,
			ConcurrencyLimit: &toolexec.ConcurrencyLimit{Max: 1, FailFast: true}}},
	})
	_, err := run(xs[0], "", "c", `{"q":1}`)
	require.NoError(t, err)
	done := make(chan error, 1)
	go func() { _, err := run(xs[0], "", "c", `{"slow":1}`); done <- err }()
	<-entered

	res, err := run(xs[1], "", "c", `{"q":1}`)
	require.NoError(t, err, "answered from the cache while the tool's one slot is held on the other replica")
	assert.False(t, res.IsError)
	_, err = run(xs[1], "", "c", `{"q":2}`)
	var te *toolexec.Error
	require.ErrorAs(t, err, &te, "a miss needs the slot, which is held")
	assert.Equal(t, toolexec.CodeUnavailable, te.Code)
	close(release)
	require.NoError(t, <-done)
	assert.Equal(t, int32(2), runs.Load())
}

func TestCallsGoOnWhileRedisIsDownAndRedisComesBack(t *testing.T) {
	srv := redistest.New(t)
	var runs atomic.Int32
	h := func(context.Context, string, map[string]any) ([]toolexec.Content, bool, string, error) {
		runs.Add(1)
		return []toolexec.Content{toolexec.Text("ok")}, false, "", nil
	}
	xs := replicas(t, on(srv), 2, h, []toolexec.Tool{
		{Name: "c", Options: toolexec.ToolOptions{Cache: true, CacheShared: true}},
		{Name: "one", Options: toolexec.ToolOptions{ConcurrencyLimit: &toolexec.ConcurrencyLimit{Max: 1}}},
	}, toolexec.WithTimeout(5*time.Second), toolexec.WithLogger(discardLogger()))

	srv.Kill()
	for _, x := range xs {
		for _, name := range []string{"c", "one"} {
			start := time.Now()
			_, err := run(x, "", name, `{}`)
			require.NoError(t, err, "%s works without Redis", name)
			assert.Less(t, time.Since(start), 5*time.Second, "and does not hang")
		}
	}
	assert.Equal(t, int32(4), runs.Load(), "without Redis, nothing is cached")

	require.NoError(t, srv.Restart())
	require.Eventually(t, func() bool {
		_, err := run(xs[0], "", "c", `{}`)
		return err == nil
	}, 10*time.Second, 10*time.Millisecond)
	before := runs.Load()
	_, err := run(xs[1], "", "c", `{}`)
	require.NoError(t, err)
	assert.Equal(t, before, runs.Load(), "once Redis is back, replicas share the cache again")
}

func TestSubscriptionsSurviveARedisRestart(t *testing.T) {
	srv := redistest.New(t)
	a, b := open(t, srv, "p:"), open(t, srv, "p:")
	got := make(chan string, 16)
	stop, err := a.Subscribe(context.Background(), "ch", func(m []byte) { got <- string(m) })
	require.NoError(t, err)
	defer stop()

	srv.Kill()
	assert.Error(t, b.Publish(context.Background(), "ch", []byte("lost")), "publishing fails while Redis is down")
	require.NoError(t, srv.Restart())
	// go-redis reconnects the subscription and subscribes again; until it
	// has, messages are lost, so publish until one arrives.
	require.Eventually(t, func() bool {
		_ = b.Publish(context.Background(), "ch", []byte("after"))
		select {
		case m := <-got:
			return m == "after"
		case <-time.After(50 * time.Millisecond):
			return false
		}
	}, 20*time.Second, time.Millisecond, "the subscription is back after the restart")
}

func discardLogger() *slog.Logger { return slog.New(slog.DiscardHandler) }

type handlerFunc = func(context.Context, string, map[string]any) ([]toolexec.Content, bool, string, error)

func TestCallsGoOnWhileRedisDoesNotAnswer(t *testing.T) {
	srv := redistest.New(t)
	callsGoOnWhileRedisDoesNotAnswer(t, on(srv), func() *redistest.Server { return srv })
}

// callsGoOnWhileRedisDoesNotAnswer pauses the server that server names
// once a replica on stores is warm.
func callsGoOnWhileRedisDoesNotAnswer(t *testing.T, stores storeOpener, server func() *redistest.Server) {
	var runs atomic.Int32
	h := func(context.Context, string, map[string]any) ([]toolexec.Content, bool, string, error) {
		runs.Add(1)
		return []toolexec.Content{toolexec.Text("ok")}, false, "", nil
	}
	xs := replicas(t, stores, 1, h, []toolexec.Tool{{Name: "both", Options: toolexec.ToolOptions{
		Cache: true, CacheShared: true,
		ConcurrencyLimit: &toolexec.ConcurrencyLimit{Max: 1},
		RateLimit:        &toolexec.RateLimit{Rate: 100},
	}}}, toolexec.WithTimeout(20*time.Second), toolexec.WithLogger(discardLogger()))
	_, err := run(xs[0], "", "both", `{"warm":true}`) // connections and scripts are ready
	require.NoError(t, err)

	srv := server()
	srv.Pause() // no answer at all, as in a partition
	defer srv.Resume()
	start := time.Now()
	for i := range 5 {
		_, err := run(xs[0], "", "both", fmt.Sprintf(`{"i":%d}`, i))
		require.NoError(t, err, "a call runs, uncached and counted in the process, well within its timeout")
	}
	assert.Less(t, time.Since(start), 20*time.Second, "no call waited for its whole timeout")
	assert.Equal(t, int32(6), runs.Load())
}
