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
		checkInvariants(t, m)
	}
}

func TestACountFloodOfSmallEntriesEvictsItsOwnFirst(t *testing.T) {
	// One owner floods the entry count with tiny entries while another
	// holds one large entry: the flooder holds the larger share of the
	// bound that is overrun, so its own entries go.
	m := New[int](10, 1000)
	require.NoError(t, m.Put("big", "alice", 0, 400, false))
	for i := range 50 {
		require.NoError(t, m.Put(fmt.Sprint("flood-", i), "mallory", i, 1, false))
	}
	_, ok := m.Peek("big")
	assert.True(t, ok, "alice's one entry outlives mallory's flood of many small ones")
	assert.Equal(t, 10, m.Len())
	checkInvariants(t, m)

	// And a flood of bytes in few entries against many small ones of
	// another owner still falls on the flooder.
	m = New[int](100, 1000)
	for i := range 20 {
		require.NoError(t, m.Put(fmt.Sprint("small-", i), "alice", i, 5, false))
	}
	for i := range 10 {
		require.NoError(t, m.Put(fmt.Sprint("huge-", i), "mallory", i, 300, false))
	}
	assert.Len(t, keysOf(m, "small-"), 20, "alice kept every entry")
	checkInvariants(t, m)
}

// keysOf lists the keys of m that start with prefix.
func keysOf(m *Map[int], prefix string) []string {
	var out []string
	m.Each(func(k string, _ int) bool {
		if len(k) >= len(prefix) && k[:len(prefix)] == prefix {
			out = append(out, k)
		}
		return true
	})
	return out
}

// checkInvariants checks m's accounting against its entries: the bytes,
// each owner's counts and evictable bytes, its list, and the heap's order
// and indexes.
func checkInvariants(t *testing.T, m *Map[int]) {
	t.Helper()
	bytes := 0
	type share struct{ entries, pinned, evictable, evictableN int }
	want := map[string]*share{}
	for _, e := range m.entries {
		bytes += e.size
		s := want[e.owner.name]
		if s == nil {
			s = &share{}
			want[e.owner.name] = s
		}
		s.entries++
		if e.pinned {
			s.pinned++
		} else {
			s.evictable += e.size
			s.evictableN++
		}
	}
	require.Equal(t, bytes, m.Bytes(), "bytes")
	require.Len(t, m.owners, len(want), "an owner is kept while it holds entries, and only then")
	for name, o := range m.owners {
		s := want[name]
		require.NotNil(t, s, name)
		require.Equal(t, s.entries, o.entries, name)
		require.Equal(t, s.pinned, o.pinned, name)
		require.Equal(t, s.evictable, o.evictable, name)
		n := 0
		for e := o.head; e != nil; e = e.next {
			require.Same(t, o, e.owner)
			require.False(t, e.pinned)
			n++
		}
		require.Equal(t, s.evictableN, n, name)
		require.Equal(t, o.head != nil, o.index >= 0, "%s is in the heap exactly while it holds evictable entries", name)
	}
	for i, o := range m.heap {
		require.Equal(t, i, o.index)
		for _, c := range []int{2*i + 1, 2*i + 2} {
			if c < len(m.heap) {
				require.False(t, m.heap.Less(c, i), "the heap's order holds at %d", i)
			}
		}
	}
}
