package toolexec

import (
	"bytes"
	"context"
	"errors"
	"sync"
	"time"

	"github.com/toolexec/toolexec/internal/fairlru"
	"github.com/toolexec/toolexec/internal/jsonwalk"
)

// taskMemory is the KV that holds an Executor's tasks when it has no shared
// store: a map bounded both by its count of entries and by the bytes of
// their keys and values, each entry carrying its own expiry. An expired
// entry counts as missing, and is dropped when read, or when room is
// needed.
//
// Its records memory knows whose each task is and whether it still runs
// (recordShare reads both from the record): past either bound, it drops
// the least recently used finished task of the caller holding the most,
// so that one caller's flood of tasks pushes out its own finished tasks
// before anyone else's, and it never drops a running task: a new task that
// finds no room then is refused (errTasksFull), and its call goes on as an
// ordinary one. Its leases memory holds no owner, and drops no lease to
// make room either (leaseShare).
//
// Tasks have a store of their own, rather than the Executor's MemoryStore,
// so that cached results never push tasks out, nor tasks cached results.
type taskMemory struct {
	mu    sync.Mutex
	m     *fairlru.Map[taskEntry]
	share func(value []byte) (owner string, running bool) // nil: no owner, nothing pinned
	// quota counts the calls of each caller that are tasks, or may become
	// one (liveTasks); nil for a leases memory.
	quota *taskQuota
}

type taskEntry struct {
	value   []byte
	expires time.Time
}

// taskEntryOverhead is what an entry costs beyond its key and value, as
// counted against the bytes bound: the map's entry and owner share, the
// entry's expiry and slice header.
const taskEntryOverhead = 256

// errTasksFull is the refusal of a new task by a records memory whose
// room is all taken by running tasks.
var errTasksFull = errors.New("toolexec: the tasks kept in this process are all running; no room for another")

func newTaskMemory(maxEntries, maxBytes int) *taskMemory {
	return &taskMemory{m: fairlru.New[taskEntry](maxEntries, maxBytes)}
}

func entrySize(key string, value []byte) int { return len(key) + len(value) + taskEntryOverhead }

// recordShare reads whose share of the tasks kept a task record counts in
// (its holder, else its owner: see taskShare) and whether the task still
// runs, walking its top-level members only. A value that is no record has
// no owner and does not run.
func recordShare(value []byte) (owner string, running bool) {
	if len(value) == 0 || value[0] != '{' || !jsonwalk.Valid(value) {
		return "", false
	}
	var status []byte
	holder := ""
	for it := jsonwalk.Members(value); it.Next(); {
		switch {
		case it.Is("owner"):
			owner = digestOf(it.Val)
		case it.Is("h"):
			holder = digestOf(it.Val)
		case it.Is("status"):
			status = it.Val
		}
	}
	if holder != "" {
		owner = holder
	}
	switch string(status) {
	case `"working"`, `"input_required"`:
		running = true
	}
	return owner, running
}

// digestOf is the string a record member holding a hex digest holds; ""
// for anything else.
func digestOf(val []byte) string {
	if len(val) >= 2 && val[0] == '"' {
		return string(val[1 : len(val)-1]) // a hex digest: no escapes
	}
	return ""
}

// leaseShare is a lease's share: no owner, and pinned, as every lease is a
// running task's.
func leaseShare([]byte) (owner string, running bool) { return "", true }

// live returns key's unexpired entry; m.mu is held.
func (m *taskMemory) live(key string, now time.Time) (taskEntry, bool) {
	e, ok := m.m.Get(key)
	if !ok {
		return e, false
	}
	if !now.Before(e.expires) {
		m.m.Remove(key)
		return e, false
	}
	return e, true
}

// put stores value under key until now+ttl; m.mu is held. A value too
// large to fit at all is not stored. A new key that finds no room even
// once expired entries are dropped fails with errTasksFull.
func (m *taskMemory) put(key string, value []byte, ttl time.Duration, now time.Time) error {
	owner, pinned := "", false
	if m.share != nil {
		owner, pinned = m.share(value)
	}
	e := taskEntry{value: bytes.Clone(value), expires: now.Add(ttl)}
	err := m.m.Put(key, owner, e, entrySize(key, value), pinned)
	if errors.Is(err, fairlru.ErrFull) && pinned {
		m.dropExpired(now)
		err = m.m.Put(key, owner, e, entrySize(key, value), pinned)
	}
	if err != nil {
		if pinned {
			return errTasksFull
		}
		return nil // too large to keep: not kept, as a cache would
	}
	return nil
}

// dropExpired drops every expired entry; m.mu is held. It walks the whole
// map, and runs only when a new running task finds no room.
func (m *taskMemory) dropExpired(now time.Time) {
	var expired []string
	m.m.Each(func(key string, e taskEntry) bool {
		if !now.Before(e.expires) {
			expired = append(expired, key)
		}
		return true
	})
	for _, k := range expired {
		m.m.Remove(k)
	}
}

func (m *taskMemory) Get(_ context.Context, key string) ([]byte, bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	e, ok := m.live(key, time.Now())
	return e.value, ok, nil
}

func (m *taskMemory) Set(_ context.Context, key string, value []byte, ttl time.Duration) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.put(key, value, ttl, time.Now())
}

func (m *taskMemory) Add(_ context.Context, key string, value []byte, ttl time.Duration) (bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	now := time.Now()
	if _, ok := m.live(key, now); ok {
		return false, nil
	}
	if err := m.put(key, value, ttl, now); err != nil {
		return false, err
	}
	return true, nil
}

func (m *taskMemory) CompareAndSwap(_ context.Context, key string, old, value []byte, ttl time.Duration) (bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	now := time.Now()
	cur, ok := m.live(key, now)
	if !ok || !bytes.Equal(cur.value, old) {
		return false, nil
	}
	return true, m.put(key, value, ttl, now)
}

func (m *taskMemory) Delete(_ context.Context, key string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.m.Remove(key)
	return nil
}
