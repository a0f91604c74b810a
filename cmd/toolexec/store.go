package main

import (
	"context"
	"net/url"
	"time"

	"github.com/toolexec/toolexec"
	"github.com/toolexec/toolexec/redis"
)

// redisEnv is the environment variable --redis defaults to.
const redisEnv = "TOOLEXEC_REDIS_URL"

// sharedStore is the Redis that replicas of this server share.
type sharedStore struct {
	store *redis.Store
	desc  string // what the banner says of it: its address, never its password
}

// option is the Executor option that keeps what replicas share in the
// store.
func (s *sharedStore) option() toolexec.Option { return toolexec.WithStore(s.store) }

func (s *sharedStore) close() { _ = s.store.Close() }

// openStore opens the Redis named by --redis or else by
// TOOLEXEC_REDIS_URL, and checks, within 10 seconds, that it answers; nil
// and no error when neither names one. A Redis that cannot be reached is
// an error naming its address.
func openStore(ctx context.Context, flagURL string, getenv func(string) (string, bool)) (*sharedStore, error) {
	u := flagURL
	if u == "" {
		u, _ = getenv(redisEnv)
	}
	if u == "" {
		return nil, nil
	}
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	s, err := redis.Open(ctx, u, redis.Options{})
	if err != nil {
		return nil, err
	}
	desc := "Redis"
	if p, err := url.Parse(u); err == nil && p.Host != "" {
		desc += " at " + p.Host
	}
	return &sharedStore{store: s, desc: desc}, nil
}
