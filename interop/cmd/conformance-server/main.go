// Command conformance-server serves, at /mcp, every tool the official MCP
// conformance suite's server scenarios call, registered with toolexec's
// public API, so that `make conformance` can run the suite
// (@modelcontextprotocol/conformance) against toolexec's MCP handler at
// every protocol version it speaks:
//
//	cd interop && go run ./cmd/conformance-server -addr 127.0.0.1:3001
//
// It prints the endpoint's URL on its first line of output and serves until
// killed. Its handler runs with the defaults a host gets, DNS-rebinding
// defense included. With -redis URL it keeps what replicas share in that
// Redis (github.com/toolexec/toolexec/redis), so several of it behind one
// balancer serve as one server; a Redis that cannot be reached at start
// is a fatal error.
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"net"
	"net/http"
	"os"
	"time"

	"github.com/toolexec/toolexec"
	"github.com/toolexec/toolexec/mcp"
	"github.com/toolexec/toolexec/redis"
)

// toolChangeChannel carries test_trigger_tool_change to every replica.
const toolChangeChannel = "conformance:tool-change"

func main() {
	addr := flag.String("addr", "127.0.0.1:0", "address to listen on")
	redisURL := flag.String("redis", "", "URL of the Redis replicas share (redis://host:port/db); empty keeps everything in this process")
	flag.Parse()

	reg := toolexec.NewRegistry()
	addTools(reg)
	// The tools that report progress and log messages or ask the client
	// for input mid-call (logging, progress, sampling, elicitation,
	// input_required, tool-set changes). A tool-set change is broadcast
	// through the Executor's store, which every replica hears.
	var store toolexec.PubSub
	addStreamingTools(reg, func(ctx context.Context) error { return store.Publish(ctx, toolChangeChannel, nil) })
	// The tools of the tasks extension's scenarios (MCP 2026-07-28): their
	// tasks live in the Executor's store, so any replica serves them.
	addTaskTools(reg)

	opts := []toolexec.Option{toolexec.WithAllowExecute(true)}
	if *redisURL != "" {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		rds, err := redis.Open(ctx, *redisURL, redis.Options{})
		cancel()
		if err != nil {
			log.Fatal(err)
		}
		defer func() { _ = rds.Close() }() // the process is ending
		opts = append(opts, toolexec.WithStore(rds))
	}
	x := toolexec.New(reg, reg, opts...)
	store = x.SurfaceKit().Store()
	stop, err := store.Subscribe(context.Background(), toolChangeChannel, func([]byte) { toggleDynamicTool(reg) })
	if err != nil {
		log.Fatal(err)
	}
	defer stop()
	h := mcp.NewHandler(x,
		mcp.WithServerInfo("toolexec-conformance", "1.0.0"),
		mcp.WithCacheHints(5*time.Minute, mcp.CachePublic))
	mux := http.NewServeMux()
	mux.Handle("/mcp", h)
	mux.Handle("/mcp/", h)

	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Fprintf(os.Stdout, "http://%s/mcp\n", ln.Addr())
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	log.Fatal(srv.Serve(ln))
}
