package toolexec_test

import (
	"context"
	"errors"
	"log/slog"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolexec/toolexec"
)

// flakyStore is a MemoryStore whose limits fail while down is set, as a
// store that cannot be reached does.
type flakyStore struct {
	*toolexec.MemoryStore
	down   atomic.Bool
	admits atomic.Int32
}

var errUnreachable = errors.New("store unreachable")

func (s *flakyStore) Admit(ctx context.Context, a toolexec.Admission) (toolexec.Admittance, error) {
	s.admits.Add(1)
	if s.down.Load() {
		return toolexec.Admittance{}, errUnreachable
	}
	return s.MemoryStore.Admit(ctx, a)
}

func (s *flakyStore) Release(ctx context.Context, r toolexec.Release) error {
	if s.down.Load() {
		return errUnreachable
	}
	return s.MemoryStore.Release(ctx, r)
}

func TestLimitsAreCountedInTheProcessWhileTheStoreIsDown(t *testing.T) {
	store := &flakyStore{MemoryStore: toolexec.NewMemoryStore()}
	store.down.Store(true)
	logger, logs := newLogger(slog.LevelInfo)
	g := newGate()
	x := newExec(t, toolexec.Tool{Name: "q"}, g.handle, toolexec.WithStore(store), toolexec.WithLogger(logger),
		toolexec.WithConcurrencyLimit(toolexec.ConcurrencyLimit{Max: 1, FailFast: true}),
		toolexec.WithRateLimit(toolexec.RateLimit{Rate: 3, Per: time.Hour}))

	first := background(x, "q")
	<-g.entered
	_, err := call(x, "q", `{}`)
	requireError(t, err, toolexec.StageLimit, toolexec.CodeUnavailable) // the process's own slot is held
	close(g.release)
	require.NoError(t, <-first)
	_, err = call(x, "q", `{}`)
	require.NoError(t, err)
	_, err = call(x, "q", `{}`)
	requireError(t, err, toolexec.StageLimit, toolexec.CodeRateLimited) // the process counted the rate: 3 calls admitted

	assert.Len(t, findLogs(t, logs, "toolexec: the shared store cannot be reached; limits are counted in this process until it answers"), 1,
		"the outage is logged once, not per call")
	assert.Equal(t, int32(4), store.admits.Load(), "every call asked the store first")

	store.down.Store(false)
	x2 := newExec(t, toolexec.Tool{Name: "q"}, textHandler("ok"), toolexec.WithStore(store), toolexec.WithLogger(logger),
		toolexec.WithRateLimit(toolexec.RateLimit{Rate: 3, Per: time.Hour}))
	_, err = call(x2, "q", `{}`)
	assert.NoError(t, err, "the store counts afresh once it answers")
}

func TestStoreThatAnswersAgainIsLogged(t *testing.T) {
	store := &flakyStore{MemoryStore: toolexec.NewMemoryStore()}
	logger, logs := newLogger(slog.LevelInfo)
	x := newExec(t, toolexec.Tool{Name: "q"}, textHandler("ok"), toolexec.WithStore(store), toolexec.WithLogger(logger),
		toolexec.WithRateLimit(toolexec.RateLimit{Rate: 100}))

	store.down.Store(true)
	_, err := call(x, "q", `{}`)
	require.NoError(t, err)
	store.down.Store(false)
	_, err = call(x, "q", `{}`)
	require.NoError(t, err)
	_, err = call(x, "q", `{}`)
	require.NoError(t, err)

	assert.Len(t, findLogs(t, logs, "toolexec: the shared store cannot be reached; limits are counted in this process until it answers"), 1)
	assert.Len(t, findLogs(t, logs, "toolexec: the shared store answers again; limits are counted in it"), 1)
}

// expiringStore is a MemoryStore whose leases cannot be renewed, as when
// the store lost them.
type expiringStore struct {
	*toolexec.MemoryStore
	renewals atomic.Int32
}

func (s *expiringStore) RenewSlot(context.Context, string, string, time.Duration) (bool, error) {
	s.renewals.Add(1)
	return false, nil
}

func TestASharedSlotIsRenewedWhileTheCallRuns(t *testing.T) {
	store := &expiringStore{MemoryStore: toolexec.NewMemoryStore()}
	logger, logs := newLogger(slog.LevelInfo)
	g := newGate()
	x := newExec(t, toolexec.Tool{Name: "q"}, g.handle, toolexec.WithStore(store), toolexec.WithLogger(logger),
		toolexec.WithLeaseTTL(30*time.Millisecond),
		toolexec.WithConcurrencyLimit(toolexec.ConcurrencyLimit{Max: 1}))

	first := background(x, "q")
	<-g.entered
	require.Eventually(t, func() bool { return store.renewals.Load() > 0 }, 5*time.Second, time.Millisecond,
		"a running call renews its lease")
	close(g.release)
	require.NoError(t, <-first)
	assert.Equal(t, int32(1), store.renewals.Load(), "a lease found lost is not renewed again")
	assert.Len(t, findLogs(t, logs, "toolexec: a running call's concurrency slot ran out before the call ended; the limit may be exceeded until it does"), 1)
}

