// Package storetest checks an implementation of toolexec.Store against the
// interface's contract, as testing/fstest checks a file system:
//
//	func TestStore(t *testing.T) {
//		storetest.Test(t, func(t *testing.T) toolexec.Store { return newStore(t) })
//	}
//
// It runs one subtest per behaviour, each on a fresh store from open (a
// store sharing a server with others must keep its keys apart, with a
// prefix of its own, say). Expiry is checked with time-to-lives of tens of
// milliseconds and waits of up to a few seconds for it, never with an
// upper bound on how fast the store answers.
package storetest

import (
	"bytes"
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolexec/toolexec"
)

// wait bounds how long a check waits for what must happen eventually
// (an expiry, a message).
const wait = 5 * time.Second

// short is the time-to-live of what a check waits to see expire.
const short = 50 * time.Millisecond

// Test runs every check on stores from open.
func Test(t *testing.T, open func(t *testing.T) toolexec.Store) {
	t.Helper()
	for _, c := range checks {
		t.Run(c.name, func(t *testing.T) { c.run(t, open(t)) })
	}
}

var checks = []struct {
	name string
	run  func(t *testing.T, s toolexec.Store)
}{
	{"KV/SetThenGet", kvSetThenGet},
	{"KV/ExpiresAfterTTL", kvExpires},
	{"KV/AddOnlyWhenAbsent", kvAdd},
	{"KV/CompareAndSwap", kvCompareAndSwap},
	{"KV/Delete", kvDelete},
	{"Limits/RateAllowsBurstThenRefuses", limitsRate},
	{"Limits/RatesAreKeyedApart", limitsRateKeys},
	{"Limits/SlotsAreBounded", limitsSlots},
	{"Limits/RefusedSlotConsumesNoRate", limitsAtomicSlot},
	{"Limits/RefusedRateTakesNoSlot", limitsAtomicRate},
	{"Limits/LeaseRunsOut", limitsLeaseRunsOut},
	{"Limits/RenewKeepsTheSlot", limitsRenew},
	{"Limits/AdmitReadsAKey", limitsRead},
	{"Limits/AFoundValueTakesNoSlot", limitsReadHit},
	{"Limits/ReleaseGivesBackAndWrites", limitsRelease},
	{"PubSub/DeliversInOrder", pubsubOrder},
	{"PubSub/EverySubscriberAndOnlyItsChannel", pubsubFanOut},
	{"PubSub/StopEndsDelivery", pubsubStop},
	{"EventLog/AppendThenRead", logAppendRead},
	{"EventLog/UnknownAfterIsNotFound", logUnknown},
	{"EventLog/ExpiresAfterTTL", logExpires},
	{"EventLog/WatchNotifiesAppends", logWatch},
}

func ctx() context.Context { return context.Background() }

func kvSetThenGet(t *testing.T, s toolexec.Store) {
	_, ok, err := s.Get(ctx(), "k")
	require.NoError(t, err)
	assert.False(t, ok, "nothing stored yet")

	v := []byte("value")
	require.NoError(t, s.Set(ctx(), "k", v, time.Hour))
	v[0] = 'X' // the store keeps what was set, not the caller's slice
	got, ok, err := s.Get(ctx(), "k")
	require.NoError(t, err)
	require.True(t, ok)
	assert.Equal(t, "value", string(got))

	require.NoError(t, s.Set(ctx(), "k", []byte("other"), time.Hour))
	got, _, _ = s.Get(ctx(), "k")
	assert.Equal(t, "other", string(got), "Set replaces")
}

func kvExpires(t *testing.T, s toolexec.Store) {
	require.NoError(t, s.Set(ctx(), "k", []byte("v"), short))
	require.Eventually(t, func() bool {
		_, ok, err := s.Get(ctx(), "k")
		return err == nil && !ok
	}, wait, 5*time.Millisecond, "a value is gone after its TTL")
}

