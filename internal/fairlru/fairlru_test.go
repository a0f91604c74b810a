package fairlru

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestAFlooderEvictsItsOwnEntriesFirst(t *testing.T) {
	m := New[int](10, 1000)
	require.NoError(t, m.Put("quiet-1", "alice", 1, 10, false))
	require.NoError(t, m.Put("quiet-2", "alice", 2, 10, false))
	for i := range 100 {
		require.NoError(t, m.Put(fmt.Sprint("flood-", i), "mallory", i, 10, false))
	}
	_, ok := m.Get("quiet-1")
	assert.True(t, ok, "alice's entries outlive mallory's flood")
	_, ok = m.Get("quiet-2")
	assert.True(t, ok)
	assert.Equal(t, 10, m.Len())
	_, ok = m.Get("flood-99")
	assert.True(t, ok, "the flooder keeps its newest")
	_, ok = m.Get("flood-0")
	assert.False(t, ok, "and loses its oldest")
}

func TestEvictionsFallOnTheLargestHolderByBytes(t *testing.T) {
	m := New[int](100, 100)
	require.NoError(t, m.Put("a", "alice", 0, 30, false))
	require.NoError(t, m.Put("b1", "bob", 0, 20, false))
	require.NoError(t, m.Put("b2", "bob", 0, 20, false))
	require.NoError(t, m.Put("c", "carol", 0, 30, false)) // 100 in all
	require.NoError(t, m.Put("a2", "alice", 0, 10, false))
	// alice holds 40 > bob 40? equal: either may go; then the bound holds.
	assert.LessOrEqual(t, m.Bytes(), 100)
	_, cOK := m.Peek("c")
	assert.True(t, cOK, "carol (30) holds less than the largest holders")
}

func TestPinnedEntriesAreNeverEvicted(t *testing.T) {
	m := New[int](3, 1000)
	require.NoError(t, m.Put("run-1", "alice", 0, 10, true))
	require.NoError(t, m.Put("run-2", "alice", 0, 10, true))
	require.NoError(t, m.Put("done", "alice", 0, 10, false))
	require.NoError(t, m.Put("run-3", "bob", 0, 10, true), "the finished entry makes room")
	_, ok := m.Peek("done")
	assert.False(t, ok)
	assert.ErrorIs(t, m.Put("run-4", "bob", 0, 10, true), ErrFull, "nothing left to evict")
	_, ok = m.Peek("run-4")
	assert.False(t, ok, "a new entry that found no room is not kept")
	assert.NoError(t, m.Put("run-1", "alice", 1, 50, true), "a held key is always stored")
	assert.Equal(t, 2, m.Pinned("alice"))
	assert.Equal(t, 1, m.Pinned("bob"))
	require.NoError(t, m.Put("run-1", "alice", 1, 10, false), "unpinned: evictable again")
	assert.Equal(t, 1, m.Pinned("alice"))
	assert.ErrorIs(t, m.Put("huge", "carol", 0, 2000, false), ErrFull)
}

func TestTheBoundsHoldUnderRandomUse(t *testing.T) {
	m := New[int](50, 5000)
	r := rand.New(rand.NewPCG(1, 2))
	for i := range 20000 {
		key := fmt.Sprint(r.IntN(200))
		owner := fmt.Sprint(r.IntN(7))
		switch r.IntN(4) {
		case 0:
			m.Remove(key)
		case 1:
			m.Get(key)
		default:
			err := m.Put(key, owner, i, 1+r.IntN(300), r.IntN(10) == 0 && m.Pinned(owner) < 3)
			if err != nil {
				require.ErrorIs(t, err, ErrFull)
			}
		}
		pinned := 0
		for o := range m.owners {
			pinned += m.owners[o].pinned
		}
		if pinned == 0 {
			require.LessOrEqual(t, m.Len(), 50)
			require.LessOrEqual(t, m.Bytes(), 5000)
		}
		total := 0
		m.Each(func(string, int) bool { total++; return true })
		require.Equal(t, m.Len(), total)
	}
}