func TestASharedSlotOfADeadHolderFreesItselfAfterItsTTL(t *testing.T) {
	// Two Executors share one store, as two replicas do; the first
	// "dies" holding the only slot (its lease is never renewed nor
	// released: here, taken directly).
	store := toolexec.NewMemoryStore()
	x := newExec(t, toolexec.Tool{Name: "q"}, textHandler("ok"), toolexec.WithStore(store),
		toolexec.WithConcurrencyLimit(toolexec.ConcurrencyLimit{Max: 1, FailFast: true}))
	adm, err := store.Admit(context.Background(), toolexec.Admission{SlotKey: "slots:*", SlotMax: 1, SlotTTL: 50 * time.Millisecond})
	require.NoError(t, err)
	require.True(t, adm.Admitted())

	_, err = call(x, "q", `{}`)
	requireError(t, err, toolexec.StageLimit, toolexec.CodeUnavailable)
	require.Eventually(t, func() bool {
		_, err := call(x, "q", `{}`)
		return err == nil
	}, 5*time.Second, 5*time.Millisecond, "the dead holder's slot frees itself")
}

// countingStore is a MemoryStore that counts the cache lookups made on
// their own and those made with an admission.
type countingStore struct {
	*toolexec.MemoryStore
	gets, admitReads atomic.Int32
}

func (s *countingStore) Get(ctx context.Context, key string) ([]byte, bool, error) {
	s.gets.Add(1)
	return s.MemoryStore.Get(ctx, key)
}

func (s *countingStore) Admit(ctx context.Context, a toolexec.Admission) (toolexec.Admittance, error) {
	if a.Read != "" {
		s.admitReads.Add(1)
	}
	return s.MemoryStore.Admit(ctx, a)
}

func TestASharedStoreLooksACallUpWithItsAdmission(t *testing.T) {
	store := &countingStore{MemoryStore: toolexec.NewMemoryStore()}
	var c counting
	x := newExec(t, toolexec.Tool{Name: "c", Options: toolexec.ToolOptions{Cache: true, CacheShared: true,
		ConcurrencyLimit: &toolexec.ConcurrencyLimit{Max: 4}}}, c.handle, toolexec.WithStore(store))

	first, err := call(x, "c", `{"q":1}`)
	require.NoError(t, err)
	second, err := call(x, "c", `{"q":1}`)
	require.NoError(t, err)

	assert.Equal(t, int32(1), c.n.Load(), "the second call was a hit")
	assert.Equal(t, first.Content, second.Content)
	assert.Equal(t, int32(2), store.admitReads.Load(), "each call was looked up with its admission")
	assert.Zero(t, store.gets.Load(), "and in no other round trip")
}

// undecodableHitStore is a MemoryStore whose every cache lookup made with
// an admission finds a value that does not decode.
type undecodableHitStore struct{ *toolexec.MemoryStore }

func (s undecodableHitStore) Admit(ctx context.Context, a toolexec.Admission) (toolexec.Admittance, error) {
	if a.Read == "" {
		return s.MemoryStore.Admit(ctx, a)
	}
	return toolexec.Admittance{Found: true, Value: []byte("{not json")}, nil
}

func TestACachedValueThatDoesNotDecodeRunsTheToolInASlot(t *testing.T) {
	store := undecodableHitStore{toolexec.NewMemoryStore()}
	g := newGate()
	x := newExec(t, toolexec.Tool{Name: "q", Options: toolexec.ToolOptions{Cache: true, CacheShared: true}}, g.handle,
		toolexec.WithStore(store), toolexec.WithLogger(slog.New(slog.DiscardHandler)),
		toolexec.WithConcurrencyLimit(toolexec.ConcurrencyLimit{Max: 1, FailFast: true}))

	first := background(x, "q")
	<-g.entered // the lookup found no usable value: the tool runs
	second := background(x, "q")
	select {
	case err := <-second:
		requireError(t, err, toolexec.StageLimit, toolexec.CodeUnavailable) // in the slot the first call took after all
	case <-g.entered:
		close(g.release)
		t.Fatal("a second call ran the tool: the first held no slot")
	}
	close(g.release)
	require.NoError(t, <-first)
	res, err := call(x, "q", `{}`)
	require.NoError(t, err, "the slot was given back")
	assert.False(t, res.IsError)
}

// A call a handler makes (nested, with the handler's context) is a call
// of its own: its cache stage does not take the outer call's lookup or
// store its result under the outer call's key.
func TestANestedCallKeepsToItsOwnCacheEntry(t *testing.T) {
	reg := toolexec.NewRegistry()
	var x *toolexec.Executor
	var outerRuns atomic.Int32
	reg.MustAdd(toolexec.Tool{Name: "outer", Options: toolexec.ToolOptions{Cache: true, CacheShared: true,
		ConcurrencyLimit: &toolexec.ConcurrencyLimit{Max: 1}}},
		func(ctx context.Context, _ string, _ map[string]any) ([]toolexec.Content, bool, string, error) {
			outerRuns.Add(1)
			if _, err := x.Call(ctx, toolexec.CallRequest{Name: "inner", Arguments: []byte(`{}`)}); err != nil {
				return nil, false, "", err
			}
			return []toolexec.Content{toolexec.Text("outer failed")}, true, "", nil // isError: not cached
		})
	reg.MustAdd(toolexec.Tool{Name: "inner", Options: toolexec.ToolOptions{Cache: true, CacheShared: true}},
		func(context.Context, string, map[string]any) ([]toolexec.Content, bool, string, error) {
			return []toolexec.Content{toolexec.Text("inner")}, false, "", nil
		})
	x = toolexec.New(reg, reg, toolexec.WithAllowExecute(true), toolexec.WithStore(toolexec.NewMemoryStore()))

	for i := range 2 {
		res, err := call(x, "outer", `{}`)
		require.NoError(t, err)
		require.Len(t, res.Content, 1)
		assert.Equal(t, "outer failed", res.Content[0].(*toolexec.TextContent).Text, "call %d: the outer tool's own answer, never the inner one's", i+1)
	}
	assert.Equal(t, int32(2), outerRuns.Load(), "the outer tool's isError result was not cached, so it ran each time")
}