func kvAdd(t *testing.T, s toolexec.Store) {
	ok, err := s.Add(ctx(), "k", []byte("first"), short)
	require.NoError(t, err)
	assert.True(t, ok)
	ok, err = s.Add(ctx(), "k", []byte("second"), time.Hour)
	require.NoError(t, err)
	assert.False(t, ok, "the key holds a value")
	got, _, _ := s.Get(ctx(), "k")
	assert.Equal(t, "first", string(got))

	require.Eventually(t, func() bool {
		ok, err := s.Add(ctx(), "k", []byte("third"), time.Hour)
		return err == nil && ok
	}, wait, 5*time.Millisecond, "an expired value counts as absent")
	got, _, _ = s.Get(ctx(), "k")
	assert.Equal(t, "third", string(got))
}

func kvCompareAndSwap(t *testing.T, s toolexec.Store) {
	ok, err := s.CompareAndSwap(ctx(), "k", []byte("a"), []byte("b"), time.Hour)
	require.NoError(t, err)
	assert.False(t, ok, "nothing to compare with")

	require.NoError(t, s.Set(ctx(), "k", []byte("a"), time.Hour))
	ok, err = s.CompareAndSwap(ctx(), "k", []byte("x"), []byte("b"), time.Hour)
	require.NoError(t, err)
	assert.False(t, ok, "old does not match")
	got, _, _ := s.Get(ctx(), "k")
	assert.Equal(t, "a", string(got))

	ok, err = s.CompareAndSwap(ctx(), "k", []byte("a"), []byte("b"), short)
	require.NoError(t, err)
	assert.True(t, ok)
	got, _, _ = s.Get(ctx(), "k")
	assert.Equal(t, "b", string(got))
	require.Eventually(t, func() bool {
		_, ok, err := s.Get(ctx(), "k")
		return err == nil && !ok
	}, wait, 5*time.Millisecond, "the swapped value has the new TTL")

	// Concurrent swaps from one value: exactly one wins.
	require.NoError(t, s.Set(ctx(), "race", []byte("0"), time.Hour))
	var wins sync.Map
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Go(func() {
			if ok, err := s.CompareAndSwap(ctx(), "race", []byte("0"), fmt.Appendf(nil, "%d", i+1), time.Hour); err == nil && ok {
				wins.Store(i, true)
			}
		})
	}
	wg.Wait()
	n := 0
	wins.Range(func(any, any) bool { n++; return true })
	assert.Equal(t, 1, n, "one swap wins")
}

func kvDelete(t *testing.T, s toolexec.Store) {
	require.NoError(t, s.Delete(ctx(), "absent"), "deleting nothing is no error")
	require.NoError(t, s.Set(ctx(), "k", []byte("v"), time.Hour))
	require.NoError(t, s.Delete(ctx(), "k"))
	_, ok, err := s.Get(ctx(), "k")
	require.NoError(t, err)
	assert.False(t, ok)
}

func admit(t *testing.T, s toolexec.Store, a toolexec.AdmitRequest) toolexec.AdmitResult {
	t.Helper()
	adm, err := s.Admit(ctx(), a)
	require.NoError(t, err)
	return adm
}

func limitsRate(t *testing.T, s toolexec.Store) {
	rate := toolexec.RateLimit{Rate: 3, Per: time.Hour}
	for i := range 3 {
		adm := admit(t, s, toolexec.AdmitRequest{RateKey: "r", Rate: rate})
		assert.True(t, adm.Admitted(), "call %d is within the burst", i+1)
		assert.Empty(t, adm.Lease, "no slot was asked for")
	}
	adm := admit(t, s, toolexec.AdmitRequest{RateKey: "r", Rate: rate})
	assert.False(t, adm.Admitted())
	assert.False(t, adm.SlotsFull)
	assert.Greater(t, adm.RateWait, 19*time.Minute, "one call every 20 minutes")
	assert.LessOrEqual(t, adm.RateWait, 20*time.Minute)
}

