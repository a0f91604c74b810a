package redis

import (
	"context"
	"fmt"
	"log/slog"
	"strings"

	goredis "github.com/redis/go-redis/v9"
)

// LogTo sends go-redis's own log lines (a connection pool that cannot
// dial, a pub/sub connection dropped, ...) to l, each as one record at
// warning level whose message is the line, with the attribute
// component=go-redis, instead of go-redis's default: unstructured lines
// on standard error.
//
// go-redis has one logger for the whole process, so LogTo changes it for
// every go-redis client in the process, this Store's and any other. That
// is the program's decision, not a library's: call it once from main (the
// toolexec command's serve does, with its own logger), never from a
// package that others import. A nil l leaves go-redis's logger as it is.
func LogTo(l *slog.Logger) {
	if l == nil {
		return
	}
	goredis.SetLogger(slogLogging{l})
}

// slogLogging is go-redis's Logging on a slog.Logger.
type slogLogging struct{ l *slog.Logger }

func (s slogLogging) Printf(ctx context.Context, format string, v ...any) {
	if ctx == nil {
		ctx = context.Background()
	}
	if !s.l.Enabled(ctx, slog.LevelWarn) {
		return
	}
	msg := strings.TrimSpace(fmt.Sprintf(format, v...))
	s.l.LogAttrs(ctx, slog.LevelWarn, msg, slog.String("component", "go-redis"))
}
