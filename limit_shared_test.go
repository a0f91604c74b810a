package toolexec_test

import (
	"context"
	"log/slog"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolexec/toolexec"
	"github.com/toolexec/toolexec/storetest"
)

func TestLimitsAreCountedInTheProcessWhileTheStoreIsDown(t *testing.T) {
	store := storetest.NewFaultyStore(toolexec.NewMemoryStore())
	store.Fail(storetest.OpAdmit, storetest.OpRelease)
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
	assert.Equal(t, 4, store.Calls(storetest.OpAdmit), "every call asked the store first")

	store.Recover()
	x2 := newExec(t, toolexec.Tool{Name: "q"}, textHandler("ok"), toolexec.WithStore(store), toolexec.WithLogger(logger),
		toolexec.WithRateLimit(toolexec.RateLimit{Rate: 3, Per: time.Hour}))
	_, err = call(x2, "q", `{}`)
	assert.NoError(t, err, "the store counts afresh once it answers")
}

func TestStoreThatAnswersAgainIsLogged(t *testing.T) {
	store := storetest.NewFaultyStore(toolexec.NewMemoryStore())
	logger, logs := newLogger(slog.LevelInfo)
	x := newExec(t, toolexec.Tool{Name: "q"}, textHandler("ok"), toolexec.WithStore(store), toolexec.WithLogger(logger),
		toolexec.WithRateLimit(toolexec.RateLimit{Rate: 100}))

	store.Fail(storetest.OpAdmit, storetest.OpRelease)
	_, err := call(x, "q", `{}`)
	require.NoError(t, err)
	store.Recover()
	_, err = call(x, "q", `{}`)
	require.NoError(t, err)
	_, err = call(x, "q", `{}`)
	require.NoError(t, err)

	assert.Len(t, findLogs(t, logs, "toolexec: the shared store cannot be reached; limits are counted in this process until it answers"), 1)
	assert.Len(t, findLogs(t, logs, "toolexec: the shared store answers again; limits are counted in it"), 1)
}

func TestASharedSlotIsRenewedWhileTheCallRuns(t *testing.T) {
	store := storetest.NewFaultyStore(toolexec.NewMemoryStore())
	store.LoseLeases(-1) // as when the store lost them
	logger, logs := newLogger(slog.LevelInfo)
	g := newGate()
	x := newExec(t, toolexec.Tool{Name: "q"}, g.handle, toolexec.WithStore(store), toolexec.WithLogger(logger),
		toolexec.WithLeaseTTL(30*time.Millisecond),
		toolexec.WithConcurrencyLimit(toolexec.ConcurrencyLimit{Max: 1}))

	first := background(x, "q")
	<-g.entered
	const lost = "toolexec: a running call's concurrency slot ran out before the call ended; the limit may be exceeded until it does"
	// The renewal is counted when the store is asked, and logged once its
	// answer is read: wait for the log line, not the count.
	require.Eventually(t, func() bool { return len(findLogs(t, logs, lost)) > 0 }, 5*time.Second, time.Millisecond,
		"a running call renews its lease, and says when it was lost")
	time.Sleep(100 * time.Millisecond) // three more renewal periods, had renewing gone on
	close(g.release)
	require.NoError(t, <-first)
	assert.Equal(t, 1, store.Calls(storetest.OpRenewSlot), "a lease found lost is not renewed again")
	assert.Len(t, findLogs(t, logs, lost), 1)
}

func TestASharedSlotOfADeadHolderFreesItselfAfterItsTTL(t *testing.T) {
	// Two Executors share one store, as two replicas do; the first
	// "dies" holding the only slot (its lease is never renewed nor
	// released: here, taken directly).
	store := toolexec.NewMemoryStore()
	x := newExec(t, toolexec.Tool{Name: "q"}, textHandler("ok"), toolexec.WithStore(store),
		toolexec.WithConcurrencyLimit(toolexec.ConcurrencyLimit{Max: 1, FailFast: true}))
	adm, err := store.Admit(context.Background(), toolexec.AdmitRequest{SlotKey: "slots:*", SlotMax: 1, SlotTTL: 50 * time.Millisecond})
	require.NoError(t, err)
	require.True(t, adm.Admitted())

	_, err = call(x, "q", `{}`)
	requireError(t, err, toolexec.StageLimit, toolexec.CodeUnavailable)
	require.Eventually(t, func() bool {
		_, err := call(x, "q", `{}`)
		return err == nil
	}, 5*time.Second, 5*time.Millisecond, "the dead holder's slot frees itself")
}

func TestASharedStoreLooksACallUpWithItsAdmission(t *testing.T) {
	store := storetest.NewFaultyStore(toolexec.NewMemoryStore())
	var c counting
	x := newExec(t, toolexec.Tool{Name: "c", Options: toolexec.ToolOptions{Cache: true, CacheShared: true,
		ConcurrencyLimit: &toolexec.ConcurrencyLimit{Max: 4}}}, c.handle, toolexec.WithStore(store))

	first, err := call(x, "c", `{"q":1}`)
	require.NoError(t, err)
	second, err := call(x, "c", `{"q":1}`)
	require.NoError(t, err)

	assert.Equal(t, int32(1), c.n.Load(), "the second call was a hit")
	assert.Equal(t, first.Content, second.Content)
	reads := 0
	for _, a := range store.Admissions() {
		if a.Read != "" {
			reads++
		}
	}
	assert.Equal(t, 2, reads, "each call was looked up with its admission")
	assert.Zero(t, store.Calls(storetest.OpGet), "and in no other round trip")
}

// undecodableHitStore is a MemoryStore whose every cache lookup made with
// an admission finds a value that does not decode.
type undecodableHitStore struct{ *toolexec.MemoryStore }

func (s undecodableHitStore) Admit(ctx context.Context, a toolexec.AdmitRequest) (toolexec.AdmitResult, error) {
	if a.Read == "" {
		return s.MemoryStore.Admit(ctx, a)
	}
	return toolexec.AdmitResult{Found: true, Value: []byte("{not json")}, nil
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