func limitsRateKeys(t *testing.T, s toolexec.Store) {
	rate := toolexec.RateLimit{Rate: 1, Per: time.Hour}
	assert.True(t, admit(t, s, toolexec.AdmitRequest{RateKey: "a", Rate: rate}).Admitted())
	assert.False(t, admit(t, s, toolexec.AdmitRequest{RateKey: "a", Rate: rate}).Admitted())
	assert.True(t, admit(t, s, toolexec.AdmitRequest{RateKey: "b", Rate: rate}).Admitted(), "another key, another rate")
}

func limitsSlots(t *testing.T, s toolexec.Store) {
	a := toolexec.AdmitRequest{SlotKey: "s", SlotMax: 2, SlotTTL: time.Hour}
	one, two := admit(t, s, a), admit(t, s, a)
	require.True(t, one.Admitted())
	require.True(t, two.Admitted())
	assert.NotEmpty(t, one.Lease)
	assert.NotEqual(t, one.Lease, two.Lease)
	three := admit(t, s, a)
	assert.True(t, three.SlotsFull)
	assert.False(t, three.Admitted())
	assert.Empty(t, three.Lease)

	other := admit(t, s, toolexec.AdmitRequest{SlotKey: "other", SlotMax: 1, SlotTTL: time.Hour})
	assert.True(t, other.Admitted(), "another key, other slots")

	require.NoError(t, s.Release(ctx(), toolexec.ReleaseRequest{SlotKey: "s", Lease: one.Lease}))
	require.NoError(t, s.Release(ctx(), toolexec.ReleaseRequest{SlotKey: "s", Lease: one.Lease}), "releasing twice is no error")
	assert.True(t, admit(t, s, a).Admitted(), "a released slot is free")
	assert.True(t, admit(t, s, a).SlotsFull, "and only that one")
}

func limitsAtomicSlot(t *testing.T, s toolexec.Store) {
	held := admit(t, s, toolexec.AdmitRequest{SlotKey: "s", SlotMax: 1, SlotTTL: time.Hour})
	require.True(t, held.Admitted())
	both := toolexec.AdmitRequest{RateKey: "r", Rate: toolexec.RateLimit{Rate: 1, Per: time.Hour}, SlotKey: "s", SlotMax: 1, SlotTTL: time.Hour}
	for range 3 {
		assert.True(t, admit(t, s, both).SlotsFull)
	}
	require.NoError(t, s.Release(ctx(), toolexec.ReleaseRequest{SlotKey: "s", Lease: held.Lease}))
	adm := admit(t, s, both)
	assert.True(t, adm.Admitted(), "the refusals consumed nothing of the rate")
	assert.NotEmpty(t, adm.Lease)
}

func limitsAtomicRate(t *testing.T, s toolexec.Store) {
	rate := toolexec.RateLimit{Rate: 1, Per: time.Hour}
	require.True(t, admit(t, s, toolexec.AdmitRequest{RateKey: "r", Rate: rate}).Admitted())
	adm := admit(t, s, toolexec.AdmitRequest{RateKey: "r", Rate: rate, SlotKey: "s", SlotMax: 1, SlotTTL: time.Hour})
	assert.Positive(t, adm.RateWait)
	assert.Empty(t, adm.Lease)
	assert.True(t, admit(t, s, toolexec.AdmitRequest{SlotKey: "s", SlotMax: 1, SlotTTL: time.Hour}).Admitted(),
		"the call the rate refused took no slot")
}

