package storetest_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolexec/toolexec"
	"github.com/toolexec/toolexec/storetest"
)

func TestFaultyStoreKeepsTheContractUntilToldOtherwise(t *testing.T) {
	storetest.Test(t, func(*testing.T) toolexec.Store { return storetest.NewFaultyStore(toolexec.NewMemoryStore()) })
}

// every calls op on s once, and returns its error.
func every(ctx context.Context, s *storetest.FaultyStore, op storetest.Op) error {
	var err error
	switch op {
	case storetest.OpGet:
		_, _, err = s.Get(ctx, "k")
	case storetest.OpSet:
		err = s.Set(ctx, "k", []byte("v"), time.Minute)
	case storetest.OpAdd:
		_, err = s.Add(ctx, "k", []byte("v"), time.Minute)
	case storetest.OpCompareAndSwap:
		_, err = s.CompareAndSwap(ctx, "k", []byte("v"), []byte("w"), time.Minute)
	case storetest.OpDelete:
		err = s.Delete(ctx, "k")
	case storetest.OpAdmit:
		_, err = s.Admit(ctx, toolexec.AdmitRequest{SlotKey: "s", SlotMax: 10, SlotTTL: time.Minute})
	case storetest.OpRenewSlot:
		_, err = s.RenewSlot(ctx, "s", "lease", time.Minute)
	case storetest.OpRelease:
		err = s.Release(ctx, toolexec.ReleaseRequest{SlotKey: "s", Lease: "lease"})
	case storetest.OpPublish:
		err = s.Publish(ctx, "c", []byte("m"))
	case storetest.OpSubscribe:
		var stop func()
		if stop, err = s.Subscribe(ctx, "c", func([]byte) {}); err == nil {
			stop()
		}
	case storetest.OpAppendEvent:
		_, err = s.AppendEvent(ctx, "log", []byte("e"), time.Minute)
	case storetest.OpAppendOwnedEvent:
		_, err = s.AppendOwnedEvent(ctx, "owner", "log", []byte("e"), time.Minute)
	case storetest.OpReadEvents:
		_, _, err = s.ReadEvents(ctx, "log", "", 0)
	case storetest.OpWatchEvents:
		var stop func()
		if stop, err = s.WatchEvents(ctx, "log", func() {}); err == nil {
			stop()
		}
	default:
		panic(op)
	}
	return err
}

// ops are every Op.
var ops = []storetest.Op{storetest.OpGet, storetest.OpSet, storetest.OpAdd, storetest.OpCompareAndSwap, storetest.OpDelete,
	storetest.OpAdmit, storetest.OpRenewSlot, storetest.OpRelease, storetest.OpPublish, storetest.OpSubscribe,
	storetest.OpAppendEvent, storetest.OpAppendOwnedEvent, storetest.OpReadEvents, storetest.OpWatchEvents}

func TestFaultyStoreFailsEveryOperationUntilItRecovers(t *testing.T) {
	s := storetest.NewFaultyStore(toolexec.NewMemoryStore())
	s.Fail()
	for _, op := range ops {
		assert.ErrorIs(t, every(context.Background(), s, op), storetest.ErrUnreachable, op.String())
	}
	s.Recover()
	for _, op := range ops {
		assert.NoError(t, every(context.Background(), s, op), op.String())
		assert.Equal(t, 2, s.Calls(op), "%s: counted, faulted or not", op)
	}
}

