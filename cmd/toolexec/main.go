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
	"net"
	"os"
	"os/signal"
	"strings"
	"syscall"

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

// validate checks the tools file (or project) and its scripts, printing
// every problem, and returns the exit code: 0 when there is none, 1 when
// there are, 2 for bad flags.
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
		if ps, ok := printProblems(stderr, err, ""); ok {
			fmt.Fprintf(stderr, "%d problem(s)\n", len(ps))
		}
		return 1
	}
	fmt.Fprintf(stdout, "%s: ok (%d sources, %d tools, %d toolsets)\n", *file, len(cfg.Sources), len(cfg.Tools), len(cfg.Toolsets))
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

// isLoopback reports whether host is localhost or a loopback address.
func isLoopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// printProblems prints what loading a tools file failed with: each
// problem on a line of its own, or else the error after prefix. It
// returns the problems, and whether err held any.
func printProblems(w io.Writer, err error, prefix string) (config.Problems, bool) {
	var ps config.Problems
	if !errors.As(err, &ps) {
		fmt.Fprintln(w, prefix+err.Error())
		return nil, false
	}
	for _, p := range ps {
		fmt.Fprintln(w, p.String())
	}
	return ps, true
}