func limitsLeaseRunsOut(t *testing.T, s toolexec.Store) {
	a := toolexec.AdmitRequest{SlotKey: "s", SlotMax: 1, SlotTTL: short}
	held := admit(t, s, a)
	require.True(t, held.Admitted())
	require.Eventually(t, func() bool {
		adm, err := s.Admit(ctx(), a)
		return err == nil && adm.Admitted()
	}, wait, 5*time.Millisecond, "a lease not renewed runs out and frees its slot")
	ok, err := s.RenewSlot(ctx(), "s", held.Lease, time.Hour)
	require.NoError(t, err)
	assert.False(t, ok, "a lease that ran out cannot be renewed")
}

func limitsRenew(t *testing.T, s toolexec.Store) {
	a := toolexec.AdmitRequest{SlotKey: "s", SlotMax: 1, SlotTTL: 300 * time.Millisecond}
	held := admit(t, s, a)
	require.True(t, held.Admitted())
	ok, err := s.RenewSlot(ctx(), "s", held.Lease, time.Hour)
	require.NoError(t, err)
	require.True(t, ok)
	time.Sleep(600 * time.Millisecond) // past the first TTL
	assert.True(t, admit(t, s, a).SlotsFull, "the renewed lease still holds the slot")

	require.NoError(t, s.Release(ctx(), toolexec.ReleaseRequest{SlotKey: "s", Lease: held.Lease}))
	ok, err = s.RenewSlot(ctx(), "s", held.Lease, time.Hour)
	require.NoError(t, err)
	assert.False(t, ok, "a released lease cannot be renewed")
}

func limitsRead(t *testing.T, s toolexec.Store) {
	require.NoError(t, s.Set(ctx(), "k", []byte("cached"), time.Hour))
	for name, a := range map[string]toolexec.AdmitRequest{
		"with a slot and a rate": {RateKey: "r", Rate: toolexec.RateLimit{Rate: 100}, SlotKey: "s", SlotMax: 5, SlotTTL: time.Hour, Read: "k"},
		"with a rate alone":      {RateKey: "r2", Rate: toolexec.RateLimit{Rate: 100}, Read: "k"},
		"alone":                  {Read: "k"},
	} {
		adm := admit(t, s, a)
		assert.True(t, adm.Admitted(), name)
		assert.True(t, adm.Found, name)
		assert.Equal(t, "cached", string(adm.Value), name)
	}
	adm := admit(t, s, toolexec.AdmitRequest{SlotKey: "s2", SlotMax: 1, SlotTTL: time.Hour, Read: "absent"})
	assert.True(t, adm.Admitted())
	assert.False(t, adm.Found, "a key that holds nothing")
	assert.Nil(t, adm.Value)
}

func limitsReadHit(t *testing.T, s toolexec.Store) {
	require.NoError(t, s.Set(ctx(), "k", []byte("cached"), time.Hour))
	held := admit(t, s, toolexec.AdmitRequest{SlotKey: "s", SlotMax: 1, SlotTTL: time.Hour})
	require.True(t, held.Admitted())

	rate := toolexec.RateLimit{Rate: 1, Per: time.Hour}
	hit := admit(t, s, toolexec.AdmitRequest{RateKey: "r", Rate: rate, SlotKey: "s", SlotMax: 1, SlotTTL: time.Hour, Read: "k"})
	assert.True(t, hit.Admitted(), "a call answered from the value needs no slot, though every slot is held")
	assert.True(t, hit.Found)
	assert.Empty(t, hit.Lease, "and takes none")
	assert.Positive(t, admit(t, s, toolexec.AdmitRequest{RateKey: "r", Rate: rate}).RateWait, "the rate counted it")

	miss := admit(t, s, toolexec.AdmitRequest{SlotKey: "s", SlotMax: 1, SlotTTL: time.Hour, Read: "absent"})
	assert.True(t, miss.SlotsFull, "a call that finds nothing waits for a slot")
	assert.False(t, miss.Found)
}

