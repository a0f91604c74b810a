package toolexec

import (
	"context"
	"time"
)

// Store is what the replicas of one service share, so that any replica
// answers any request as one server would: the read-through cache,
// concurrency slots and per-caller rates counted across replicas, messages
// between replicas, and logs of events that outlive the replica that wrote
// them. It is composed of small capabilities (KV, Limits, PubSub,
// EventLog), each of which a surface or the pipeline asks for alone.
//
// Without WithStore an Executor keeps all of it in its own process, as a
// single server needs; the Redis implementation lives in its own module,
// github.com/toolexec/toolexec/redis, and MemoryStore is the in-process one.
// The storetest package checks an implementation against this contract.
//
// A Store must be safe for concurrent use. Its methods honour their
// context's deadline. An error means the store could not be reached or
// refused the operation; callers in this module treat it as documented for
// each feature (see docs/scale.md) and never fail a call only because the
// store is unavailable when the feature can do without it.
type Store interface {
	KV
	Limits
	PubSub
	EventLog
}

// KV is a byte store with expiry: the Cache's Get and Set, and the atomic
// operations records that change over time need. Keys are short strings of
// the caller's choosing; an implementation may prefix them, and may bound
// the size of values it accepts (refusing a larger one with an error).
type KV interface {
	Cache
	// Add stores value under key for ttl only when the key holds no
	// unexpired value, and reports whether it stored it.
	Add(ctx context.Context, key string, value []byte, ttl time.Duration) (bool, error)
	// CompareAndSwap stores value under key for ttl only when the key holds
	// exactly old (an unexpired value byte for byte equal to it), and
	// reports whether it stored it.
	CompareAndSwap(ctx context.Context, key string, old, value []byte, ttl time.Duration) (bool, error)
	// Delete removes key, if it holds anything.
	Delete(ctx context.Context, key string) error
}

// Limits counts what concurrency limits and rate limits allow, for every
// replica sharing it.
//
// A concurrency slot is a lease: held for a time-to-live that the holder
// renews while its call runs, so that the slots of a replica that dies free
// themselves once their leases run out, and released when the call ends.
// A rate is a generic cell rate algorithm (GCRA) state per key.
type Limits interface {
	// Admit checks one call against a rate and takes one slot of a
	// concurrency limit, as one atomic step: a call the rate refuses takes
	// no slot, and a call that finds every slot held consumes nothing of
	// the rate. Either part may be absent (see AdmitRequest). An admitted
	// call also gets the value of the KV key AdmitRequest.Read names.
	Admit(ctx context.Context, a AdmitRequest) (AdmitResult, error)
	// RenewSlot extends the lease a successful Admit returned to ttl from
	// now, and reports false when the lease had run out or been released
	// already (its slot may then be held by another call).
	RenewSlot(ctx context.Context, key, lease string, ttl time.Duration) (bool, error)
	// Release ends what an admitted call leaves in the store, as one step
	// (one round trip to a remote store): it gives the call's slot back
	// and stores the KV value the call leaves (the read-through cache's
	// result of a miss). Either part may be absent (see ReleaseRequest).
	// Releasing a lease that has run out, or was released, does nothing.
	// A value the store refuses (too large) is not stored, and its error
	// is returned, but the slot is given back all the same.
	Release(ctx context.Context, r ReleaseRequest) error
}

// AdmitRequest is one call's claim on the limits that apply to it.
type AdmitRequest struct {
	// RateKey names the rate the call counts against; "" checks no rate.
	RateKey string
	// Rate is that rate (see RateLimit); ignored when RateKey is "".
	Rate RateLimit
	// SlotKey names the concurrency limit the call takes a slot of; ""
	// takes none.
	SlotKey string
	// SlotMax is how many slots SlotKey has: how many leases may be held
	// at once.
	SlotMax int
	// SlotTTL is how long the slot is held unless renewed.
	SlotTTL time.Duration
	// Read names a KV key whose value an admitted call gets in the same
	// step (AdmitResult.Value), so that a call that will look it up anyway
	// (the read-through cache) pays no other round trip for it; "" reads
	// nothing. A call whose Read finds a value takes no slot: it is
	// answered from that value and does not run (the rate still counts
	// it).
	Read string
}

// ReleaseRequest is what one call gives back and leaves when it ends
// (Limits.Release).
type ReleaseRequest struct {
	// SlotKey and Lease name the slot the call held (AdmitRequest.SlotKey,
	// AdmitResult.Lease); a "" Lease gives none back.
	SlotKey, Lease string
	// Write names a KV key to store Value under for TTL, as KV.Set does;
	// "" stores nothing.
	Write string
	Value []byte
	TTL   time.Duration
}

// AdmitResult is Limits.Admit's answer: the call was admitted when it
// was refused neither by the rate nor for want of a slot.
type AdmitResult struct {
	// Lease identifies the slot the admitted call holds, for RenewSlot and
	// Release; "" when it asked for none, was refused, or was answered
	// from the value AdmitRequest.Read found.
	Lease string
	// RateWait, when positive, says the rate refused the call, and how long
	// until a call would be allowed.
	RateWait time.Duration
	// SlotsFull says every slot was held, so the call was refused.
	SlotsFull bool
	// Value and Found are the value of AdmitRequest.Read, for an admitted
	// call (as KV.Get returns them).
	Value []byte
	Found bool
}

