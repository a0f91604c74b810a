package streamquota_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolexec/toolexec"
	"github.com/toolexec/toolexec/internal/streamquota"
	"github.com/toolexec/toolexec/internal/testlog"
)

// watchedLimits is a store's Limits that records what it is asked, fails
// while down is set (as a store that cannot be reached does), and, while
// hang is set, answers Admit only when its context ends.
type watchedLimits struct {
	toolexec.Limits
	down, hang atomic.Bool
	// loseNext: the next RenewSlot drops its lease from the store and
	// reports it ran out, as a restarted store does.
	loseNext atomic.Bool

	mu      sync.Mutex
	keys    []string // Admit's slot keys
	admits  int
	renewed int
}

var errUnreachable = errors.New("store unreachable")

func (w *watchedLimits) Admit(ctx context.Context, a toolexec.Admission) (toolexec.Admittance, error) {
	w.mu.Lock()
	w.keys = append(w.keys, a.SlotKey)
	w.admits++
	w.mu.Unlock()
	if w.hang.Load() {
		<-ctx.Done()
		return toolexec.Admittance{}, ctx.Err()
	}
	if w.down.Load() {
		return toolexec.Admittance{}, errUnreachable
	}
	return w.Limits.Admit(ctx, a)
}

func (w *watchedLimits) RenewSlot(ctx context.Context, key, lease string, ttl time.Duration) (bool, error) {
	defer func() {
		w.mu.Lock()
		w.renewed++
		w.mu.Unlock()
	}()
	if w.down.Load() {
		return false, errUnreachable
	}
	if w.loseNext.CompareAndSwap(true, false) {
		_ = w.Limits.Release(ctx, toolexec.Release{SlotKey: key, Lease: lease})
		return false, nil
	}
	return w.Limits.RenewSlot(ctx, key, lease, ttl)
}

func (w *watchedLimits) Release(ctx context.Context, r toolexec.Release) error {
	if w.down.Load() {
		return errUnreachable
	}
	return w.Limits.Release(ctx, r)
}

func (w *watchedLimits) counts() (admits, renewed int) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.admits, w.renewed
}

// replicaCounters returns n Shared counters over one store, as n replicas
// sharing it count, each capping total streams and perCaller for a caller,
// with a lease of ttl.
func replicaCounters(store toolexec.Limits, n, total, perCaller int, ttl time.Duration, log *testlog.Buffer) []*streamquota.Shared {
	var out []*streamquota.Shared
	for range n {
		cfg := streamquota.SharedConfig{Limits: store, Total: total, PerCaller: perCaller, Prefix: "listen:",
			LeaseTTL: ttl, OpTimeout: 2 * time.Second, Name: "test: streams"}
		if log != nil {
			cfg.Logger = log.Logger()
		}
		out = append(out, streamquota.NewShared(cfg))
	}
	return out
}

func TestSharedCapsEachCallerAcrossReplicas(t *testing.T) {
	rs := replicaCounters(toolexec.NewMemoryStore(), 2, 10, 2, time.Minute, nil)
	a, b := rs[0], rs[1]
	a1, v := acquire(t, a, "alice")
	require.Equal(t, streamquota.Admitted, v)
	_, v = acquire(t, b, "alice")
	require.Equal(t, streamquota.Admitted, v)
	_, v = acquire(t, b, "alice")
	assert.Equal(t, streamquota.CallerFull, v, "alice holds two streams across the replicas")
	_, v = acquire(t, a, "alice")
	assert.Equal(t, streamquota.CallerFull, v)
	_, v = acquire(t, b, "bob")
	assert.Equal(t, streamquota.Admitted, v, "bob has a share of his own")

	a1()
	a1() // a second release does nothing
	_, v = acquire(t, b, "alice")
	assert.Equal(t, streamquota.Admitted, v, "a stream closed on one replica frees a place on the other")
	_, v = acquire(t, a, "alice")
	assert.Equal(t, streamquota.CallerFull, v, "the second release gave back nothing")
}

func TestSharedCapsTheTotalPerReplica(t *testing.T) {
	rs := replicaCounters(toolexec.NewMemoryStore(), 2, 2, 1, time.Minute, nil)
	a, b := rs[0], rs[1]
	_, v := acquire(t, a, "alice")
	require.Equal(t, streamquota.Admitted, v)
	_, v = acquire(t, a, "alice")
	require.Equal(t, streamquota.CallerFull, v)
	_, v = acquire(t, a, "bob")
	require.Equal(t, streamquota.Admitted, v, "a refused stream gives its place in the total back")
	_, v = acquire(t, a, "carol")
	assert.Equal(t, streamquota.ServerFull, v, "replica a holds its two")
	_, v = acquire(t, b, "carol")
	assert.Equal(t, streamquota.Admitted, v, "replica b counts its own total, and a's refusal took no slot of carol's")
	assert.Equal(t, 2, a.Open())
	assert.Equal(t, 1, b.Open())
}

func TestSharedKeysEachCallerByADigest(t *testing.T) {
	store := &watchedLimits{Limits: toolexec.NewMemoryStore()}
	rs := replicaCounters(store, 1, 10, 1, time.Minute, nil)
	_, v := acquire(t, rs[0], "id:alice@example.com")
	require.Equal(t, streamquota.Admitted, v)
	sum := sha256.Sum256([]byte("id:alice@example.com"))
	require.Len(t, store.keys, 1)
	assert.Equal(t, "listen:"+hex.EncodeToString(sum[:16]), store.keys[0])
	assert.NotContains(t, store.keys[0], "alice")
}

