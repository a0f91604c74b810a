package toolexec

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"math/rand/v2"
	"sync"
	"time"
)

// DefaultLeaseTTL is how long a concurrency slot counted in a shared store
// is held without renewal: a call renews its slot every third of it while
// it runs, so the slots of a replica that dies free themselves within it.
const DefaultLeaseTTL = 15 * time.Second

// storeOpTimeout bounds each store operation the limit stage makes beyond
// the call's own deadline, so a store that stops answering costs a call
// at most this much before the stage counts in the process instead.
const storeOpTimeout = 2 * time.Second

// slotWaitMax is the longest pause between two attempts of a call waiting
// for a slot counted in a shared store.
const slotWaitMax = 100 * time.Millisecond

// sharedLimit is the limit stage counted in the Executor's store: the
// rate and the slot in one Admit, then, while every slot is held, Admit
// again after a growing pause until the call's context ends. When the
// store cannot be reached the call is counted in the process instead
// (localLimit).
func (x *Executor) sharedLimit(ctx context.Context, call *Call, next CallFunc) (*CallToolResult, error) {
	t := &call.Tool
	rate, ownRate, rated := x.rateFor(t)
	cfg, ownSlot, limited := x.slotLimitFor(t)
	if !rated && !limited {
		return next(ctx, call)
	}
	var a AdmitRequest
	if rated {
		a.RateKey, a.Rate = rateKey(ctx, call, ownRate, x.ipv6Bits), rate
	}
	if limited {
		a.SlotKey, a.SlotMax, a.SlotTTL = slotKey(t, ownSlot), cfg.Max, x.leaseTTL
	}
	if t.Options.Cache && x.cacheIsStore && !x.transformsInput(t) {
		// The cache will look the call up: do it in the same round trip.
		// (No input transform changes the arguments, hence the key,
		// before the cache stage.)
		if key, why := cacheKey(ctx, call); why == notUncached {
			a.Read = key
		}
	}
	sctx, st := call.observer().StartStage(ctx, StageInfo{Stage: StageLimit, LimitMax: cfg.Max})
	adm, err := x.admitShared(sctx, call, &a, cfg)
	if errors.Is(err, errStoreDown) {
		st.End(nil, nil)
		return x.localLimit(ctx, call, next)
	}
	if err == nil && adm.RateWait > 0 {
		err = rateRefusal(call, rate, ownRate, adm.RateWait)
	}
	st.End(nil, err)
	if err != nil {
		return nil, err
	}
	var ov *storeOverlap
	if a.Read != "" {
		ov = &storeOverlap{call: call, key: a.Read, value: adm.Value, found: adm.Found}
		if adm.Found && limited {
			// Answered from the cache, the call took no slot. Should the
			// cached value not decode, the cache stage runs the tool, which
			// then waits for a slot as any call does (the rate counted it).
			slotOnly := AdmitRequest{SlotKey: a.SlotKey, SlotMax: a.SlotMax, SlotTTL: a.SlotTTL}
			ov.admitAgain = func(ctx context.Context) error {
				ov.admitAgain = nil // once
				adm, err := x.admitShared(ctx, call, &slotOnly, cfg)
				switch {
				case errors.Is(err, errStoreDown):
					return nil // the call runs uncounted, as its hit would have
				case err != nil:
					return err
				}
				ov.keep = x.keepLease(slotOnly.SlotKey, adm.Lease)
				return nil
			}
		}
		ctx = context.WithValue(ctx, storeOverlapKey{}, ov)
	}
	var keep *leaseKeeper
	if adm.Lease != "" {
		keep = x.keepLease(a.SlotKey, adm.Lease)
	}
	if keep == nil && ov == nil {
		return next(ctx, call)
	}
	defer func() {
		if ov != nil && ov.keep != nil {
			keep = ov.keep
		}
		x.release(ctx, keep, ov)
	}()
	return next(ctx, call)
}

// storeOverlap carries, from the limit stage to the cache stage of one
// call, what lets their work in a shared store share round trips: the
// cache lookup the admission made (AdmitRequest.Read), and the result the
// cache leaves to store, which the limit stage stores as it gives its slot
// back (Limits.Release).
type storeOverlap struct {
	call  *Call // whose it is: a call its handler makes sees none
	key   string
	value []byte
	found bool
	// admitAgain, when set, takes the slot the call skipped because its
	// lookup found a value, for a call that runs the tool after all (the
	// value did not decode); keep is that slot's.
	admitAgain func(context.Context) error
	keep       *leaseKeeper
	// write is what the cache leaves to store under key, for ttl; nil
	// stores nothing.
	write []byte
	ttl   time.Duration
}

