package mcp

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"log/slog"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/toolexec/toolexec"
)

// DefaultStateKeyRotation is how often the handlers sharing a store draw a
// new key to sign 2026-07-28 requestState with, when WithInputStateKey
// does not fix one. A retired key still verifies the states it signed
// until they have all expired (the input timeout).
const DefaultStateKeyRotation = 24 * time.Hour

// The keyring's timing: how often a handler rereads the shared keys, and
// how soon it may reread them again to verify a state signed by a key it
// has not seen (another replica's new key), so that states naming unknown
// keys cannot make it ask the store on every request.
const (
	keyRefresh     = time.Minute
	keyRetryUnseen = time.Second
	keyOpTimeout   = 2 * time.Second
)

// stateKeysKey is the store key of the shared keys.
const stateKeysKey = "mcp:statekeys"

// stateKey is one key of the ring, as the store keeps it.
type stateKey struct {
	ID      string `json:"id"`
	Secret  []byte `json:"k"`
	Created int64  `json:"c"` // Unix seconds
}

// keySet is the keys a handler knows, oldest first; the last signs.
type keySet struct {
	keys   []stateKey
	loaded time.Time
}

func (s *keySet) newest() *stateKey { return &s.keys[len(s.keys)-1] }

func (s *keySet) find(id string) *stateKey {
	for i := range s.keys {
		if s.keys[i].ID == id {
			return &s.keys[i]
		}
	}
	return nil
}

// keyring holds the keys that sign and verify requestState: one fixed key
// (WithInputStateKey), or keys shared through the Executor's store, a new
// one drawn every rotation by whichever handler first finds the newest too
// old, and each kept until the states it signed have expired. In one
// process the store is the Executor's own, and the ring is the process's.
type keyring struct {
	fixed    []byte // WithInputStateKey; nil: shared keys
	kv       toolexec.KV
	log      *slog.Logger
	rotation time.Duration
	keep     time.Duration // how long a retired key still verifies

	set        atomic.Pointer[keySet]
	mu         sync.Mutex // one reload at a time
	refreshing atomic.Bool
	lastForced atomic.Int64 // UnixNano of the last reload for an unseen key
}

// sign returns the id of the key that signs now, and payload's MAC.
func (k *keyring) sign(payload []byte) (string, []byte) {
	if k.fixed != nil {
		return "", macOf(k.fixed, payload)
	}
	set := k.current()
	key := set.newest()
	return key.ID, macOf(key.Secret, payload)
}

// verify reports whether sum is payload's MAC under the key named id ("":
// any key the ring holds, for a state without a key id).
func (k *keyring) verify(id string, payload, sum []byte) bool {
	if k.fixed != nil {
		return id == "" && hmac.Equal(sum, macOf(k.fixed, payload))
	}
	set := k.current()
	if id == "" {
		for i := range set.keys {
			if hmac.Equal(sum, macOf(set.keys[i].Secret, payload)) {
				return true
			}
		}
		return false
	}
	key := set.find(id)
	if key == nil {
		// Perhaps another replica's newer key: reload, at most once a
		// second, and look again.
		now := time.Now().UnixNano()
		last := k.lastForced.Load()
		if now-last < int64(keyRetryUnseen) || !k.lastForced.CompareAndSwap(last, now) {
			return false
		}
		set = k.reload()
		if key = set.find(id); key == nil {
			return false
		}
	}
	return hmac.Equal(sum, macOf(key.Secret, payload))
}

func macOf(key, payload []byte) []byte {
	mac := hmac.New(sha256.New, key)
	mac.Write(payload)
	return mac.Sum(nil)
}

// current returns the keys, loading them on first use and refreshing them
// in the background once they are older than keyRefresh.
func (k *keyring) current() *keySet {
	set := k.set.Load()
	if set == nil {
		return k.reload()
	}
	if time.Since(set.loaded) > keyRefresh && k.refreshing.CompareAndSwap(false, true) {
		go func() {
			defer k.refreshing.Store(false)
			k.reload()
		}()
	}
	return set
}