func TestFaultyStoreFailsOnlyTheOperationsNamed(t *testing.T) {
	s := storetest.NewFaultyStore(toolexec.NewMemoryStore())
	ctx := context.Background()
	require.NoError(t, s.Set(ctx, "k", []byte("v"), time.Minute))
	s.Fail(storetest.OpGet, storetest.OpRelease)

	_, _, err := s.Get(ctx, "k")
	assert.ErrorIs(t, err, storetest.ErrUnreachable)
	adm, err := s.Admit(ctx, toolexec.AdmitRequest{SlotKey: "s", SlotMax: 1, SlotTTL: time.Minute})
	require.NoError(t, err, "Admit is not named")
	assert.ErrorIs(t, s.Release(ctx, toolexec.ReleaseRequest{SlotKey: "s", Lease: adm.Lease}), storetest.ErrUnreachable)
	adm2, err := s.Admit(ctx, toolexec.AdmitRequest{SlotKey: "s", SlotMax: 1, SlotTTL: time.Minute})
	require.NoError(t, err)
	assert.True(t, adm2.SlotsFull, "the failed Release never reached the store")

	s.Recover()
	v, ok, err := s.Get(ctx, "k")
	require.NoError(t, err)
	assert.True(t, ok)
	assert.Equal(t, "v", string(v))
	assert.Len(t, s.Admissions(), 2)
	assert.Equal(t, "s", s.Admissions()[1].SlotKey)
}

func TestFaultyStoreHangsUntilTheContextEnds(t *testing.T) {
	s := storetest.NewFaultyStore(toolexec.NewMemoryStore())
	s.Hang(storetest.OpAdmit)
	s.Fail(storetest.OpAdmit)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	_, err := s.Admit(ctx, toolexec.AdmitRequest{SlotKey: "s", SlotMax: 1, SlotTTL: time.Minute})
	assert.ErrorIs(t, err, context.DeadlineExceeded, "hanging goes before failing")
	assert.NoError(t, s.Set(context.Background(), "k", nil, time.Minute), "other operations answer")
}

func TestFaultyStoreLosesTheLeasesItIsTold(t *testing.T) {
	s := storetest.NewFaultyStore(toolexec.NewMemoryStore())
	ctx := context.Background()
	slot := toolexec.AdmitRequest{SlotKey: "s", SlotMax: 1, SlotTTL: time.Minute}
	adm, err := s.Admit(ctx, slot)
	require.NoError(t, err)
	require.True(t, adm.Admitted())

	s.LoseLeases(1)
	ok, err := s.RenewSlot(ctx, "s", adm.Lease, time.Minute)
	require.NoError(t, err)
	assert.False(t, ok, "the lease was lost")
	again, err := s.Admit(ctx, slot)
	require.NoError(t, err)
	require.True(t, again.Admitted(), "and its slot with it")
	ok, err = s.RenewSlot(ctx, "s", again.Lease, time.Minute)
	require.NoError(t, err)
	assert.True(t, ok, "only one lease was to be lost")

	s.LoseLeases(-1)
	for range 3 {
		ok, err = s.RenewSlot(ctx, "s", again.Lease, time.Minute)
		require.NoError(t, err)
		assert.False(t, ok, "every lease is lost")
	}
	s.Recover()
	again, err = s.Admit(ctx, slot)
	require.NoError(t, err)
	ok, err = s.RenewSlot(ctx, "s", again.Lease, time.Minute)
	require.NoError(t, err)
	assert.True(t, ok, "a recovered store keeps its leases")
}

// plainStore is a Store without OwnedEventLog.
type plainStore struct{ toolexec.Store }

func TestFaultyStoreAppendsOwnedEventsToAStoreWithoutOwners(t *testing.T) {
	s := storetest.NewFaultyStore(plainStore{toolexec.NewMemoryStore()})
	ctx := context.Background()
	_, err := s.AppendOwnedEvent(ctx, "owner", "log", []byte("e"), time.Minute)
	require.NoError(t, err)
	events, _, err := s.ReadEvents(ctx, "log", "", 0)
	require.NoError(t, err)
	require.Len(t, events, 1)
	assert.Equal(t, "e", string(events[0].Data))
}

func ExampleFaultyStore() {
	store := storetest.NewFaultyStore(toolexec.NewMemoryStore())
	ctx := context.Background()
	_ = store.Set(ctx, "greeting", []byte("hello"), time.Minute)

	store.Fail(storetest.OpGet) // the store cannot be reached, for reads
	_, _, err := store.Get(ctx, "greeting")
	fmt.Println(errors.Is(err, storetest.ErrUnreachable))

	store.Recover()
	v, _, _ := store.Get(ctx, "greeting")
	fmt.Println(string(v), store.Calls(storetest.OpGet))
	// Output:
	// true
	// hello 2
}
