// Command toolexec serves declarative tools, with no Go code: SQL tools
// (SQLite, PostgreSQL, MySQL) and HTTP-API tools defined in a tools file in
// googleapis/mcp-toolbox's tools.yaml form, tools and transforms written
// as TypeScript or JavaScript scripts, or a Hyperterse project's tools,
// over the toolexec library's REST (/api), MCP (/mcp, with the HandsAI
// routes) and OXP 1.0 (/oxp) surfaces.
//
// Usage:
//
//	toolexec serve --config tools.yaml [--addr 127.0.0.1:5000] [flags]
//	toolexec serve --config tools.yaml --stdio [flags]
//	toolexec validate --config tools.yaml
//
// With --stdio, serve speaks MCP over its standard input and output (one
// JSON-RPC message a line) instead of HTTP, for clients that start it as a
// subprocess; it logs on standard error only and exits when its input
// ends.
//
// serve reloads the file when it changes: a valid new file replaces the
// tools without dropping calls in flight, an invalid one is logged and
// ignored. validate prints every problem of the file as file:line: message
// and exits 1 when there is any.
//
// Calls need "Authorization: Bearer TOKEN" when the environment variable
// named by --token-env (TOOLEXEC_TOKEN by default) is set. Without a token
// the server refuses to listen on anything but a loopback address unless
// --insecure-no-auth is given. OpenTelemetry is opt-in through the standard
// variables: OTEL_TRACES_EXPORTER and OTEL_METRICS_EXPORTER set to otlp
// (OTLP over HTTP, configured by OTEL_EXPORTER_OTLP_*) or console. See
// cmd/toolexec/README.md.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/toolexec/toolexec"
	"github.com/toolexec/toolexec/cmd/toolexec/internal/config"
	"github.com/toolexec/toolexec/cmd/toolexec/internal/server"
)

// version is the command's version, reported as the MCP server version.
const version = "0.1.0"

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	configureGC(os.LookupEnv)
	os.Exit(run(ctx, os.Args[1:], os.LookupEnv, os.Stdin, os.Stdout, os.Stderr))
}

const usage = `toolexec serves SQL, HTTP-API and script tools declared in a tools.yaml
file, or in a Hyperterse project's directory.

Usage:
  toolexec serve --config FILE|DIR [--addr HOST:PORT] [flags]
  toolexec serve --config FILE|DIR --stdio [flags]
  toolexec validate --config FILE|DIR

Run "toolexec serve -h" for the serve flags.
`

// run is the command with its inputs passed in; it returns the exit code.
func run(ctx context.Context, args []string, getenv func(string) (string, bool), stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return 2
	}
	switch args[0] {
	case "serve":
		return serve(ctx, args[1:], getenv, stdin, stdout, stderr, nil)
	case "validate":
		return validate(args[1:], getenv, stdout, stderr)
	case "help", "-h", "--help":
		fmt.Fprint(stdout, usage)
		return 0
	case "version", "--version":
		fmt.Fprintln(stdout, "toolexec", version)
		return 0
	}
	fmt.Fprintf(stderr, "toolexec: unknown command %q\n\n%s", args[0], usage)
	return 2
}

func validate(args []string, getenv func(string) (string, bool), stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("validate", flag.ContinueOnError)
	fs.SetOutput(stderr)
	file := fs.String("config", "tools.yaml", "the tools file, or a Hyperterse project's directory")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	cfg, err := config.Load(*file, getenv)
	if err == nil {
		// The scripts are bundled and compiled, not run.
		err = server.CheckScripts(cfg)
	}
	if err != nil {
		var ps config.Problems
		if errors.As(err, &ps) {
			for _, p := range ps {
				fmt.Fprintln(stderr, p.String())
			}
			fmt.Fprintf(stderr, "%d problem(s)\n", len(ps))
		} else {
			fmt.Fprintln(stderr, err)
		}
		return 1
	}
	fmt.Fprintf(stdout, "%s: ok (%d sources, %d tools, %d toolsets)\n", *file, len(cfg.Sources), len(cfg.Tools), len(cfg.Toolsets))
	return 0
}

