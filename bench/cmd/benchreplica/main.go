// Command benchreplica is one replica of the service the scale benchmark
// (make bench, docs/scale.md) runs one, two and three of behind HAProxy:
// toolexec's REST surface serving bench's "add" tool under a concurrency
// limit and a per-caller rate limit high enough never to refuse, so each
// call checks both in the shared store. With -redis it keeps them in that
// Redis; without, in the process. It prints its base URL on its first line
// of output and serves until killed.
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"log/slog"
	"net"
	"net/http"
	"os"
	"time"

	"github.com/toolexec/toolexec"
	"github.com/toolexec/toolexec/bench"
	"github.com/toolexec/toolexec/redis"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:0", "address to listen on")
	redisURL := flag.String("redis", "", "URL of the Redis replicas share; empty keeps everything in this process")
	flag.Parse()

	opts := []toolexec.Option{toolexec.WithAllowExecute(true),
		toolexec.WithLogger(slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn})))}
	if *redisURL != "" {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		store, err := redis.Open(ctx, *redisURL, redis.Options{})
		cancel()
		if err != nil {
			log.Fatal(err)
		}
		defer func() { _ = store.Close() }() // the process is ending
		opts = append(opts, toolexec.WithStore(store))
	}
	reg := toolexec.NewRegistry()
	toolexec.MustAddTool(reg, toolexec.Tool{Name: bench.ToolAdd, Description: "Adds two integers.", Options: toolexec.ToolOptions{
		ConcurrencyLimit: &toolexec.ConcurrencyLimit{Max: 1 << 20},
		RateLimit:        &toolexec.RateLimit{Rate: 1 << 30},
	}}, func(_ context.Context, in bench.AddIn) (bench.SumOut, error) {
		return bench.SumOut{Sum: in.A + in.B}, nil
	})
	x := toolexec.New(reg, reg, opts...)

	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("http://%s\n", ln.Addr())
	srv := &http.Server{Handler: toolexec.NewHandler(x), ReadHeaderTimeout: 10 * time.Second}
	log.Fatal(srv.Serve(ln))
}
