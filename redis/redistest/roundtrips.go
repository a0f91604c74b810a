package redistest

import (
	"context"
	"strings"
	"sync/atomic"

	goredis "github.com/redis/go-redis/v9"
)

// RoundTrips is a go-redis hook (AddHook) that counts the round trips a
// client makes to Redis: one per command sent alone, one per pipeline (a
// script run with EVALSHA is one command). What go-redis sends to set up
// a new connection (HELLO, CLIENT SETINFO, AUTH, SELECT) is not counted.
// The zero value is ready; it is safe for concurrent use.
type RoundTrips struct{ n atomic.Int64 }

// Count is how many round trips have been counted since the start or
// the last Reset.
func (r *RoundTrips) Count() int64 { return r.n.Load() }

// Reset counts afresh from zero.
func (r *RoundTrips) Reset() { r.n.Store(0) }

// DialHook implements goredis.Hook: dialling is not counted.
func (r *RoundTrips) DialHook(next goredis.DialHook) goredis.DialHook { return next }

// ProcessHook implements goredis.Hook: a command sent alone is a round
// trip.
func (r *RoundTrips) ProcessHook(next goredis.ProcessHook) goredis.ProcessHook {
	return func(ctx context.Context, cmd goredis.Cmder) error {
		if !handshake(cmd) {
			r.n.Add(1)
		}
		return next(ctx, cmd)
	}
}

// ProcessPipelineHook implements goredis.Hook: a pipeline is one round
// trip.
func (r *RoundTrips) ProcessPipelineHook(next goredis.ProcessPipelineHook) goredis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []goredis.Cmder) error {
		if len(cmds) > 0 && !handshake(cmds[0]) {
			r.n.Add(1)
		}
		return next(ctx, cmds)
	}
}

// handshake reports whether cmd is one go-redis sends to set up a
// connection.
func handshake(cmd goredis.Cmder) bool {
	switch strings.ToLower(cmd.Name()) {
	case "hello", "client", "auth", "select":
		return true
	}
	return false
}
