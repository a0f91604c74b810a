package redis

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"time"

	goredis "github.com/redis/go-redis/v9"
)

// A Redis that stops answering (a paused host, a partition) keeps what
// clients sent it in its socket buffers, and runs it when it answers
// again, long after the callers gave up. An admission whose caller gave up
// must then take no slot: no replica would renew or release it, and it
// would hold the slot until its lease ran out. Two things see to it:
//
//   - Each admission carries the moment its caller stops waiting, in
//     Redis's own clock (the store learns the offset between its clock and
//     Redis's from the scripts' answers). The script compares it with
//     Redis's TIME and changes nothing once it has passed.
//   - A slot the store may have taken without seeing the answer (the
//     admission failed after it was sent), or could not give back (its
//     release failed), is given back once Redis answers again, after that
//     moment: by then the admission either ran, and its slot is removed,
//     or will find its moment passed.

// maxUnacked bounds the slots waiting to be given back; past it the oldest
// are left to run out with their leases.
const maxUnacked = 10000

// reclaimMargin is how long after its caller gave up a slot is given back:
// beyond the uncertainty of the clock offset, so that an admission still
// waiting in Redis's buffer then finds its moment passed.
const reclaimMargin = 250 * time.Millisecond

// reclaimEvery is how often the store tries to give the slots back while
// some wait.
const reclaimEvery = 250 * time.Millisecond

// maxSkewRTT is the longest round trip whose answer teaches the store
// Redis's clock: a slower one says too little of when Redis read TIME.
const maxSkewRTT = 100 * time.Millisecond

// unackedSlot is a slot the store may hold without a caller: key and
// lease, and when it may be given back.
type unackedSlot struct {
	key, lease string
	after      time.Time
}

// reclaimer gives back the slots of admissions whose answer never arrived
// and of releases that failed.
type reclaimer struct {
	s       *Store
	mu      sync.Mutex
	pending []unackedSlot
	running bool // the goroutine that gives them back runs
	dropped int  // slots left to their leases for want of room, not logged yet
	closed  chan struct{}

	// skew is Redis's clock minus this process's, in microseconds, learned
	// from the admissions' answers; known says whether one was learned.
	skew  atomic.Int64
	known atomic.Bool
}

func newReclaimer(s *Store) *reclaimer { return &reclaimer{s: s, closed: make(chan struct{})} }

// learn notes Redis's clock, redisNow (microseconds), read by a script
// sent at sent and answered at recv.
func (r *reclaimer) learn(sent, recv time.Time, redisNow int64) {
	rtt := recv.Sub(sent)
	if redisNow <= 0 || rtt > maxSkewRTT {
		return
	}
	r.skew.Store(redisNow - sent.Add(rtt/2).UnixMicro())
	r.known.Store(true)
}

// redisTime is t in Redis's clock, in microseconds; 0 while the offset is
// not known.
func (r *reclaimer) redisTime(t time.Time) int64 {
	if t.IsZero() || !r.known.Load() {
		return 0
	}
	return t.UnixMicro() + r.skew.Load()
}

// giveUp is when the caller of an operation sent now with ctx stops
// waiting for its answer: at ctx's deadline, or when the client's read
// timeout runs out, whichever comes first; zero when neither bounds it.
func (s *Store) giveUp(ctx context.Context, now time.Time) time.Time {
	var at time.Time
	if d, ok := ctx.Deadline(); ok {
		at = d
	}
	if s.readTimeout > 0 {
		if t := now.Add(s.readTimeout); at.IsZero() || t.Before(at) {
			at = t
		}
	}
	return at
}

// readTimeoutOf is the read timeout client was made with; 0 when it has
// none, or it cannot be told.
func readTimeoutOf(client goredis.UniversalClient) time.Duration {
	var d time.Duration
	switch c := client.(type) {
	case *goredis.Client:
		d = c.Options().ReadTimeout
	case *goredis.ClusterClient:
		d = c.Options().ReadTimeout
	}
	if d == 0 {
		d = 3 * time.Second // go-redis's default
	}
	return max(d, 0) // -1 and -2: no timeout
}

// mayHaveReached reports whether an operation that failed with err may
// have reached Redis all the same: every failure but an answer from Redis
// and the breaker's refusal to send it.
func mayHaveReached(err error) bool {
	var reply goredis.Error
	return err != nil && !errors.Is(err, ErrUnavailable) && !errors.As(err, &reply)
}

// add queues the slot lease of key to be given back after after.
func (r *reclaimer) add(key, lease string, after time.Time) {
	r.mu.Lock()
	defer r.mu.Unlock()
	select {
	case <-r.closed:
		return
	default:
	}
	if len(r.pending) >= maxUnacked {
		r.pending = r.pending[1:]
		r.dropped++
	}
	r.pending = append(r.pending, unackedSlot{key: key, lease: lease, after: after})
	if !r.running {
		r.running = true
		go r.run()
	}
}

// run gives back the pending slots that are due, until none is left or
// the store closes.
func (r *reclaimer) run() {
	tick := time.NewTicker(reclaimEvery)
	defer tick.Stop()
	for {
		select {
		case <-r.closed:
			return
		case <-tick.C:
		}
		if !r.giveBack() {
			return
		}
	}
}

// giveBack removes the due slots from Redis in one pipeline, and reports
// whether any slot is still pending (false: run ends).
func (r *reclaimer) giveBack() bool {
	now := time.Now()
	r.mu.Lock()
	var due []unackedSlot
	for _, u := range r.pending {
		if !u.after.After(now) {
			due = append(due, u)
		}
	}
	dropped := r.dropped
	r.mu.Unlock()
	if len(due) > 0 {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		cmds, err := r.s.rdb.Pipelined(ctx, func(p goredis.Pipeliner) error {
			for _, u := range due {
				p.ZRem(ctx, r.s.key("", u.key), u.lease)
			}
			return nil
		})
		cancel()
		if err != nil {
			return true // Redis does not answer yet: try again at the next tick
		}
		var freed int64
		for _, c := range cmds {
			if n, ok := c.(*goredis.IntCmd); ok {
				freed += n.Val()
			}
		}
		if freed > 0 {
			r.s.log.Warn("redis: concurrency slots held by calls that no longer run were given back once Redis answered again",
				"slots", freed, "checked", len(due))
		}
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if dropped > 0 {
		r.s.log.Warn("redis: too many concurrency slots waited to be given back; the oldest are left to run out with their leases",
			"slots", dropped)
		r.dropped -= dropped
	}
	kept := r.pending[:0]
	for _, u := range r.pending {
		if u.after.After(now) {
			kept = append(kept, u)
		}
	}
	clear(r.pending[len(kept):])
	r.pending = kept
	if len(r.pending) == 0 {
		r.running = false
		return false
	}
	return true
}

// close stops giving slots back; those pending run out with their leases.
func (r *reclaimer) close() {
	r.mu.Lock()
	defer r.mu.Unlock()
	select {
	case <-r.closed:
	default:
		close(r.closed)
	}
}
