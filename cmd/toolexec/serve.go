package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/toolexec/toolexec"
	"github.com/toolexec/toolexec/cmd/toolexec/internal/server"
)

// serveConfig is what `toolexec serve` runs with: its flags, parsed and
// checked, and its environment.
type serveConfig struct {
	file, addr, tokenEnv, redisURL string
	// token is the static token calls must carry: the value of the
	// variable tokenEnv names ("" for none).
	token                        string
	insecure, noExplorer, stdio  bool
	timeout, reload, readTimeout time.Duration
	concurrency                  int
	maxBody                      int64
	rate                         toolexec.RateLimit
	allowHosts, allowOrigin      listFlag
	oauth                        oauthFlags
	logger                       *slog.Logger
	getenv                       func(string) (string, bool)
}

// serve runs the server until ctx is done (with --stdio: until stdin ends)
// and returns the exit code. ready, when set, receives the listening
// address (tests use it).
func serve(ctx context.Context, args []string, getenv func(string) (string, bool), stdin io.Reader, stdout, stderr io.Writer, ready chan<- net.Addr) int {
	c, ok := parseServeFlags(args, getenv, stderr)
	if !ok {
		return 2
	}
	if c.stdio {
		return c.runStdio(ctx, stdin, stdout, stderr)
	}
	return c.run(ctx, stdout, stderr, ready)
}

// parseServeFlags reads serve's flags and refuses, saying why on stderr,
// what cannot run: bad values, flags that exclude each other, and a server
// that would listen beyond loopback with no token.
func parseServeFlags(args []string, getenv func(string) (string, bool), stderr io.Writer) (*serveConfig, bool) {
	c := &serveConfig{getenv: getenv}
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&c.file, "config", "tools.yaml", "the tools file, or a Hyperterse project's directory")
	fs.StringVar(&c.addr, "addr", "127.0.0.1:5000", "the address to listen on (HOST:PORT)")
	fs.StringVar(&c.tokenEnv, "token-env", "TOOLEXEC_TOKEN", "the environment variable holding the bearer token calls must carry")
	fs.BoolVar(&c.insecure, "insecure-no-auth", false, "allow listening on a non-loopback address without a token")
	fs.DurationVar(&c.timeout, "timeout", 30*time.Second, "the timeout of calls whose tool sets none (0: none)")
	fs.IntVar(&c.concurrency, "max-concurrency", 0, "the most calls running at once (0: unlimited)")
	rateLimit := fs.String("rate-limit", "", "how often each caller may call, all tools together but those with a rateLimit of their own: RATE/PER, such as 10/1m or 5/s (unset: no limit)")
	rateBurst := fs.Int("rate-burst", 0, "how many calls a caller may make at once after a quiet spell, with --rate-limit (0: the rate)")
	fs.Int64Var(&c.maxBody, "max-body-bytes", 0, "the largest request body (0: the library's default, 1 MiB)")
	fs.DurationVar(&c.reload, "reload-interval", time.Second, "how often the tools file is checked for changes (0: never)")
	logLevel := fs.String("log-level", "info", "debug, info, warn or error")
	fs.BoolVar(&c.noExplorer, "no-explorer", false, "leave out the explorer page at /api/")
	fs.DurationVar(&c.readTimeout, "read-timeout", 30*time.Second, "how long a request's body may take to arrive (0: no limit); headers have 10s")
	fs.BoolVar(&c.stdio, "stdio", false, "serve MCP over standard input and output instead of HTTP, for clients that start the server as a subprocess (no token: the client owns the process)")
	fs.StringVar(&c.redisURL, "redis", "", "the Redis (or Valkey) that replicas of this server share, redis://[user:password@]host:port[/db], or a Redis Cluster, redis+cluster://[user:password@]host:port[?addr=host:port...] (default $"+redisEnv+"; none: everything stays in this process)")
	c.oauth.register(fs)
	fs.Var(&c.allowHosts, "allow-host", "a Host header to serve besides loopback names, such as a reverse proxy's public name (repeatable, or comma-separated)")
	fs.Var(&c.allowOrigin, "allow-origin", "a browser origin that may call the server besides its own, such as http://localhost:3000 (repeatable, or comma-separated)")
	if err := fs.Parse(args); err != nil {
		return nil, false
	}
	var level slog.Level
	if err := level.UnmarshalText([]byte(*logLevel)); err != nil {
		fmt.Fprintf(stderr, "toolexec: --log-level: %v\n", err)
		return nil, false
	}
	rate, err := serverRate(*rateLimit, *rateBurst)
	if err != nil {
		fmt.Fprintln(stderr, "toolexec:", err)
		return nil, false
	}
	c.rate = rate
	c.logger = slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: level}))
	if c.stdio {
		if set := c.oauth.setFlags(); len(set) > 0 {
			fmt.Fprintf(stderr, "toolexec: --stdio and %s are exclusive: a stdio server is its client's own subprocess\n", strings.Join(set, ", "))
			return nil, false
		}
		return c, true // no token, no address: the client owns the process
	}
	c.token, _ = getenv(c.tokenEnv)
	host, _, err := net.SplitHostPort(c.addr)
	if err != nil {
		fmt.Fprintf(stderr, "toolexec: --addr: %v\n", err)
		return nil, false
	}
	if err := c.oauth.check(c.token); err != nil {
		fmt.Fprintln(stderr, "toolexec:", err)
		return nil, false
	}
	if c.token == "" && !c.oauth.enabled() && !c.insecure && !isLoopback(host) {
		fmt.Fprintf(stderr, "toolexec: refusing to serve on %s without a token: set %s, listen on 127.0.0.1, or pass --insecure-no-auth\n", c.addr, c.tokenEnv)
		return nil, false
	}
	return c, true
}