// Admitted reports whether the call may go on.
func (a AdmitResult) Admitted() bool { return a.RateWait <= 0 && !a.SlotsFull }

// PubSub carries messages between replicas: a message published on a
// channel reaches every subscriber of that channel at the time, on every
// replica, at most once. Messages published while the store cannot be
// reached are lost; senders that need more keep their own state elsewhere
// (in KV or an EventLog).
type PubSub interface {
	// Publish sends message to the current subscribers of channel.
	Publish(ctx context.Context, channel string, message []byte) error
	// Subscribe calls fn with each message published on channel from the
	// moment it returns until stop is called. Messages reach fn one at a
	// time, in the order they were published; fn must return quickly and
	// must not call stop. After stop returns, fn is not called again.
	Subscribe(ctx context.Context, channel string, fn func(message []byte)) (stop func(), err error)
}

// EventLog keeps append-only logs of events, each log dropped a
// time-to-live after its last append: what an SSE stream sent, so that a
// client that lost its connection reads the rest from any replica.
type EventLog interface {
	// AppendEvent adds data to the end of the log named stream, keeps the
	// log for ttl from now, and returns the event's id. Ids are non-empty
	// strings unique within the stream; the order of events is the order
	// of their appends. An implementation may bound how many events a log
	// holds, dropping the oldest.
	AppendEvent(ctx context.Context, stream string, data []byte, ttl time.Duration) (id string, err error)
	// ReadEvents returns, oldest first, up to max events (max <= 0: all)
	// of stream that follow the event with id after ("" reads from the start), and
	// whether after was found ("" always is): an id the log no longer (or
	// never) held reads nothing and reports false. A log that expired, or
	// never existed, holds nothing.
	ReadEvents(ctx context.Context, stream, after string, max int) (events []Event, found bool, err error)
	// WatchEvents calls notify after each event appended to stream, on any
	// replica, from the moment it returns until stop is called; a reader
	// then reads what is new. Notifications may coalesce and may be lost
	// while the store cannot be reached, so a reader also reads on its own
	// now and then.
	WatchEvents(ctx context.Context, stream string, notify func()) (stop func(), err error)
}

// OwnedEventLog is an EventLog that can say whose each log is, so that its
// bounds fall on whoever holds the most: an implementation that drops logs
// to stay within a bound (as MemoryStore does) drops the least recently
// written log of the owner holding the most first, and one caller's flood
// of logs drops its own before anyone else's. The MCP surface appends its
// resumable streams' events through it when its store has it, naming the
// caller as owner (a digest, never an identity).
type OwnedEventLog interface {
	EventLog
	// AppendOwnedEvent is AppendEvent for a log that owner's appends
	// create; appending to a log that exists keeps the owner it has.
	AppendOwnedEvent(ctx context.Context, owner, stream string, data []byte, ttl time.Duration) (id string, err error)
}

// Event is one event of an EventLog.
type Event struct {
	// ID identifies the event within its log.
	ID string
	// Data is what was appended.
	Data []byte
}

// WithStore has the Executor, and the surfaces mounted on it, keep in s
// what replicas share (see Store): the read-through cache (unless
// WithCache names another), concurrency limits and rate limits counted
// across replicas, and what the surfaces keep between requests. The
// default is a store of the Executor's own in its process, for a service
// that runs as one process.
//
// While s cannot be reached, calls go on: the cache counts as missing, and
// limits are counted by each replica on its own (so N replicas allow at
// most N times a limit) until s answers again; each change is logged at
// warning level.
func WithStore(s Store) Option {
	return func(x *Executor) { x.store = s }
}

// Store returns where the Executor keeps what replicas share: the store
// given with WithStore, else the Executor's own in-process one. Surfaces
// keep their state between requests there (MCP's event logs and signing
// keys, for example).
func (k SurfaceKit) Store() Store { return k.x.storeOrLocal() }

// StoreShared reports whether the Executor was given a store with
// WithStore, which other replicas may share: a surface that counts
// something per caller across replicas (MCP's listen streams) counts it in
// Store only then. Without one, Store is the Executor's own, in the
// process, and the surface counts in the process as it always did.
func (k SurfaceKit) StoreShared() bool { return k.x.store != nil }

// LeaseTTL returns how long a concurrency slot held in the shared store
// stays held without renewal (WithLeaseTTL, else DefaultLeaseTTL). A
// surface that holds slots of its own (Limits.Admit) renews each every
// third of it while it holds it, as the pipeline does, so that the slots
// of a replica that dies free themselves within it.
func (k SurfaceKit) LeaseTTL() time.Duration { return k.x.leaseTTL }

// storeOrLocal is the store given with WithStore, else the Executor's own.
func (x *Executor) storeOrLocal() Store {
	if x.store != nil {
		return x.store
	}
	return x.local
}

// WithLeaseTTL sets how long a concurrency slot counted in a shared store
// (WithStore) is held without renewal: a running call renews it every
// third of d, and the slots of a replica that dies free themselves within
// d. d <= 0 restores DefaultLeaseTTL. The surfaces' slots (MCP's listen
// streams, counted per caller across replicas) are leases of d too.
// Without a shared store slots are counted in the process and d plays no
// part.
func WithLeaseTTL(d time.Duration) Option {
	return func(x *Executor) { x.leaseTTL = d }
}