// reload reads the shared keys, draws a new one when the newest is due to
// retire (or there is none), and returns the keys. When the store cannot be
// reached it keeps the keys it had, or, having none, draws one of its own,
// which verifies only on this process.
func (k *keyring) reload() *keySet {
	k.mu.Lock()
	defer k.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), keyOpTimeout)
	defer cancel()
	prev := k.set.Load()
	keys, err := k.loadShared(ctx)
	if err != nil {
		if prev == nil {
			k.log.Warn("mcp: the shared store cannot be reached: requestState is signed with a key of this process until it answers", "error", err)
			prev = &keySet{keys: []stateKey{newStateKey(time.Now())}}
		}
		// Try again at the next refresh, not on every request.
		next := &keySet{keys: prev.keys, loaded: time.Now()}
		k.set.Store(next)
		return next
	}
	// Keep the keys this handler knew that the store no longer holds
	// (a store that lost its data) while they may still verify states.
	if prev != nil {
		for _, old := range prev.keys {
			if !slices.ContainsFunc(keys, func(s stateKey) bool { return s.ID == old.ID }) && k.stillValid(old, keys) {
				keys = append([]stateKey{old}, keys...)
			}
		}
	}
	next := &keySet{keys: keys, loaded: time.Now()}
	k.set.Store(next)
	return next
}

// stillValid reports whether old may still have signed an unexpired
// state: the key that replaced it in keys was made less than keep ago.
func (k *keyring) stillValid(old stateKey, keys []stateKey) bool {
	for _, s := range keys {
		if s.Created >= old.Created && s.ID != old.ID {
			return time.Since(time.Unix(s.Created, 0)) < k.keep
		}
	}
	return true
}

// loadShared reads the ring from the store, rotating it when due; the
// store settles races between replicas (Add and CompareAndSwap).
func (k *keyring) loadShared(ctx context.Context) ([]stateKey, error) {
	for range 3 {
		raw, ok, err := k.kv.Get(ctx, stateKeysKey)
		if err != nil {
			return nil, err
		}
		var keys []stateKey
		if ok && json.Unmarshal(raw, &keys) != nil {
			keys = nil // unreadable: start afresh
		}
		now := time.Now()
		if len(keys) > 0 && now.Sub(time.Unix(keys[len(keys)-1].Created, 0)) < k.rotation {
			return keys, nil
		}
		next := append(k.prune(keys, now), newStateKey(now))
		data, err := json.Marshal(next)
		if err != nil {
			return nil, err
		}
		var stored bool
		if ok {
			stored, err = k.kv.CompareAndSwap(ctx, stateKeysKey, raw, data, 0)
		} else {
			stored, err = k.kv.Add(ctx, stateKeysKey, data, 0)
		}
		if err != nil {
			return nil, err
		}
		if stored {
			return next, nil
		}
		// Another replica rotated first: read theirs.
	}
	return nil, errKeysContended
}

var errKeysContended = &toolexec.InputError{Code: CodeInternalError, Message: "the shared requestState keys kept changing"}

// prune drops the keys that can no longer have signed an unexpired state.
func (k *keyring) prune(keys []stateKey, now time.Time) []stateKey {
	var out []stateKey
	for i, key := range keys {
		if i+1 < len(keys) && now.Sub(time.Unix(keys[i+1].Created, 0)) > k.keep {
			continue // retired longer ago than any state lives
		}
		out = append(out, key)
	}
	return out
}

func newStateKey(now time.Time) stateKey {
	var id [8]byte
	_, _ = rand.Read(id[:])
	secret := make([]byte, 32)
	_, _ = rand.Read(secret)
	return stateKey{ID: hex.EncodeToString(id[:]), Secret: secret, Created: now.Unix()}
}
