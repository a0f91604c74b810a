package toolexec

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// waitInQueue starts a waitSlot on s and returns what it returns, once
// the waiter is in the queue.
func waitInQueue(t *testing.T, s *MemoryStore, ctx context.Context, key string) <-chan string {
	t.Helper()
	s.limits.mu.Lock()
	before := len(s.limits.queue[key])
	s.limits.mu.Unlock()
	got := make(chan string, 1)
	go func() {
		lease, err := s.waitSlot(ctx, key, 1, time.Hour)
		if err != nil {
			lease = "error: " + err.Error()
		}
		got <- lease
	}()
	require.Eventually(t, func() bool {
		s.limits.mu.Lock()
		defer s.limits.mu.Unlock()
		return len(s.limits.queue[key]) == before+1
	}, 5*time.Second, time.Millisecond)
	return got
}

func TestMemoryStoreHandsSlotsToWaitersInTheOrderTheyCame(t *testing.T) {
	s := NewMemoryStore()
	a := AdmitRequest{SlotKey: "s", SlotMax: 1, SlotTTL: time.Hour}
	held, err := s.Admit(t.Context(), a)
	require.NoError(t, err)
	require.NotEmpty(t, held.Lease)

	first := waitInQueue(t, s, t.Context(), "s")
	second := waitInQueue(t, s, t.Context(), "s")
	require.NoError(t, s.Release(t.Context(), ReleaseRequest{SlotKey: "s", Lease: held.Lease}))
	lease := <-first
	assert.NotEmpty(t, lease, "the first waiter gets the slot given back")
	adm, err := s.Admit(t.Context(), a)
	require.NoError(t, err)
	assert.True(t, adm.SlotsFull, "a newcomer does not get ahead of the waiting call")

	require.NoError(t, s.Release(t.Context(), ReleaseRequest{SlotKey: "s", Lease: lease}))
	lease = <-second
	assert.NotEmpty(t, lease, "then the second")
	require.NoError(t, s.Release(t.Context(), ReleaseRequest{SlotKey: "s", Lease: lease}))
	adm, err = s.Admit(t.Context(), a)
	require.NoError(t, err)
	assert.True(t, adm.Admitted(), "with no one waiting, a released slot is free")
	assert.Empty(t, s.limits.queue, "no queue is left behind")
}

func TestMemoryStoreWaiterThatGivesUpTakesNothing(t *testing.T) {
	s := NewMemoryStore()
	a := AdmitRequest{SlotKey: "s", SlotMax: 1, SlotTTL: time.Hour}
	held, err := s.Admit(t.Context(), a)
	require.NoError(t, err)

	ctx, cancel := context.WithCancel(t.Context())
	gone := waitInQueue(t, s, ctx, "s")
	next := waitInQueue(t, s, t.Context(), "s")
	cancel()
	assert.Contains(t, <-gone, "context canceled")
	require.NoError(t, s.Release(t.Context(), ReleaseRequest{SlotKey: "s", Lease: held.Lease}))
	assert.NotEmpty(t, <-next, "the slot goes to the waiter that stayed")
}

func TestMemoryStoreHandsOverASlotWhoseLeaseRanOut(t *testing.T) {
	s := NewMemoryStore()
	held, err := s.Admit(t.Context(), AdmitRequest{SlotKey: "s", SlotMax: 1, SlotTTL: 50 * time.Millisecond})
	require.NoError(t, err)
	require.NotEmpty(t, held.Lease)
	got := waitInQueue(t, s, t.Context(), "s")
	assert.NotEmpty(t, <-got, "a lease not renewed runs out, and its slot goes to the waiter, with no release")
}

func TestMemoryStoreKeepsTasksOutOfReachOfTheCache(t *testing.T) {
	s := NewMemoryStore()
	records, leases := s.taskMemories(TaskSettings{}.withDefaults())
	again, _ := s.taskMemories(TaskSettings{MaxMemoryTasks: 1}.withDefaults())
	assert.Same(t, records.(*taskMemory), again.(*taskMemory), "the Executors sharing the store share its tasks")
	require.NoError(t, records.Set(t.Context(), "task", []byte("record"), time.Hour))
	require.NoError(t, leases.Set(t.Context(), "lease", []byte("1"), time.Hour))
	for i := range 2 * DefaultCacheSize { // a busy cache
		require.NoError(t, s.Set(t.Context(), string(rune('a'+i%26))+time.Duration(i).String(), []byte("v"), time.Hour))
	}
	_, ok, err := records.Get(t.Context(), "task")
	require.NoError(t, err)
	assert.True(t, ok, "the task's record outlives the cache's evictions")
	_, ok, err = leases.Get(t.Context(), "lease")
	require.NoError(t, err)
	assert.True(t, ok, "and so does its lease")
}
