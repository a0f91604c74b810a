package main

import (
	"context"
	"fmt"
	"io"

	"github.com/toolexec/toolexec/cmd/toolexec/internal/server"
)

// runStdio serves the tools file over MCP's stdio transport until stdin
// ends or ctx is done, and returns the exit code. Standard output carries
// MCP messages only: the banner, problems of the file and every log line go
// to standard error, and so do the spans and metrics of the console
// exporters. The file is reloaded as in HTTP mode.
func (c *serveConfig) runStdio(ctx context.Context, stdin io.Reader, stdout, stderr io.Writer) int {
	otelOpts, otelDesc, stopTelemetry, err := c.startTelemetry(ctx, stderr)
	if err != nil {
		fmt.Fprintln(stderr, "toolexec: telemetry:", err)
		return 2
	}
	defer stopTelemetry()
	p, closeSet := c.load(ctx, stderr)
	if p == nil {
		return 1
	}
	defer closeSet()
	fmt.Fprintf(stderr, "toolexec %s serving %d tools from %s over stdio (MCP)\n", version, len(p.Tools()), c.file)
	if otelDesc != "" {
		fmt.Fprintf(stderr, "  OpenTelemetry:%s\n", otelDesc)
	}
	if c.rate.Rate > 0 {
		fmt.Fprintf(stderr, "  rate limit: %s\n", describeRate(c.rate))
	}
	opts := c.options()
	opts.Extra = otelOpts
	err = server.Stdio(ctx, p, opts, stdin, stdout)
	// Tasks outlive the requests that started them: stop them, so that
	// the sources close (deferred above) without waiting for their
	// timeouts.
	p.StopCalls()
	if err != nil && ctx.Err() == nil {
		fmt.Fprintln(stderr, "toolexec:", err)
		return 1
	}
	return 0
}
