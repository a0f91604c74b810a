package server

import (
	"context"
	"io"

	"github.com/toolexec/toolexec/mcp"
)

// Stdio serves every tool of p over MCP's stdio transport (see
// mcp.ServeStdio) until in ends or ctx is done: the process is its
// client's own subprocess, so calls need no token (Options.Token and
// Options.OAuth are not used); every other option (timeout, concurrency,
// rate limits, body limit, logger, telemetry) applies as over HTTP, a rate
// limit counting the client's calls as one caller's. It returns
// mcp.ServeStdio's error.
func Stdio(ctx context.Context, p *Provider, o Options, in io.Reader, out io.Writer) error {
	o.Token, o.OAuth = "", nil
	x := o.executor(p)
	name, version := o.serverInfo()
	return mcp.ServeStdio(ctx, x, in, out, mcp.WithServerInfo(name, version))
}
