// Command server is the toolexec example server, the program `make run`
// starts. It serves a handful of demo tools over every surface from one
// Executor: REST under /api (with the explorer page at /api/ itself), OXP
// 1.0 under /oxp, and MCP at /mcp (with the HandsAI-compatible routes below
// it), with execution enabled and calls guarded by a bearer token.
//
// Environment:
//
//	PORT                   the port to listen on (default 8080)
//	TOOLEXEC_DEMO_TOKEN    the bearer token calls must carry (default: a
//	                       fresh random token, printed at start-up)
//	OTEL_TRACES_EXPORTER   "console": spans as JSON lines on stdout
//	OTEL_METRICS_EXPORTER  "console": metrics as JSON lines on stdout
//
// At start-up it prints where it listens, the token, and curl lines to try.
// SIGINT or SIGTERM shuts it down gracefully.
package main

import (
	"context"
	"errors"
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
	"github.com/toolexec/toolexec/explorer"
	"github.com/toolexec/toolexec/mcp"
	"github.com/toolexec/toolexec/oxp"
)

// restPrefix is where the REST surface is mounted; docs/rest-api.md uses the
// same prefix in its examples.
const restPrefix = "/api"

// oxpPrefix is where the OXP 1.0 surface is mounted.
const oxpPrefix = "/oxp"

// mcpPath is the MCP endpoint (JSON-RPC over stateless Streamable HTTP).
const mcpPath = "/mcp"

// shutdownGrace is how long in-flight calls get to finish on shutdown.
const shutdownGrace = 10 * time.Second

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Getenv, os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "server:", err)
		os.Exit(1)
	}
}

