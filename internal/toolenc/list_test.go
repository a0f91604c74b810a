package toolenc

import (
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// notifier is a provider's change notifications: notify calls every
// subscriber.
type notifier struct {
	mu   sync.Mutex
	fns  map[int]func()
	next int
}

func (n *notifier) subscribe(f func()) (stop func()) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.fns == nil {
		n.fns = make(map[int]func())
	}
	id := n.next
	n.next++
	n.fns[id] = f
	return func() {
		n.mu.Lock()
		delete(n.fns, id)
		n.mu.Unlock()
	}
}

func (n *notifier) notify() {
	n.mu.Lock()
	fns := make([]func(), 0, len(n.fns))
	for _, f := range n.fns {
		fns = append(fns, f)
	}
	n.mu.Unlock()
	for _, f := range fns {
		f()
	}
}

func (n *notifier) subscribers() int {
	n.mu.Lock()
	defer n.mu.Unlock()
	return len(n.fns)
}

func itemKey(t *item) string { return t.name }

func join(items []item) []byte {
	var b strings.Builder
	for _, it := range items {
		b.WriteString(it.name + "=" + it.text + ";")
	}
	return []byte(b.String())
}

func TestAListIsLoadedAndEncodedOncePerReportedChange(t *testing.T) {
	n := &notifier{}
	l := NewLists(Watch(n.subscribe), itemKey)
	tools := []item{{name: "a", text: "1"}}
	loads, encodes := 0, 0
	load := func() []item { loads++; return append([]item(nil), tools...) }
	full := func() string {
		return string(l.Snapshot(load).Full(func(items []item) []byte { encodes++; return join(items) }))
	}
	for range 3 {
		assert.Equal(t, "a=1;", full())
	}
	assert.Equal(t, 1, loads, "loaded once")
	assert.Equal(t, 1, encodes, "encoded once")

	tools = append(tools, item{name: "b", text: "2"})
	assert.Equal(t, "a=1;", full(), "a change not reported is not seen")
	n.notify()
	for range 3 {
		assert.Equal(t, "a=1;b=2;", full(), "a reported change is")
	}
	assert.Equal(t, 2, loads)
	assert.Equal(t, 2, encodes)
}

func TestNoListsWithoutChangeReports(t *testing.T) {
	l := NewLists[item](nil, itemKey)
	assert.Nil(t, l)
	assert.Nil(t, l.Snapshot(func() []item { t.Fatal("loaded"); return nil }))
}

func TestSubsetsAreKeptByTheirExactPositions(t *testing.T) {
	n := &notifier{}
	l := NewLists(Watch(n.subscribe), itemKey)
	s := l.Snapshot(func() []item { return []item{{name: "a"}, {name: "b"}, {name: "c"}} })
	p, ok := s.Position("c")
	require.True(t, ok)
	assert.Equal(t, int32(2), p)
	_, ok = s.Position("z")
	assert.False(t, ok)

	encodes := 0
	subset := func(pos ...int32) string {
		return string(s.Subset(pos, func() []byte {
			encodes++
			items := make([]item, len(pos))
			for i, p := range pos {
				items[i] = s.Items[p]
			}
			return join(items)
		}))
	}
	for range 2 {
		assert.Equal(t, "a=;c=;", subset(0, 2))
		assert.Equal(t, "c=;a=;", subset(2, 0), "order counts")
		assert.Equal(t, "b=;", subset(1))
		assert.Equal(t, "", subset())
	}
	assert.Equal(t, 4, encodes, "each exact list encoded once")

	// Past MaxSubsets, the kept lists are dropped: memory stays bounded.
	for i := range MaxSubsets + 1 {
		s.Subset([]int32{0, int32(i)}, func() []byte { return nil }) // positions are only keys here
	}
	s.subsets.mu.Lock()
	kept := len(s.subsets.m)
	s.subsets.mu.Unlock()
	assert.LessOrEqual(t, kept, MaxSubsets)
}

func TestASnapshotMadeDuringAChangeIsReplaced(t *testing.T) {
	n := &notifier{}
	l := NewLists(Watch(n.subscribe), itemKey)
	version := "old"
	s := l.Snapshot(func() []item {
		n.notify() // the tool set changes while it is listed
		return []item{{name: version}}
	})
	assert.Equal(t, "old", s.Items[0].name)
	version = "new"
	assert.Equal(t, "new", l.Snapshot(func() []item { return []item{{name: version}} }).Items[0].name)
}

func TestConcurrentSnapshotsAndChanges(t *testing.T) {
	n := &notifier{}
	l := NewLists(Watch(n.subscribe), itemKey)
	var size atomic.Int64
	size.Store(1)
	load := func() []item {
		items := make([]item, size.Load())
		for i := range items {
			items[i] = item{name: strings.Repeat("x", i+1)}
		}
		return items
	}
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			for range 200 {
				s := l.Snapshot(load)
				s.Full(join)
				s.Subset([]int32{0}, func() []byte { return join(s.Items[:1]) })
			}
		})
	}
	for range 50 {
		size.Add(1)
		n.notify()
	}
	wg.Wait()
	assert.Len(t, l.Snapshot(load).Items, 51, "the last change is seen")
}

func TestWatchingEndsWithTheChanges(t *testing.T) {
	n := &notifier{}
	for range 10 {
		Watch(n.subscribe)
	}
	require.Positive(t, n.subscribers())
	require.Eventually(t, func() bool {
		runtime.GC()
		return n.subscribers() == 0
	}, 10*time.Second, 10*time.Millisecond, "every unreachable Changes unsubscribes")
}