// options are the server options both transports take from the flags.
func (c *serveConfig) options() server.Options {
	return server.Options{
		Timeout:        c.timeout,
		MaxConcurrency: c.concurrency,
		RateLimit:      c.rate,
		MaxBodyBytes:   c.maxBody,
		Logger:         c.logger,
		ServerName:     "toolexec",
		ServerVersion:  version,
	}
}

// load loads the tools file and starts watching it (every reload
// interval). On failure it prints why on stderr and returns nil. Else
// close stops the watch, then closes the current set.
func (c *serveConfig) load(ctx context.Context, stderr io.Writer) (p *server.Provider, close func()) {
	// The watch starts from the file as it is before the first load, so a
	// change made while the server starts is not missed.
	watch := server.NewWatch(c.file)
	load := server.FileLoader(c.file, c.getenv, c.logger)
	set, err := load(ctx)
	if err != nil {
		_, _ = printProblems(stderr, err, "toolexec: ") // printed: the caller reports the failure
		return nil, nil
	}
	p = server.NewProvider(set)
	watchCtx, stopWatch := context.WithCancel(ctx)
	if c.reload > 0 {
		go watch.Run(watchCtx, p, c.reload, load, c.logger)
	}
	return p, func() {
		stopWatch()
		_ = p.Current().Close()
	}
}

// startTelemetry starts the OpenTelemetry the environment asks for
// (exporting to out for the console exporters). It returns the options
// that wire it, its banner description, and a stop that flushes it
// (waiting 5 s at most).
func (c *serveConfig) startTelemetry(ctx context.Context, out io.Writer) ([]toolexec.Option, string, func(), error) {
	opts, desc, shutdown, err := telemetry(ctx, c.getenv, out)
	if err != nil {
		return nil, "", nil, err
	}
	stop := func() {
		sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = shutdown(sctx)
	}
	return opts, desc, stop, nil
}

