package streamquota_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolexec/toolexec"
	"github.com/toolexec/toolexec/internal/streamquota"
	"github.com/toolexec/toolexec/internal/testlog"
	"github.com/toolexec/toolexec/storetest"
)

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
	store := storetest.NewFaultyStore(toolexec.NewMemoryStore())
	rs := replicaCounters(store, 1, 10, 1, time.Minute, nil)
	_, v := acquire(t, rs[0], "id:alice@example.com")
	require.Equal(t, streamquota.Admitted, v)
	sum := sha256.Sum256([]byte("id:alice@example.com"))
	admitted := store.Admissions()
	require.Len(t, admitted, 1)
	assert.Equal(t, "listen:"+hex.EncodeToString(sum[:16]), admitted[0].SlotKey)
	assert.NotContains(t, admitted[0].SlotKey, "alice")
}

func TestSharedCountsInTheProcessWhileTheStoreIsDown(t *testing.T) {
	store := storetest.NewFaultyStore(toolexec.NewMemoryStore())
	store.Fail(storetest.OpAdmit, storetest.OpRenewSlot, storetest.OpRelease)
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

	store.Recover()
	_, v = acquire(t, a, "bob")
	assert.Equal(t, streamquota.Admitted, v)
	_, v = acquire(t, b, "bob")
	assert.Equal(t, streamquota.CallerFull, v, "counted in the store again")
	assert.Equal(t, 2, strings.Count(log.String(), "the shared store answers again"), log.String())
}

func TestSharedWaitsForTheStoreNoLongerThanItsTimeout(t *testing.T) {
	store := storetest.NewFaultyStore(toolexec.NewMemoryStore())
	store.Hang(storetest.OpAdmit)
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
	store := storetest.NewFaultyStore(toolexec.NewMemoryStore())
	rs := replicaCounters(store, 2, 10, 1, ttl, nil)
	_, v := acquire(t, rs[0], "alice")
	require.Equal(t, streamquota.Admitted, v)
	require.Eventually(t, func() bool {
		return store.Calls(storetest.OpRenewSlot) >= 4 // more than the lease's TTL has passed
	}, 30*time.Second, 10*time.Millisecond)
	_, v = acquire(t, rs[1], "alice")
	assert.Equal(t, streamquota.CallerFull, v, "the renewed lease still holds alice's slot")
}

func TestSharedTakesASlotAgainWhenItsLeaseRanOut(t *testing.T) {
	const ttl = 300 * time.Millisecond
	store := storetest.NewFaultyStore(toolexec.NewMemoryStore())
	var log testlog.Buffer
	rs := replicaCounters(store, 2, 10, 1, ttl, &log)
	a, b := rs[0], rs[1]
	release, v := acquire(t, a, "alice")
	require.Equal(t, streamquota.Admitted, v)
	store.LoseLeases(1) // the store loses the lease (restarted, say)
	require.Eventually(t, func() bool {
		return store.Calls(storetest.OpAdmit) == 2 // taken again: only a lost lease is
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