func limitsRelease(t *testing.T, s toolexec.Store) {
	a := toolexec.AdmitRequest{SlotKey: "s", SlotMax: 1, SlotTTL: time.Hour}
	held := admit(t, s, a)
	require.True(t, held.Admitted())
	require.NoError(t, s.Release(ctx(), toolexec.ReleaseRequest{SlotKey: "s", Lease: held.Lease, Write: "k", Value: []byte("v"), TTL: time.Hour}))
	got, ok, err := s.Get(ctx(), "k")
	require.NoError(t, err)
	assert.True(t, ok, "the value is stored")
	assert.Equal(t, "v", string(got))
	again := admit(t, s, a)
	assert.True(t, again.Admitted(), "and the slot given back")

	require.NoError(t, s.Release(ctx(), toolexec.ReleaseRequest{Write: "k2", Value: []byte("w"), TTL: time.Hour}), "a write alone")
	got, _, err = s.Get(ctx(), "k2")
	require.NoError(t, err)
	assert.Equal(t, "w", string(got))
	require.NoError(t, s.Release(ctx(), toolexec.ReleaseRequest{SlotKey: "s", Lease: again.Lease}), "a slot alone")
	assert.True(t, admit(t, s, a).Admitted())
	require.NoError(t, s.Release(ctx(), toolexec.ReleaseRequest{}), "nothing at all")
}

// collector gathers the messages of a subscription.
type collector struct {
	mu  sync.Mutex
	got []string
}

func (c *collector) add(m []byte) {
	c.mu.Lock()
	c.got = append(c.got, string(m))
	c.mu.Unlock()
}

func (c *collector) messages() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]string(nil), c.got...)
}

func pubsubOrder(t *testing.T, s toolexec.Store) {
	var c collector
	stop, err := s.Subscribe(ctx(), "ch", c.add)
	require.NoError(t, err)
	defer stop()
	for _, m := range []string{"1", "2", "3"} {
		require.NoError(t, s.Publish(ctx(), "ch", []byte(m)))
	}
	require.Eventually(t, func() bool { return len(c.messages()) == 3 }, wait, time.Millisecond)
	assert.Equal(t, []string{"1", "2", "3"}, c.messages())
}

func pubsubFanOut(t *testing.T, s toolexec.Store) {
	var a, b, other collector
	for _, sub := range []struct {
		ch string
		c  *collector
	}{{"ch", &a}, {"ch", &b}, {"other", &other}} {
		stop, err := s.Subscribe(ctx(), sub.ch, sub.c.add)
		require.NoError(t, err)
		defer stop()
	}
	require.NoError(t, s.Publish(ctx(), "ch", []byte("m")))
	require.NoError(t, s.Publish(ctx(), "ch2", []byte("n")))
	require.NoError(t, s.Publish(ctx(), "other", []byte("o")))
	require.Eventually(t, func() bool {
		return len(a.messages()) == 1 && len(b.messages()) == 1 && len(other.messages()) == 1
	}, wait, time.Millisecond)
	assert.Equal(t, []string{"m"}, a.messages())
	assert.Equal(t, []string{"m"}, b.messages())
	assert.Equal(t, []string{"o"}, other.messages(), "a subscriber gets its own channel's messages only")
}

func pubsubStop(t *testing.T, s toolexec.Store) {
	var stopped, live collector
	stop, err := s.Subscribe(ctx(), "ch", stopped.add)
	require.NoError(t, err)
	stopLive, err := s.Subscribe(ctx(), "ch", live.add)
	require.NoError(t, err)
	defer stopLive()
	require.NoError(t, s.Publish(ctx(), "ch", []byte("1")))
	require.Eventually(t, func() bool { return len(stopped.messages()) == 1 }, wait, time.Millisecond)
	stop()
	stop() // stopping twice is harmless
	require.NoError(t, s.Publish(ctx(), "ch", []byte("2")))
	require.Eventually(t, func() bool { return len(live.messages()) == 2 }, wait, time.Millisecond)
	assert.Equal(t, []string{"1"}, stopped.messages(), "nothing reaches a stopped subscription")
}

