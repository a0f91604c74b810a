package mcp

import (
	"context"
	"log/slog"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolexec/toolexec"
	"github.com/toolexec/toolexec/storetest"
)

func testRing(kv toolexec.KV, rotation, keep time.Duration) *keyring {
	return &keyring{kv: kv, log: slog.New(slog.DiscardHandler), rotation: rotation, keep: keep}
}

func sign(k *keyring, payload string) (string, []byte) { return k.sign([]byte(payload)) }

func TestReplicasSharingAStoreShareTheSigningKey(t *testing.T) {
	store := toolexec.NewMemoryStore()
	a, b := testRing(store, time.Hour, time.Hour), testRing(store, time.Hour, time.Hour)

	kid, sum := sign(a, "state")
	assert.NotEmpty(t, kid)
	assert.True(t, b.verify(kid, []byte("state"), sum), "a state signed on one replica verifies on another")
	assert.False(t, b.verify(kid, []byte("altered"), sum))
	other := testRing(toolexec.NewMemoryStore(), time.Hour, time.Hour)
	assert.False(t, other.verify(kid, []byte("state"), sum), "a service with another store has other keys")
}

func TestRotationDoesNotRefuseStatesInFlight(t *testing.T) {
	store := toolexec.NewMemoryStore()
	keep := time.Second
	a := testRing(store, time.Second, keep) // keys are created with second precision
	oldKid, oldSum := sign(a, "before")

	time.Sleep(1100 * time.Millisecond) // the key is due to retire
	a.set.Store(nil)                    // as at the next refresh
	newKid, newSum := sign(a, "after")
	require.NotEqual(t, oldKid, newKid, "a new key signs once the rotation is due")

	b := testRing(store, time.Second, keep) // a replica that never saw the old key signing
	assert.True(t, b.verify(oldKid, []byte("before"), oldSum), "a state the retired key signed still verifies")
	assert.True(t, b.verify(newKid, []byte("after"), newSum))

	// Once the retired key's states have all expired, it goes at the next
	// rotation.
	time.Sleep(keep + 1100*time.Millisecond)
	c := testRing(store, time.Second, keep)
	sign(c, "later")
	c.set.Store(nil)
	c.lastForced.Store(0)
	assert.False(t, c.verify(oldKid, []byte("before"), oldSum), "a key retired longer ago than any state lives is dropped")
}

func TestAReplicaLearnsAnotherReplicasNewKey(t *testing.T) {
	store := toolexec.NewMemoryStore()
	a, b := testRing(store, time.Hour, time.Hour), testRing(store, time.Hour, time.Hour)
	sign(b, "x") // b has loaded the ring

	// a rotates (here: the shared record is replaced with a new key).
	require.NoError(t, store.Delete(context.Background(), stateKeysKey))
	kid, sum := sign(a, "state")
	assert.True(t, b.verify(kid, []byte("state"), sum), "an unseen key id makes the ring reload")
	assert.False(t, b.verify("0000000000000000", []byte("state"), sum), "and an unknown one does not verify")
}

func TestAnUnreachableStoreFallsBackToAKeyOfTheProcess(t *testing.T) {
	down := storetest.NewFaultyStore(toolexec.NewMemoryStore())
	down.Fail()
	k := testRing(down, time.Hour, time.Hour)
	kid, sum := sign(k, "state")
	assert.True(t, k.verify(kid, []byte("state"), sum), "the process still signs and verifies its own states")
}

func TestAFixedKeyIsUsedAsIs(t *testing.T) {
	k := &keyring{fixed: []byte("0123456789abcdef0123456789abcdef")}
	kid, sum := k.sign([]byte("state"))
	assert.Empty(t, kid, "no key id: the state has the form it always had")
	assert.True(t, k.verify("", []byte("state"), sum))
	assert.False(t, k.verify("abc", []byte("state"), sum))
}