// run serves over HTTP until ctx is done and returns the exit code.
func (c *serveConfig) run(ctx context.Context, stdout, stderr io.Writer, ready chan<- net.Addr) int {
	otelOpts, otelDesc, stopTelemetry, err := c.startTelemetry(ctx, stdout)
	if err != nil {
		fmt.Fprintln(stderr, "toolexec: telemetry:", err)
		return 2
	}
	defer stopTelemetry()

	shared, err := openStore(ctx, c.redisURL, c.getenv, c.logger)
	if err != nil {
		fmt.Fprintln(stderr, "toolexec: --redis:", err)
		return 1
	}
	var store toolexec.Store // nil: server.Handler keeps it in this process
	if shared != nil {
		defer shared.close()
		store = shared.store
	}

	p, closeSet := c.load(ctx, stderr)
	if p == nil {
		return 1
	}
	defer closeSet()
	verifier, scopes, err := c.oauth.verifier(ctx, c.getenv, p.Tools(), c.logger)
	if err != nil {
		fmt.Fprintln(stderr, "toolexec:", err)
		return 2
	}

	opts := c.options()
	opts.Token = c.token
	opts.Store = store
	opts.Extra = otelOpts
	opts.OAuth = verifier
	opts.OAuthBase = c.oauth.base
	opts.OAuthPublicList = c.oauth.publicList
	opts.NoExplorer = c.noExplorer
	opts.AllowedHosts = c.allowHosts
	opts.AllowedOrigins = c.allowOrigin
	h, _ := server.Handler(p, opts)
	// ReadTimeout bounds how long a request's body may take to arrive
	// (net/http lifts it once the body is read, so long calls and SSE
	// streams are not cut). No WriteTimeout: it would cut MCP's SSE
	// streams; every SSE write has its own deadline (the mcp package's),
	// and calls have --timeout.
	srv := &http.Server{
		Handler:           h,
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       c.readTimeout,
		IdleTimeout:       2 * time.Minute,
		MaxHeaderBytes:    64 << 10,
		ErrorLog:          slog.NewLogLogger(c.logger.Handler(), slog.LevelWarn),
	}
	ln, err := net.Listen("tcp", c.addr)
	if err != nil {
		fmt.Fprintln(stderr, "toolexec:", err)
		return 1
	}
	c.banner(stdout, "http://"+ln.Addr().String(), p, verifier != nil, scopes, otelDesc, shared)
	if ready != nil {
		ready <- ln.Addr()
	}

	serveErr := make(chan error, 1)
	go func() { serveErr <- srv.Serve(ln) }()
	select {
	case err := <-serveErr:
		fmt.Fprintln(stderr, "toolexec:", err)
		return 1
	case <-ctx.Done():
	}
	shutdownCtx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := srv.Shutdown(shutdownCtx); err != nil {
		_ = srv.Close()
	}
	// No request runs any more, but tasks may: stop them, so that the
	// sources close (deferred above) without waiting for their timeouts.
	p.StopCalls()
	return 0
}

// banner prints what an HTTP server serves, and where, on stdout.
func (c *serveConfig) banner(stdout io.Writer, base string, p *server.Provider, oauth bool, scopes []string, otelDesc string, shared *sharedStore) {
	fmt.Fprintf(stdout, "toolexec %s serving %d tools from %s\n", version, len(p.Tools()), c.file)
	fmt.Fprintf(stdout, "  REST: %s%s/tools\n  MCP:  %s%s\n  OXP:  %s%s/tools\n", base, server.RESTPrefix, base, server.MCPPath, base, server.OXPPrefix)
	fmt.Fprintf(stdout, "  OpenAPI: %s%s/openapi.json (and llms.txt; each toolset's at /toolsets/NAME/api/)\n", base, server.RESTPrefix)
	if names := p.Current().ToolsetNames(); len(names) > 0 {
		fmt.Fprintf(stdout, "  MCP toolsets: %s%s/{%s}\n", base, server.MCPPath, strings.Join(names, ","))
	}
	if !c.noExplorer {
		fmt.Fprintf(stdout, "  Explorer: %s%s/ (open it in a browser)\n", base, server.RESTPrefix)
	}
	switch {
	case oauth:
		fmt.Fprintln(stdout, c.oauth.banner(scopes))
	case c.token == "":
		fmt.Fprintf(stdout, "  calls need no token (set %s to require one)\n", c.tokenEnv)
	default:
		fmt.Fprintf(stdout, "  calls need \"Authorization: Bearer $%s\"\n", c.tokenEnv)
	}
	if otelDesc != "" {
		fmt.Fprintf(stdout, "  OpenTelemetry:%s\n", otelDesc)
	}
	if c.rate.Rate > 0 {
		fmt.Fprintf(stdout, "  rate limit: %s\n", describeRate(c.rate))
	}
	if shared != nil {
		fmt.Fprintf(stdout, "  shared with other replicas through %s\n", shared.desc)
	}
}