func logAppendRead(t *testing.T, s toolexec.Store) {
	var ids []string
	for _, d := range []string{"a", "b", "c"} {
		id, err := s.AppendEvent(ctx(), "st", []byte(d), time.Hour)
		require.NoError(t, err)
		require.NotEmpty(t, id)
		ids = append(ids, id)
	}
	assert.NotEqual(t, ids[0], ids[1])
	assert.NotEqual(t, ids[1], ids[2])

	evs, found, err := s.ReadEvents(ctx(), "st", "", 0)
	require.NoError(t, err)
	assert.True(t, found)
	assert.Equal(t, []toolexec.Event{{ID: ids[0], Data: []byte("a")}, {ID: ids[1], Data: []byte("b")}, {ID: ids[2], Data: []byte("c")}}, evs)

	evs, found, err = s.ReadEvents(ctx(), "st", ids[0], 0)
	require.NoError(t, err)
	assert.True(t, found)
	require.Len(t, evs, 2)
	assert.Equal(t, ids[1], evs[0].ID)

	evs, _, err = s.ReadEvents(ctx(), "st", ids[0], 1)
	require.NoError(t, err)
	assert.Equal(t, []toolexec.Event{{ID: ids[1], Data: []byte("b")}}, evs, "at most max")

	evs, found, err = s.ReadEvents(ctx(), "st", ids[2], 0)
	require.NoError(t, err)
	assert.True(t, found)
	assert.Empty(t, evs, "nothing after the last")

	evs, found, err = s.ReadEvents(ctx(), "never", "", 0)
	require.NoError(t, err)
	assert.True(t, found)
	assert.Empty(t, evs, "a log never written holds nothing")
}

func logUnknown(t *testing.T, s toolexec.Store) {
	id, err := s.AppendEvent(ctx(), "st", []byte("a"), time.Hour)
	require.NoError(t, err)
	for _, after := range []string{"nonsense", "999999999999999-0", "999999"} {
		evs, found, err := s.ReadEvents(ctx(), "st", after, 0)
		require.NoError(t, err, after)
		assert.False(t, found, "%q is no event of the log", after)
		assert.Empty(t, evs)
	}
	_, found, err := s.ReadEvents(ctx(), "other", id, 0)
	require.NoError(t, err)
	assert.False(t, found, "an id of another log")
}

func logExpires(t *testing.T, s toolexec.Store) {
	_, err := s.AppendEvent(ctx(), "st", []byte("a"), short)
	require.NoError(t, err)
	require.Eventually(t, func() bool {
		evs, _, err := s.ReadEvents(ctx(), "st", "", 0)
		return err == nil && len(evs) == 0
	}, wait, 5*time.Millisecond, "a log is gone a TTL after its last append")
}

func logWatch(t *testing.T, s toolexec.Store) {
	notified := make(chan struct{}, 16)
	stop, err := s.WatchEvents(ctx(), "st", func() { notified <- struct{}{} })
	require.NoError(t, err)
	_, err = s.AppendEvent(ctx(), "other", []byte("x"), time.Hour)
	require.NoError(t, err)
	_, err = s.AppendEvent(ctx(), "st", []byte("a"), time.Hour)
	require.NoError(t, err)
	select {
	case <-notified:
	case <-time.After(wait):
		t.Fatal("no notification of the append")
	}
	stop()
	for len(notified) > 0 {
		<-notified
	}
	_, err = s.AppendEvent(ctx(), "st", []byte("b"), time.Hour)
	require.NoError(t, err)
	// The append reached the store; a stopped watch must not hear of it.
	evs, _, err := s.ReadEvents(ctx(), "st", "", 0)
	require.NoError(t, err)
	require.Len(t, evs, 2)
	assert.True(t, bytes.Equal(evs[1].Data, []byte("b")))
	time.Sleep(50 * time.Millisecond)
	assert.Empty(t, notified, "no notification after stop")
}