type storeOverlapKey struct{}

// overlapOf returns call's storeOverlap, or nil. The context a handler
// gets carries its call's; a call the handler makes with it (nested) is
// another Call, and finds none.
func overlapOf(ctx context.Context, call *Call) *storeOverlap {
	ov, _ := ctx.Value(storeOverlapKey{}).(*storeOverlap)
	if ov == nil || ov.call != call {
		return nil
	}
	return ov
}

// release ends a call in the store in one Limits.Release: it stops
// renewing keep's lease and gives its slot back (so that the caller's next
// call finds the slot free, as it would in one process), and stores the
// result the cache left in ov. Either may be nil. It is not cancelled
// with the call; a release that fails leaves the slot to run out.
func (x *Executor) release(ctx context.Context, keep *leaseKeeper, ov *storeOverlap) {
	var r ReleaseRequest
	if keep != nil {
		keep.stop()
		r.SlotKey, r.Lease = keep.key, keep.lease
	}
	if ov != nil && ov.write != nil {
		r.Write, r.Value, r.TTL = ov.key, ov.write, ov.ttl
	}
	if r.Lease == "" && r.Write == "" {
		return
	}
	ctx = context.WithoutCancel(ctx)
	octx, cancel := context.WithTimeout(ctx, storeOpTimeout)
	err := x.store.Release(octx, r)
	cancel()
	if r.Write != "" {
		x.noteCache(ctx, err)
	} else {
		x.noteStore(ctx, err)
	}
}

// slotQueue is a store in which a call waits its turn for a slot, handed
// to it as soon as one is given back (MemoryStore), rather than asking
// again and again as admitShared does of other stores.
type slotQueue interface {
	waitSlot(ctx context.Context, key string, max int, ttl time.Duration) (lease string, err error)
}

// queueForSlot waits in queue for a slot of a, which found every one held,
// then checks the rest of a (its rate, its lookup) as Admit would have.
// A call that waited and is then refused by its rate, or answered from
// the value its lookup found, gives the slot to the next in line.
func (x *Executor) queueForSlot(ctx context.Context, call *Call, a *AdmitRequest, cfg ConcurrencyLimit, queue slotQueue) (AdmitResult, error) {
	lease, err := queue.waitSlot(ctx, a.SlotKey, a.SlotMax, a.SlotTTL)
	if err != nil {
		return AdmitResult{}, slotWaitEnded(call, cfg, err)
	}
	rest := *a
	rest.SlotKey, rest.SlotMax, rest.SlotTTL = "", 0, 0
	adm, err := x.storeAdmit(ctx, &rest)
	if err == nil && adm.Admitted() && !adm.Found {
		adm.Lease = lease
		return adm, nil
	}
	x.release(ctx, &leaseKeeper{key: a.SlotKey, lease: lease}, nil)
	switch {
	case err == nil:
		return adm, nil
	case ctx.Err() != nil:
		return adm, slotWaitEnded(call, cfg, ctx.Err())
	}
	return adm, errStoreDown
}

// errStoreDown is admitShared's error when the store could not be reached.
var errStoreDown = errors.New("toolexec: store unreachable")

// admitShared asks the store to admit the call, waiting while every slot
// is held as cfg says. It returns the store's answer for a call admitted
// or refused by its rate, an *Error for a call refused a slot, or
// errStoreDown.
func (x *Executor) admitShared(ctx context.Context, call *Call, a *AdmitRequest, cfg ConcurrencyLimit) (AdmitResult, error) {
	pause := 2 * time.Millisecond
	var timer *time.Timer
	queue, _ := x.store.(slotQueue)
	for {
		adm, err := x.storeAdmit(ctx, a)
		if err != nil {
			if cerr := ctx.Err(); cerr != nil {
				return adm, slotWaitEnded(call, cfg, cerr)
			}
			return adm, errStoreDown
		}
		if !adm.SlotsFull {
			return adm, nil
		}
		if cfg.FailFast {
			return adm, busy(call, cfg, nil)
		}
		if queue != nil {
			return x.queueForSlot(ctx, call, a, cfg, queue)
		}
		// Jittered, so that waiting replicas do not ask in step.
		d := pause/2 + rand.N(pause/2+1)
		if timer == nil {
			timer = time.NewTimer(d)
			defer timer.Stop()
		} else {
			timer.Reset(d)
		}
		select {
		case <-timer.C:
		case <-ctx.Done():
			return adm, slotWaitEnded(call, cfg, ctx.Err())
		}
		pause = min(pause*2, slotWaitMax)
	}
}

