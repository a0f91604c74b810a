package redis

import (
	"context"
	"errors"
	"io"
	"net"
	"sync/atomic"
	"time"

	goredis "github.com/redis/go-redis/v9"
)

// ErrUnavailable is the error of an operation the Store did not send,
// because Redis failed to answer an operation very recently (see Open).
var ErrUnavailable = errors.New("redis: Redis did not answer just now; not retried for a moment")

// breakerCooldown is how long, after a failure to reach Redis, a Store
// Open made fails operations at once instead of sending them.
const breakerCooldown = time.Second

// breaker is a go-redis hook that fails commands at once for
// breakerCooldown after one failed to reach Redis, so that while Redis
// does not answer (a network partition, a paused server) each replica
// waits for it about once a second, not once per call. On a cluster, each
// node's client has a breaker of its own.
type breaker struct {
	openUntil atomic.Int64 // UnixNano; 0: closed
	// onOpen, if set, is called when the breaker opens: a cluster client
	// then reloads the cluster's state, to learn of a failover.
	onOpen func()
}

func (b *breaker) DialHook(next goredis.DialHook) goredis.DialHook {
	return func(ctx context.Context, network, addr string) (net.Conn, error) {
		if b.open() {
			return nil, ErrUnavailable
		}
		c, err := next(ctx, network, addr)
		b.note(ctx, err)
		return c, err
	}
}

func (b *breaker) ProcessHook(next goredis.ProcessHook) goredis.ProcessHook {
	return func(ctx context.Context, cmd goredis.Cmder) error {
		if b.open() {
			cmd.SetErr(ErrUnavailable)
			return ErrUnavailable
		}
		err := next(ctx, cmd)
		b.note(ctx, err)
		return err
	}
}

func (b *breaker) ProcessPipelineHook(next goredis.ProcessPipelineHook) goredis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []goredis.Cmder) error {
		if b.open() {
			for _, c := range cmds {
				c.SetErr(ErrUnavailable)
			}
			return ErrUnavailable
		}
		err := next(ctx, cmds)
		b.note(ctx, err)
		return err
	}
}

func (b *breaker) open() bool {
	until := b.openUntil.Load()
	return until != 0 && time.Now().UnixNano() < until
}

// note opens the breaker on an error that says Redis could not be
// reached; an answer, even an error reply, closes it. A failure because
// the caller's own context ended says nothing of Redis.
func (b *breaker) note(ctx context.Context, err error) {
	switch {
	case err == nil, errors.Is(err, goredis.Nil), errors.Is(err, ErrUnavailable):
		b.openUntil.Store(0)
	case ctx.Err() != nil:
	case unreachable(err):
		now := time.Now()
		if prev := b.openUntil.Swap(now.Add(breakerCooldown).UnixNano()); prev <= now.UnixNano() && b.onOpen != nil {
			b.onOpen()
		}
	default: // an error reply: Redis answered
		b.openUntil.Store(0)
	}
}

// unreachable reports whether err says Redis could not be reached or did
// not answer in time.
func unreachable(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) || errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) ||
		errors.Is(err, goredis.ErrPoolTimeout) || errors.Is(err, context.DeadlineExceeded)
}
