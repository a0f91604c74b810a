package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"time"

	"github.com/toolexec/toolexec/cmd/toolexec/internal/config"
	"github.com/toolexec/toolexec/cmd/toolexec/internal/server"
)

// stdioConfig is what `serve --stdio` runs with.
type stdioConfig struct {
	file           string
	getenv         func(string) (string, bool)
	stdin          io.Reader
	stdout, stderr io.Writer
	logger         *slog.Logger
	reload         time.Duration
	options        server.Options
}

// serveStdio serves the tools file over MCP's stdio transport until stdin
// ends or ctx is done, and returns the exit code. Standard output carries
// MCP messages only: the banner, problems of the file and every log line go
// to standard error, and so do the spans and metrics of the console
// exporters. The file is reloaded as in HTTP mode.
func serveStdio(ctx context.Context, c stdioConfig) int {
	otelOpts, otelDesc, otelShutdown, err := telemetry(ctx, c.getenv, c.stderr)
	if err != nil {
		fmt.Fprintln(c.stderr, "toolexec: telemetry:", err)
		return 2
	}
	defer func() {
		sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = otelShutdown(sctx)
	}()
	watch := server.NewWatch(c.file)
	load := server.FileLoader(c.file, c.getenv, c.logger)
	set, err := load(ctx)
	if err != nil {
		var ps config.Problems
		if errors.As(err, &ps) {
			for _, p := range ps {
				fmt.Fprintln(c.stderr, p.String())
			}
		} else {
			fmt.Fprintln(c.stderr, "toolexec:", err)
		}
		return 1
	}
	p := server.NewProvider(set)
	defer func() { _ = p.Current().Close() }()
	if c.reload > 0 {
		watchCtx, cancel := context.WithCancel(ctx)
		defer cancel()
		go watch.Run(watchCtx, p, c.reload, load, c.logger)
	}
	fmt.Fprintf(c.stderr, "toolexec %s serving %d tools from %s over stdio (MCP)\n", version, len(p.Tools()), c.file)
	if otelDesc != "" {
		fmt.Fprintf(c.stderr, "  OpenTelemetry:%s\n", otelDesc)
	}
	if l := c.options.RateLimit; l.Rate > 0 {
		fmt.Fprintf(c.stderr, "  rate limit: %s\n", describeRate(l))
	}
	c.options.Extra = append(c.options.Extra, otelOpts...)
	err = server.Stdio(ctx, p, c.options, c.stdin, c.stdout)
	// Tasks outlive the requests that started them: stop them, so that
	// the sources close (deferred above) without waiting for their
	// timeouts.
	p.StopCalls()
	if err != nil && ctx.Err() == nil {
		fmt.Fprintln(c.stderr, "toolexec:", err)
		return 1
	}
	return 0
}