// storeAdmit is one Admit, bounded by storeOpTimeout, that logs when the
// store stops or starts answering.
func (x *Executor) storeAdmit(ctx context.Context, a *AdmitRequest) (AdmitResult, error) {
	octx, cancel := context.WithTimeout(ctx, storeOpTimeout)
	adm, err := x.store.Admit(octx, *a)
	cancel()
	x.noteStore(ctx, err)
	return adm, err
}

// noteStore logs the store's first failure after a success, and its first
// success after a failure, so an outage is logged twice, not once per call.
// A failure because the call's own context ended says nothing of the store.
func (x *Executor) noteStore(ctx context.Context, err error) {
	switch {
	case err == nil:
		if x.storeDown.CompareAndSwap(true, false) {
			x.logger.InfoContext(ctx, "toolexec: the shared store answers again; limits are counted in it")
		}
	case ctx.Err() != nil:
	default:
		if x.storeDown.CompareAndSwap(false, true) {
			x.logger.WarnContext(ctx, "toolexec: the shared store cannot be reached; limits are counted in this process until it answers", "error", err)
		}
	}
}

// slotWaitEnded is the error of a call whose context ended while it waited
// for a slot.
func slotWaitEnded(call *Call, cfg ConcurrencyLimit, cause error) *Error {
	if errors.Is(cause, context.Canceled) {
		return &Error{Stage: StageLimit, Code: CodeCanceled, Message: "The call was canceled while it waited for a slot.", Err: cause}
	}
	return busy(call, cfg, cause)
}

// slotLimitFor returns the concurrency limit that applies to t, with its
// RetryAfter defaulted, and whether it is the tool's own; ok is false when
// none applies.
func (x *Executor) slotLimitFor(t *Tool) (cfg ConcurrencyLimit, own, ok bool) {
	if l := t.Options.ConcurrencyLimit; l != nil {
		cfg, own = *l, true
	} else {
		cfg = x.limit
	}
	if cfg.Max <= 0 {
		return ConcurrencyLimit{}, own, false
	}
	if cfg.RetryAfter <= 0 {
		cfg.RetryAfter = DefaultRetryAfter
	}
	return cfg, own, true
}

// slotKey is the key of a concurrency limit in the store: a digest of the
// tool's name and version for its own limit, "slots:*" for the Executor's.
func slotKey(t *Tool, own bool) string {
	if !own {
		return "slots:*"
	}
	h := sha256.New()
	writeField(h, t.Name)
	writeField(h, t.Version)
	var sum [sha256.Size]byte
	return "slots:" + hex.EncodeToString(h.Sum(sum[:0])[:16])
}

// leaseKeeper renews a slot's lease every third of its TTL while the call
// runs, until stopped.
type leaseKeeper struct {
	x          *Executor
	key, lease string
	mu         sync.Mutex
	timer      *time.Timer
	done       bool
}

// keepLease starts renewing lease.
func (x *Executor) keepLease(key, lease string) *leaseKeeper {
	k := &leaseKeeper{x: x, key: key, lease: lease}
	// The lock keeps a renewal that fires at once (a short TTL) from
	// reading the timer before it is set.
	k.mu.Lock()
	k.timer = time.AfterFunc(x.leaseTTL/3, k.renew)
	k.mu.Unlock()
	return k
}

func (k *leaseKeeper) renew() {
	ctx, cancel := context.WithTimeout(context.Background(), storeOpTimeout)
	ok, err := k.x.store.RenewSlot(ctx, k.key, k.lease, k.x.leaseTTL)
	cancel()
	k.x.noteStore(context.Background(), err)
	if err == nil && !ok {
		// The lease ran out (the store lost it, or could not be reached for
		// longer than its TTL): another call may hold the slot now. The
		// call goes on; renewing stops.
		k.x.logger.Warn("toolexec: a running call's concurrency slot ran out before the call ended; the limit may be exceeded until it does")
		return
	}
	k.mu.Lock()
	if !k.done {
		k.timer.Reset(k.x.leaseTTL / 3)
	}
	k.mu.Unlock()
}

// stop stops renewing the lease.
func (k *leaseKeeper) stop() {
	k.mu.Lock()
	k.done = true
	if k.timer != nil {
		k.timer.Stop()
	}
	k.mu.Unlock()
}
