package main

import (
	"context"
	"log/slog"
	"net/url"
	"strings"
	"time"

	"github.com/toolexec/toolexec/redis"
)

// redisEnv is the environment variable --redis defaults to.
const redisEnv = "TOOLEXEC_REDIS_URL"

// sharedStore is the Redis that replicas of this server share.
type sharedStore struct {
	store *redis.Store
	desc  string // what the banner says of it: its address, never its password
}

func (s *sharedStore) close() { _ = s.store.Close() }

// openStore opens the Redis named by --redis or else by
// TOOLEXEC_REDIS_URL, and checks, within 10 seconds, that it answers; nil
// and no error when neither names one. A Redis that cannot be reached is
// an error naming its address. The store, and go-redis itself (whose
// logger is the process's, which the command owns), log to logger.
func openStore(ctx context.Context, flagURL string, getenv func(string) (string, bool), logger *slog.Logger) (*sharedStore, error) {
	u := flagURL
	if u == "" {
		u, _ = getenv(redisEnv)
	}
	if u == "" {
		return nil, nil
	}
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	redis.LogTo(logger)
	s, err := redis.Open(ctx, u, redis.Options{Logger: logger})
	if err != nil {
		return nil, err
	}
	return &sharedStore{store: s, desc: describe(u)}, nil
}

// describe says what Redis u names, by its address or, for a cluster,
// the addresses of the nodes it names, never its password.
func describe(u string) string {
	p, err := url.Parse(u)
	if err != nil || p.Host == "" {
		return "Redis"
	}
	if strings.HasSuffix(p.Scheme, "+cluster") {
		return "Redis Cluster at " + strings.Join(append([]string{p.Host}, p.Query()["addr"]...), ", ")
	}
	return "Redis at " + p.Host
}
