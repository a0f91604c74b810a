package redis_test

import (
	"context"
	"log/slog"
	"os"
	"testing"
	"time"

	goredis "github.com/redis/go-redis/v9"
	"github.com/redis/go-redis/v9/logging"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolexec/toolexec/internal/testlog"
	"github.com/toolexec/toolexec/internal/testserver"
	"github.com/toolexec/toolexec/redis"
)

// Not parallel: go-redis's logger belongs to the whole process.
func TestLogToSendsGoRedisLinesToTheLogger(t *testing.T) {
	var logs testlog.Buffer
	redis.LogTo(logs.Logger())
	t.Cleanup(logging.Enable) // go-redis's own default again

	addr, err := testserver.FreeAddr() // nothing listens there
	require.NoError(t, err)
	client := goredis.NewClient(&goredis.Options{Addr: addr, DialTimeout: 100 * time.Millisecond, MaxRetries: -1})
	defer client.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	require.Error(t, client.Ping(ctx).Err())

	out := logs.String()
	assert.Contains(t, out, "level=WARN")
	assert.Contains(t, out, "component=go-redis")
	assert.Contains(t, out, "failed to dial", "go-redis's line, as one structured record")
}

// A program routes go-redis's own log lines to its slog logger once, in
// main, before it opens the store.
func ExampleLogTo() {
	logger := slog.New(slog.NewJSONHandler(os.Stderr, nil))
	redis.LogTo(logger) // go-redis's logger is the process's: main sets it
	store, err := redis.Open(context.Background(), "redis://127.0.0.1:6379/0", redis.Options{Logger: logger})
	if err != nil {
		logger.Error("no Redis", "error", err)
		return
	}
	defer store.Close()
}