func TestSharedCountsInTheProcessWhileTheStoreIsDown(t *testing.T) {
	store := &watchedLimits{Limits: toolexec.NewMemoryStore()}
	store.down.Store(true)
	var log testlog.Buffer
	rs := replicaCounters(store, 2, 10, 1, time.Minute, &log)
	a, b := rs[0], rs[1]

	a1, v := acquire(t, a, "alice")
	require.Equal(t, streamquota.Admitted, v, "never refused because the store is down")
	_, v = acquire(t, a, "alice")
	assert.Equal(t, streamquota.CallerFull, v, "counted in the process")
	_, v = acquire(t, b, "alice")
	assert.Equal(t, streamquota.Admitted, v, "each replica counts its own")
	a1()
	_, v = acquire(t, a, "alice")
	assert.Equal(t, streamquota.Admitted, v, "the process's count is given back")
	assert.Equal(t, 2, strings.Count(log.String(), "the shared store cannot be reached"),
		"logged once by each replica, not once per stream: %s", log.String())

	store.down.Store(false)
	_, v = acquire(t, a, "bob")
	assert.Equal(t, streamquota.Admitted, v)
	_, v = acquire(t, b, "bob")
	assert.Equal(t, streamquota.CallerFull, v, "counted in the store again")
	assert.Equal(t, 2, strings.Count(log.String(), "the shared store answers again"), log.String())
}

func TestSharedWaitsForTheStoreNoLongerThanItsTimeout(t *testing.T) {
	store := &watchedLimits{Limits: toolexec.NewMemoryStore()}
	store.hang.Store(true)
	s := streamquota.NewShared(streamquota.SharedConfig{Limits: store, Total: 10, PerCaller: 1, Prefix: "listen:",
		LeaseTTL: time.Minute, OpTimeout: 20 * time.Millisecond})
	_, v := acquire(t, s, "alice")
	assert.Equal(t, streamquota.Admitted, v, "counted in the process once the store took too long")
	_, v = acquire(t, s, "alice")
	assert.Equal(t, streamquota.CallerFull, v)
}

func TestSharedReleasesWhateverTheContextItWasOpenedWith(t *testing.T) {
	rs := replicaCounters(toolexec.NewMemoryStore(), 2, 10, 1, time.Minute, nil)
	ctx, cancel := context.WithCancel(context.Background())
	release, v, err := rs[0].Acquire(ctx, "alice")
	require.NoError(t, err)
	require.Equal(t, streamquota.Admitted, v)
	cancel() // the client went away: its stream ends
	release()
	_, v = acquire(t, rs[1], "alice")
	assert.Equal(t, streamquota.Admitted, v, "the slot was given back though the stream's context had ended")
	assert.Zero(t, rs[0].Open())
}

func TestSharedRenewsItsLeaseWhileTheStreamIsOpen(t *testing.T) {
	const ttl = time.Second
	store := &watchedLimits{Limits: toolexec.NewMemoryStore()}
	rs := replicaCounters(store, 2, 10, 1, ttl, nil)
	_, v := acquire(t, rs[0], "alice")
	require.Equal(t, streamquota.Admitted, v)
	require.Eventually(t, func() bool {
		_, renewed := store.counts()
		return renewed >= 4 // more than the lease's TTL has passed
	}, 30*time.Second, 10*time.Millisecond)
	_, v = acquire(t, rs[1], "alice")
	assert.Equal(t, streamquota.CallerFull, v, "the renewed lease still holds alice's slot")
}

func TestSharedTakesASlotAgainWhenItsLeaseRanOut(t *testing.T) {
	const ttl = 300 * time.Millisecond
	store := &watchedLimits{Limits: toolexec.NewMemoryStore()}
	var log testlog.Buffer
	rs := replicaCounters(store, 2, 10, 1, ttl, &log)
	a, b := rs[0], rs[1]
	release, v := acquire(t, a, "alice")
	require.Equal(t, streamquota.Admitted, v)
	store.loseNext.Store(true) // the store loses the lease (restarted, say)
	require.Eventually(t, func() bool {
		admits, _ := store.counts()
		return admits == 2 && !store.loseNext.Load()
	}, 30*time.Second, 5*time.Millisecond, "the stream took its slot again")
	_, v = acquire(t, b, "alice")
	assert.Equal(t, streamquota.CallerFull, v, "the open stream holds alice's slot again")

	release()
	_, v = acquire(t, b, "alice")
	assert.Equal(t, streamquota.Admitted, v, "the slot taken again was given back")
	assert.NotContains(t, log.String(), "slots are all held")
}

func TestSharedCountsConcurrentStreamsExactly(t *testing.T) {
	rs := replicaCounters(toolexec.NewMemoryStore(), 2, 1000, 5, time.Minute, nil)
	var wg sync.WaitGroup
	admitted := make(chan func(), 200)
	for i := range 200 {
		wg.Go(func() {
			if release, v, _ := rs[i%2].Acquire(context.Background(), "x"); v == streamquota.Admitted {
				admitted <- release
			}
		})
	}
	wg.Wait()
	close(admitted)
	n := 0
	for release := range admitted {
		n++
		release()
	}
	assert.Equal(t, 5, n)
	assert.Zero(t, rs[0].Open()+rs[1].Open())
}
