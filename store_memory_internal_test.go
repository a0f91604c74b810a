package toolexec

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestMemoryStoreTellsAWaiterWhenASlotIsGivenBack(t *testing.T) {
	s := NewMemoryStore()
	a := Admission{SlotKey: "s", SlotMax: 1, SlotTTL: time.Hour}
	held, err := s.Admit(t.Context(), a)
	require.NoError(t, err)
	require.NotEmpty(t, held.Lease)

	freed := s.slotFreed("s")
	other := s.slotFreed("other")
	assert.Equal(t, freed, s.slotFreed("s"), "waiters of one key share one channel")
	select {
	case <-freed:
		t.Fatal("told before any slot was given back")
	default:
	}
	require.NoError(t, s.Release(t.Context(), Release{SlotKey: "s", Lease: held.Lease}))
	select {
	case <-freed:
	default:
		t.Fatal("not told when the slot was given back")
	}
	select {
	case <-other:
		t.Fatal("a waiter of another key was told")
	default:
	}
	next := s.slotFreed("s")
	select {
	case <-next:
		t.Fatal("a new wait is told only of the next release")
	default:
	}
}
