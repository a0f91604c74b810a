package toolexec_test

import (
	"context"
	"fmt"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolexec/toolexec"
	"github.com/toolexec/toolexec/storetest"
)

func TestMemoryStoreKeepsTheStoreContract(t *testing.T) {
	storetest.Test(t, func(*testing.T) toolexec.Store { return toolexec.NewMemoryStore() })
}

func TestMemoryStoreEventLogsAreBounded(t *testing.T) {
	s := toolexec.NewMemoryStore()
	ctx := context.Background()
	var first string
	for i := range toolexec.MaxEventsPerLog + 10 {
		id, err := s.AppendEvent(ctx, "st", []byte(strconv.Itoa(i)), time.Hour)
		require.NoError(t, err)
		if i == 0 {
			first = id
		}
	}
	evs, found, err := s.ReadEvents(ctx, "st", "", 0)
	require.NoError(t, err)
	assert.True(t, found)
	require.Len(t, evs, toolexec.MaxEventsPerLog, "a log keeps its newest events")
	assert.Equal(t, "10", string(evs[0].Data))
	_, found, err = s.ReadEvents(ctx, "st", first, 0)
	require.NoError(t, err)
	assert.False(t, found, "reading after a dropped event would skip events: not found")

	for i := range toolexec.MaxMemoryLogs {
		_, err := s.AppendEvent(ctx, fmt.Sprintf("log-%d", i), []byte("x"), time.Hour)
		require.NoError(t, err)
	}
	evs, _, err = s.ReadEvents(ctx, "st", "", 0)
	require.NoError(t, err)
	assert.Empty(t, evs, "the least recently written log made room")
}

func TestMemoryStoreLogFloodDropsTheFloodersOwnLogs(t *testing.T) {
	// One owner's flood of logs, by bytes or by count, drops its own least
	// recently written logs, not a quiet owner's.
	s := toolexec.NewMemoryStore()
	ctx := context.Background()
	_, err := s.AppendOwnedEvent(ctx, "alice", "quiet", []byte("hello"), time.Hour)
	require.NoError(t, err)
	mib := make([]byte, 1<<20)
	for i := range 80 { // 80 MiB against 64
		_, err := s.AppendOwnedEvent(ctx, "mallory", fmt.Sprintf("big-%d", i), mib, time.Hour)
		require.NoError(t, err)
	}
	for i := range toolexec.MaxMemoryLogs + 100 {
		_, err := s.AppendOwnedEvent(ctx, "mallory", fmt.Sprintf("small-%d", i), []byte("x"), time.Hour)
		require.NoError(t, err)
	}
	evs, found, err := s.ReadEvents(ctx, "quiet", "", 0)
	require.NoError(t, err)
	assert.True(t, found)
	require.Len(t, evs, 1, "the quiet owner's log outlived the flood")
	assert.Equal(t, "hello", string(evs[0].Data))
	evs, _, _ = s.ReadEvents(ctx, "big-0", "", 0)
	assert.Empty(t, evs, "the flooder's oldest log went")

	// An append without an owner keeps the log's.
	_, err = s.AppendEvent(ctx, "quiet", []byte("again"), time.Hour)
	require.NoError(t, err)
	for i := range 100 {
		_, _ = s.AppendOwnedEvent(ctx, "mallory", fmt.Sprintf("more-%d", i), []byte("x"), time.Hour)
	}
	evs, _, _ = s.ReadEvents(ctx, "quiet", "", 0)
	assert.Len(t, evs, 2)
}

func TestMemoryStoreCountFloodOfSmallLogsKeepsAQuietCallersLargeLog(t *testing.T) {
	// A flood of many short streams overruns the count of logs, not their
	// bytes: it drops the flooder's own logs, not a quiet caller's one
	// long log, though that log holds more bytes than any of the flood.
	s := toolexec.NewMemoryStore()
	ctx := context.Background()
	_, err := s.AppendOwnedEvent(ctx, "alice", "quiet", make([]byte, 1<<20), time.Hour)
	require.NoError(t, err)
	for i := range toolexec.MaxMemoryLogs + 100 {
		_, err := s.AppendOwnedEvent(ctx, "mallory", fmt.Sprintf("short-%d", i), []byte("header"), time.Hour)
		require.NoError(t, err)
	}
	evs, found, err := s.ReadEvents(ctx, "quiet", "", 0)
	require.NoError(t, err)
	assert.True(t, found, "the quiet caller's log outlived the flood")
	assert.Len(t, evs, 1)
	evs, _, _ = s.ReadEvents(ctx, "short-0", "", 0)
	assert.Empty(t, evs, "the flooder's oldest log went")
}
