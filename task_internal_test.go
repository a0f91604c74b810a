package toolexec

import (
	"context"
	"encoding/json"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestTaskWhoseRunnerStoppedEndsFailed(t *testing.T) {
	store := NewMemoryStore()
	reg := NewRegistry()
	x := New(reg, reg, WithStore(store))
	records, leases := store.taskMemories(TaskSettings{}.withDefaults())
	// A record as a replica that then died left it: working, with no
	// lease behind it.
	now := time.Now()
	rec := taskRecord{ID: newTaskID(), Tool: "t", Status: TaskStatusInputRequired, Created: now.UnixMilli(), Updated: now.UnixMilli(),
		Expires: now.Add(time.Hour).UnixMilli(), PollMs: 1000, Inputs: []recordInput{{Key: "k", Request: json.RawMessage(`{}`)}}}
	data, err := json.Marshal(rec)
	require.NoError(t, err)
	ok, err := records.Add(context.Background(), taskKey(rec.ID), data, time.Hour)
	require.NoError(t, err)
	require.True(t, ok)

	got, err := x.SurfaceKit().Task(httptest.NewRequest("GET", "/", nil), rec.ID)
	require.NoError(t, err)
	assert.Equal(t, TaskStatusFailed, got.Status)
	assert.Equal(t, "the replica running this task stopped", got.StatusMessage)
	require.NotNil(t, got.Err)
	assert.Equal(t, CodeInternal, got.Err.Code)
	assert.Empty(t, got.InputRequests, "nobody is left to answer")

	// With its lease held, the same record is left as it is.
	rec.ID = newTaskID()
	data, _ = json.Marshal(rec)
	_, _ = records.Add(context.Background(), taskKey(rec.ID), data, time.Hour)
	require.NoError(t, leases.Set(context.Background(), leaseKey(rec.ID), []byte{'1'}, time.Hour))
	got, err = x.SurfaceKit().Task(httptest.NewRequest("GET", "/", nil), rec.ID)
	require.NoError(t, err)
	assert.Equal(t, TaskStatusInputRequired, got.Status)
}

func TestTaskMemoryIsBoundedByCountAndBytes(t *testing.T) {
	ctx := context.Background()
	m := newTaskMemory(3, 10*(taskEntryOverhead+8))
	for i, k := range []string{"a", "b", "c", "d"} {
		require.NoError(t, m.Set(ctx, k, []byte{byte('0' + i)}, time.Hour))
	}
	_, ok, _ := m.Get(ctx, "a")
	assert.False(t, ok, "past the count, the least recently used is dropped")
	for _, k := range []string{"b", "c", "d"} {
		_, ok, _ := m.Get(ctx, k)
		assert.True(t, ok, k)
	}
	big := make([]byte, 5*(taskEntryOverhead+8))
	require.NoError(t, m.Set(ctx, "e", big, time.Hour))
	assert.LessOrEqual(t, m.m.Bytes(), 10*(taskEntryOverhead+8), "past the bytes, the least recently used are dropped")
	_, ok, _ = m.Get(ctx, "e")
	assert.True(t, ok)
	require.NoError(t, m.Set(ctx, "huge", make([]byte, 10*(taskEntryOverhead+8)), time.Hour))
	_, ok, _ = m.Get(ctx, "huge")
	assert.False(t, ok, "a value larger than the whole bound is not kept")

	require.NoError(t, m.Set(ctx, "ttl", []byte("v"), 20*time.Millisecond))
	require.Eventually(t, func() bool { _, ok, _ := m.Get(ctx, "ttl"); return !ok }, 5*time.Second, 5*time.Millisecond)

	swapped, _ := m.CompareAndSwap(ctx, "e", []byte("other"), []byte("x"), time.Hour)
	assert.False(t, swapped)
	swapped, _ = m.CompareAndSwap(ctx, "e", big, []byte("x"), time.Hour)
	assert.True(t, swapped)
	added, _ := m.Add(ctx, "e", []byte("y"), time.Hour)
	assert.False(t, added)
	require.NoError(t, m.Delete(ctx, "e"))
	added, _ = m.Add(ctx, "e", []byte("y"), time.Hour)
	assert.True(t, added)
	total := 0
	m.m.Each(func(k string, v taskEntry) bool {
		total += entrySize(k, v.value)
		return true
	})
	assert.Equal(t, total, m.m.Bytes(), "the bytes held are counted exactly")
}
