package oauth

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"math"
	"sync"
	"time"

	lru "github.com/hashicorp/golang-lru/v2"
)

// errIntrospectionLimited is the error of a token refused unchecked
// because introspection requests are at their rate limit.
var errIntrospectionLimited = errors.New("oauth: introspection rate limit reached; token not checked")

// introspector bounds what opaque tokens cost the authorization server
// (see Introspection): identical tokens in flight share one request, an
// "inactive" answer is remembered for a while, requests are limited in
// number at once (slots) and per second (rate), and a request is
// cancelled once no client waits for its answer. Tokens are kept only as
// SHA-256 digests.
type introspector struct {
	ask   func(ctx context.Context, token string) (*answer, error)
	s     *settings
	slots chan struct{} // nil: no bound
	rate  *rateLimit    // nil: no bound

	inactive *lru.Cache[[sha256.Size]byte, time.Time] // nil: not remembered

	mu      sync.Mutex
	flights map[[sha256.Size]byte]*flight
}

// flight is one introspection request and the requests waiting for it.
type flight struct {
	done    chan struct{} // closed when ans and err are set
	ans     *answer
	err     error
	waiters int                // guarded by introspector.mu
	cancel  context.CancelFunc // ends the request
}

func newIntrospector(s *settings, ask func(context.Context, string) (*answer, error)) *introspector {
	cfg := s.Introspection
	in := &introspector{ask: ask, s: s, flights: map[[sha256.Size]byte]*flight{}}
	if cfg.MaxConcurrent > 0 {
		in.slots = make(chan struct{}, cfg.MaxConcurrent)
	}
	if cfg.MaxPerSecond > 0 {
		in.rate = newRateLimit(cfg.MaxPerSecond, max(1, math.Ceil(cfg.MaxPerSecond)))
	}
	if cfg.InactiveTTL > 0 {
		in.inactive, _ = lru.New[[sha256.Size]byte, time.Time](cfg.InactiveEntries) // size > 0: no error
	}
	return in
}

// answer returns the authorization server's answer about token. It waits
// until the answer arrives or ctx ends; a request whose every waiter has
// gone is cancelled.
func (in *introspector) answer(ctx context.Context, token string) (*answer, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("oauth: introspection abandoned: %w", err)
	}
	key := sha256.Sum256([]byte(token))
	if in.inactive != nil {
		if until, ok := in.inactive.Get(key); ok {
			if time.Now().Before(until) {
				return &answer{}, nil // inactive, as answered a moment ago
			}
			in.inactive.Remove(key)
		}
	}
	in.mu.Lock()
	f, ok := in.flights[key]
	if !ok {
		if in.rate != nil && !in.rate.allow(time.Now()) {
			in.mu.Unlock()
			if in.rate.shouldWarn(time.Now(), in.s.MinRefreshInterval) {
				in.s.Logger.WarnContext(ctx, "oauth: introspection rate limit reached; refusing opaque tokens unchecked",
					"max_per_second", in.s.Introspection.MaxPerSecond)
			}
			return nil, errIntrospectionLimited
		}
		fctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), introspectionTimeout)
		f = &flight{done: make(chan struct{}), cancel: cancel}
		in.flights[key] = f
		go in.run(fctx, key, token, f)
	}
	f.waiters++
	in.mu.Unlock()

	select {
	case <-f.done:
		return f.ans, f.err
	case <-ctx.Done():
		in.mu.Lock()
		f.waiters--
		if f.waiters == 0 {
			f.cancel()
			if in.flights[key] == f {
				delete(in.flights, key)
			}
		}
		in.mu.Unlock()
		return nil, fmt.Errorf("oauth: introspection abandoned: %w", ctx.Err())
	}
}

// run makes f's request once a slot is free, and publishes its answer.
func (in *introspector) run(ctx context.Context, key [sha256.Size]byte, token string, f *flight) {
	defer f.cancel()
	f.ans, f.err = in.request(ctx, token)
	if f.err == nil && !f.ans.Active && in.inactive != nil {
		in.inactive.Add(key, time.Now().Add(in.s.Introspection.InactiveTTL))
	}
	in.mu.Lock()
	if in.flights[key] == f {
		delete(in.flights, key)
	}
	in.mu.Unlock()
	close(f.done)
}

// request asks about token within a slot.
func (in *introspector) request(ctx context.Context, token string) (*answer, error) {
	if in.slots != nil {
		select {
		case in.slots <- struct{}{}:
			defer func() { <-in.slots }()
		case <-ctx.Done():
		}
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("oauth: introspection: %w", err) // nobody waits any more
	}
	return in.ask(ctx, token)
}
