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
	for i := range toolexec.MaxMemoryLogEvents + 10 {
		id, err := s.AppendEvent(ctx, "st", []byte(strconv.Itoa(i)), time.Hour)
		require.NoError(t, err)
		if i == 0 {
			first = id
		}
	}
	evs, found, err := s.ReadEvents(ctx, "st", "", 0)
	require.NoError(t, err)
	assert.True(t, found)
	require.Len(t, evs, toolexec.MaxMemoryLogEvents, "a log keeps its newest events")
	assert.Equal(t, "10", string(evs[0].Data))
	_, found, err = s.ReadEvents(ctx, "st", first, 0)
	require.NoError(t, err)
	assert.False(t, found, "reading after a dropped event would skip events: not found")

	for i := range toolexec.MaxMemoryEventLogs {
		_, err := s.AppendEvent(ctx, fmt.Sprintf("log-%d", i), []byte("x"), time.Hour)
		require.NoError(t, err)
	}
	evs, _, err = s.ReadEvents(ctx, "st", "", 0)
	require.NoError(t, err)
	assert.Empty(t, evs, "the least recently written log made room")
}