// run serves until ctx is done, then shuts down gracefully. It prints the
// start-up banner to stdout and logs to stderr.
func run(ctx context.Context, getenv func(string) string, stdout, stderr io.Writer) error {
	logger := slog.New(slog.NewTextHandler(stderr, nil))

	port := getenv("PORT")
	if port == "" {
		port = "8080"
	}
	token := getenv("TOOLEXEC_DEMO_TOKEN")
	if token == "" {
		token = randomToken()
	}
	swatch, err := makeSwatch()
	if err != nil {
		return fmt.Errorf("drawing the demo image: %w", err)
	}

	otelOpts, otelDesc, otelShutdown, err := telemetry(getenv, stdout)
	if err != nil {
		return fmt.Errorf("telemetry: %w", err)
	}
	defer func() { _ = otelShutdown(context.Background()) }()

	x := newExecutor(newRegistry(swatch), token, logger, otelOpts...)
	srv := newServer(newMux(x), logger)

	ln, err := net.Listen("tcp", ":"+port)
	if err != nil {
		return err
	}
	printBanner(stdout, ln.Addr(), token)
	if otelDesc != "" {
		fmt.Fprintf(stdout, "OpenTelemetry:%s exported to stdout as JSON lines.\n", otelDesc)
	}

	serveErr := make(chan error, 1)
	go func() { serveErr <- srv.Serve(ln) }()

	select {
	case err := <-serveErr:
		return err
	case <-ctx.Done():
	}
	logger.Info("shutting down", "grace", shutdownGrace)
	shutdownCtx, cancel := context.WithTimeout(context.Background(), shutdownGrace)
	defer cancel()
	if err := srv.Shutdown(shutdownCtx); err != nil {
		_ = srv.Close()
		return fmt.Errorf("shutdown: %w", err)
	}
	if err := <-serveErr; !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// newExecutor builds the Executor every surface shares: the demo registry,
// execution enabled, calls guarded by the bearer token, and every surface
// behind the DNS-rebinding and cross-site request defense (a server a
// developer runs on their machine is what rebinding pages aim at). Tests
// add options (interceptors that observe calls) through extra.
func newExecutor(reg *toolexec.Registry, token string, logger *slog.Logger, extra ...toolexec.Option) *toolexec.Executor {
	opts := append([]toolexec.Option{
		toolexec.WithAllowExecute(true),
		toolexec.WithAuthHook(bearerAuth(token)),
		toolexec.WithLogger(logger),
		toolexec.WithRebindingProtection(toolexec.RebindingProtection{}),
	}, extra...)
	return toolexec.New(reg, reg, opts...)
}

// newMux mounts the surfaces of x. Each surface is an http.Handler built on
// the same Executor, so another one mounts beside REST with one more line.
func newMux(x *toolexec.Executor) *http.ServeMux {
	mux := http.NewServeMux()
	// The explorer page answers GET /api/ itself; every other path goes to
	// the REST handler. Its Call button is on, as the executor's gate is,
	// and it calls through the MCP endpoint, so progress, log messages,
	// Cancel and input forms work as in an MCP client.
	rest := explorer.Wrap(x, toolexec.NewHandler(x),
		explorer.WithExecute(true),
		explorer.WithMCP(mcpPath),
		explorer.WithProjectLink("toolexec", "https://github.com/toolexec/toolexec"))
	mux.Handle(restPrefix+"/", http.StripPrefix(restPrefix, rest))
	mux.Handle(oxpPrefix+"/", http.StripPrefix(oxpPrefix, oxp.NewHandler(x)))
	// The MCP endpoint is /mcp itself; /mcp/tools/list and /mcp/tools/call
	// are the HandsAI-compatible routes of the same handler.
	mcpHandler := mcp.NewHandler(x, mcp.WithServerInfo("toolexec-example", "1.0.0"))
	mux.Handle(mcpPath, mcpHandler)
	mux.Handle(mcpPath+"/", mcpHandler)
	return mux
}

// newServer wraps h in an http.Server with timeouts, so a slow or idle
// client cannot hold a connection forever: a request's headers have 5 s to
// arrive and its body 30 s (net/http lifts the read deadline once the body
// is read, so calls that run longer are not cut), and an idle connection
// is closed after 2 minutes. There is no WriteTimeout: it would cut MCP's
// SSE streams (a call's progress, a subscriptions/listen stream), whose
// every write carries a deadline of its own instead.
func newServer(h http.Handler, logger *slog.Logger) *http.Server {
	return &http.Server{
		Handler:           h,
		ReadHeaderTimeout: 5 * time.Second,
		ReadTimeout:       30 * time.Second,
		IdleTimeout:       2 * time.Minute,
		MaxHeaderBytes:    64 << 10,
		ErrorLog:          slog.NewLogLogger(logger.Handler(), slog.LevelWarn),
	}
}

// printBanner tells a human where the server is and how to try it: the
// curl lines work as printed.
func printBanner(w io.Writer, addr net.Addr, token string) {
	_, port, _ := net.SplitHostPort(addr.String())
	base := "http://localhost:" + port
	fmt.Fprintf(w, "toolexec example server listening on %s (all interfaces)\n", base)
	fmt.Fprintf(w, "  REST API:   %s%s/tools\n", base, restPrefix)
	fmt.Fprintf(w, "  Explorer:   %s%s/ (open it in a browser; it calls over MCP: try countdown and greet)\n", base, restPrefix)
	fmt.Fprintf(w, "  OpenAPI:    %s%s/openapi.json (for Open WebUI, GPT Actions, code generators; llms.txt beside it)\n", base, restPrefix)
	fmt.Fprintf(w, "  OXP 1.0:    %s%s/tools\n", base, oxpPrefix)
	fmt.Fprintf(w, "  MCP:        %s%s (HandsAI routes: %s%s/tools/list, %s%s/tools/call)\n", base, mcpPath, base, mcpPath, base, mcpPath)
	fmt.Fprintf(w, "  demo token: %s\n", token)
	fmt.Fprintf(w, "\nList the tools (no token needed):\n")
	fmt.Fprintf(w, "  curl -sS %s%s/tools\n", base, restPrefix)
	fmt.Fprintf(w, "\nCall one (calls need the token):\n")
	fmt.Fprintf(w, "  curl -sS -X POST -H %s -H 'Content-Type: application/json' -d '{\"text\":\"hello\"}' %s%s/tools/echo/call\n",
		shellQuote("Authorization: Bearer "+token), base, restPrefix)
	fmt.Fprintf(w, "\nThe same call over OXP:\n")
	fmt.Fprintf(w, "  curl -sS -X POST -H %s -H 'Content-Type: application/json' -d '{\"tool_id\":\"Tools.echo\",\"input\":{\"text\":\"hello\"}}' %s%s/tools/call\n",
		shellQuote("Authorization: Bearer "+token), base, oxpPrefix)
	fmt.Fprintf(w, "\nThe same call over MCP (JSON-RPC):\n")
	fmt.Fprintf(w, "  curl -sS -X POST -H %s -H 'Content-Type: application/json' -H 'Accept: application/json, text/event-stream' -d '{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"echo\",\"arguments\":{\"text\":\"hello\"}}}' %s%s\n",
		shellQuote("Authorization: Bearer "+token), base, mcpPath)
	fmt.Fprintf(w, "\nPress Ctrl-C to stop.\n")
}

// shellQuote quotes s for a POSIX shell.
func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