// serve runs the server until ctx is done (with --stdio: until stdin ends).
// ready, when set, receives the listening address (tests use it).
func serve(ctx context.Context, args []string, getenv func(string) (string, bool), stdin io.Reader, stdout, stderr io.Writer, ready chan<- net.Addr) int {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var (
		file        = fs.String("config", "tools.yaml", "the tools file, or a Hyperterse project's directory")
		addr        = fs.String("addr", "127.0.0.1:5000", "the address to listen on (HOST:PORT)")
		tokenEnv    = fs.String("token-env", "TOOLEXEC_TOKEN", "the environment variable holding the bearer token calls must carry")
		insecure    = fs.Bool("insecure-no-auth", false, "allow listening on a non-loopback address without a token")
		timeout     = fs.Duration("timeout", 30*time.Second, "the timeout of calls whose tool sets none (0: none)")
		concurrency = fs.Int("max-concurrency", 0, "the most calls running at once (0: unlimited)")
		rateLimit   = fs.String("rate-limit", "", "how often each caller may call, all tools together but those with a rateLimit of their own: RATE/PER, such as 10/1m or 5/s (unset: no limit)")
		rateBurst   = fs.Int("rate-burst", 0, "how many calls a caller may make at once after a quiet spell, with --rate-limit (0: the rate)")
		maxBody     = fs.Int64("max-body-bytes", 0, "the largest request body (0: the library's default, 1 MiB)")
		reload      = fs.Duration("reload-interval", time.Second, "how often the tools file is checked for changes (0: never)")
		logLevel    = fs.String("log-level", "info", "debug, info, warn or error")
		noExplorer  = fs.Bool("no-explorer", false, "leave out the explorer page at /api/")
		readTimeout = fs.Duration("read-timeout", 30*time.Second, "how long a request's body may take to arrive (0: no limit); headers have 10s")
		stdio       = fs.Bool("stdio", false, "serve MCP over standard input and output instead of HTTP, for clients that start the server as a subprocess (no token: the client owns the process)")
		redisURL    = fs.String("redis", "", "the Redis (or Valkey) that replicas of this server share, redis://[user:password@]host:port[/db], or a Redis Cluster, redis+cluster://[user:password@]host:port[?addr=host:port...] (default $"+redisEnv+"; none: everything stays in this process)")
		allowHosts  listFlag
		allowOrigin listFlag
		oauthOpts   oauthFlags
	)
	oauthOpts.register(fs)
	fs.Var(&allowHosts, "allow-host", "a Host header to serve besides loopback names, such as a reverse proxy's public name (repeatable, or comma-separated)")
	fs.Var(&allowOrigin, "allow-origin", "a browser origin that may call the server besides its own, such as http://localhost:3000 (repeatable, or comma-separated)")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	var level slog.Level
	if err := level.UnmarshalText([]byte(*logLevel)); err != nil {
		fmt.Fprintf(stderr, "toolexec: --log-level: %v\n", err)
		return 2
	}
	rate, err := serverRate(*rateLimit, *rateBurst)
	if err != nil {
		fmt.Fprintln(stderr, "toolexec:", err)
		return 2
	}
	logger := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: level}))
	if *stdio {
		if set := oauthOpts.setFlags(); len(set) > 0 {
			fmt.Fprintf(stderr, "toolexec: --stdio and %s are exclusive: a stdio server is its client's own subprocess\n", strings.Join(set, ", "))
			return 2
		}
		return serveStdio(ctx, stdioConfig{
			file: *file, getenv: getenv, stdin: stdin, stdout: stdout, stderr: stderr, logger: logger,
			reload: *reload,
			options: server.Options{
				Timeout:        *timeout,
				MaxConcurrency: *concurrency,
				RateLimit:      rate,
				MaxBodyBytes:   *maxBody,
				Logger:         logger,
				ServerName:     "toolexec",
				ServerVersion:  version,
			},
		})
	}

	token, _ := getenv(*tokenEnv)
	host, _, err := net.SplitHostPort(*addr)
	if err != nil {
		fmt.Fprintf(stderr, "toolexec: --addr: %v\n", err)
		return 2
	}
	if err := oauthOpts.check(token); err != nil {
		fmt.Fprintln(stderr, "toolexec:", err)
		return 2
	}
	if token == "" && !oauthOpts.enabled() && !*insecure && !isLoopback(host) {
		fmt.Fprintf(stderr, "toolexec: refusing to serve on %s without a token: set %s, listen on 127.0.0.1, or pass --insecure-no-auth\n", *addr, *tokenEnv)
		return 2
	}

	otelOpts, otelDesc, otelShutdown, err := telemetry(ctx, getenv, stdout)
	if err != nil {
		fmt.Fprintln(stderr, "toolexec: telemetry:", err)
		return 2
	}
	defer func() {
		sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = otelShutdown(sctx)
	}()

	shared, err := openStore(ctx, *redisURL, getenv, logger)
	if err != nil {
		fmt.Fprintln(stderr, "toolexec: --redis:", err)
		return 1
	}
	var store toolexec.Store // nil: server.Handler keeps it in this process
	if shared != nil {
		defer shared.close()
		store = shared.store
	}

	// The watch starts from the file as it is before the first load, so a
	// change made while the server starts is not missed.
	watch := server.NewWatch(*file)
	load := server.FileLoader(*file, getenv, logger)
	set, err := load(ctx)
	if err != nil {
		var ps config.Problems
		if errors.As(err, &ps) {
			for _, p := range ps {
				fmt.Fprintln(stderr, p.String())
			}
		} else {
			fmt.Fprintln(stderr, "toolexec:", err)
		}
		return 1
	}
	p := server.NewProvider(set)
	defer func() { _ = p.Current().Close() }()
	verifier, scopes, err := oauthOpts.verifier(ctx, getenv, p.Tools(), logger)
	if err != nil {
		fmt.Fprintln(stderr, "toolexec:", err)
		return 2
	}

	h, _ := server.Handler(p, server.Options{
		Token:           token,
		Timeout:         *timeout,
		MaxConcurrency:  *concurrency,
		RateLimit:       rate,
		MaxBodyBytes:    *maxBody,
		Logger:          logger,
		ServerName:      "toolexec",
		ServerVersion:   version,
		Store:           store,
		Extra:           otelOpts,
		OAuth:           verifier,
		OAuthBase:       oauthOpts.base,
		OAuthPublicList: oauthOpts.publicList,
		NoExplorer:      *noExplorer,
		AllowedHosts:    allowHosts,
		AllowedOrigins:  allowOrigin,
	})
	// ReadTimeout bounds how long a request's body may take to arrive
	// (net/http lifts it once the body is read, so long calls and SSE
	// streams are not cut). No WriteTimeout: it would cut MCP's SSE
	// streams; every SSE write has its own deadline (the mcp package's),
	// and calls have --timeout.
	srv := &http.Server{
		Handler:           h,
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       *readTimeout,
		IdleTimeout:       2 * time.Minute,
		MaxHeaderBytes:    64 << 10,
		ErrorLog:          slog.NewLogLogger(logger.Handler(), slog.LevelWarn),
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		fmt.Fprintln(stderr, "toolexec:", err)
		return 1
	}
	if *reload > 0 {
		watchCtx, cancel := context.WithCancel(ctx)
		defer cancel()
		go watch.Run(watchCtx, p, *reload, load, logger)
	}
	base := "http://" + ln.Addr().String()
	fmt.Fprintf(stdout, "toolexec %s serving %d tools from %s\n", version, len(p.Tools()), *file)
	fmt.Fprintf(stdout, "  REST: %s%s/tools\n  MCP:  %s%s\n  OXP:  %s%s/tools\n", base, server.RESTPrefix, base, server.MCPPath, base, server.OXPPrefix)
	fmt.Fprintf(stdout, "  OpenAPI: %s%s/openapi.json (and llms.txt; each toolset's at /toolsets/NAME/api/)\n", base, server.RESTPrefix)
	if names := p.Current().ToolsetNames(); len(names) > 0 {
		fmt.Fprintf(stdout, "  MCP toolsets: %s%s/{%s}\n", base, server.MCPPath, strings.Join(names, ","))
	}
	if !*noExplorer {
		fmt.Fprintf(stdout, "  Explorer: %s%s/ (open it in a browser)\n", base, server.RESTPrefix)
	}
	switch {
	case verifier != nil:
		fmt.Fprintln(stdout, oauthOpts.banner(scopes))
	case token == "":
		fmt.Fprintf(stdout, "  calls need no token (set %s to require one)\n", *tokenEnv)
	default:
		fmt.Fprintf(stdout, "  calls need \"Authorization: Bearer $%s\"\n", *tokenEnv)
	}
	if otelDesc != "" {
		fmt.Fprintf(stdout, "  OpenTelemetry:%s\n", otelDesc)
	}
	if rate.Rate > 0 {
		fmt.Fprintf(stdout, "  rate limit: %s\n", describeRate(rate))
	}
	if shared != nil {
		fmt.Fprintf(stdout, "  shared with other replicas through %s\n", shared.desc)
	}
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

// listFlag is a flag that may be given more than once, each value a
// comma-separated list.
type listFlag []string

func (l *listFlag) String() string { return strings.Join(*l, ",") }

func (l *listFlag) Set(v string) error {
	for _, s := range strings.Split(v, ",") {
		if s = strings.TrimSpace(s); s != "" {
			*l = append(*l, s)
		}
	}
	return nil
}

func isLoopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
