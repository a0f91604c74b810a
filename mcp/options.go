package mcp

import (
	"runtime/debug"
	"strings"
)

// Option configures the handler NewHandler returns.
type Option func(*handler)

// WithServerInfo sets the name and version the handler reports as
// serverInfo in its initialize result. The defaults are "toolexec" and the
// version of the toolexec module the host was built with ("devel" when it
// cannot be told).
func WithServerInfo(name, version string) Option {
	return func(h *handler) {
		h.name, h.version = name, version
	}
}

// WithInstructions sets the instructions the initialize result carries: a
// hint to the client's model on how to use this server's tools. Empty (the
// default) omits them.
func WithInstructions(instructions string) Option {
	return func(h *handler) { h.instructions = instructions }
}

// WithPageSize splits tools/list into pages of at most n tools, linked by
// nextCursor. n <= 0, the default, answers every tool in one page.
//
// A cursor is an offset into the list as the provider gives it on each
// request, so a list that changes between two pages may shift by the tools
// added or removed meanwhile.
func WithPageSize(n int) Option {
	return func(h *handler) { h.pageSize = max(n, 0) }
}

// DefaultMaxBatchSize is the most messages a JSON-RPC batch may hold unless
// WithMaxBatchSize says otherwise.
const DefaultMaxBatchSize = 100

// WithMaxBatchSize bounds the messages of one JSON-RPC batch (allowed in
// protocol version 2025-03-26): a larger batch is refused whole, with HTTP
// 400 and -32600, before any of it runs, so one request cannot queue
// thousands of tool calls. n <= 0 restores DefaultMaxBatchSize.
func WithMaxBatchSize(n int) Option {
	return func(h *handler) {
		if n <= 0 {
			n = DefaultMaxBatchSize
		}
		h.maxBatch = n
	}
}

// WithAllowedOrigins turns on the Origin check against DNS rebinding: a
// request carrying an Origin header that is not one of origins is refused
// with 403 Forbidden before anything else happens. Requests without an
// Origin header (every non-browser client) are not affected.
//
// Origins are compared in full and case-insensitively, scheme and port
// included: "http://localhost:3000". The check is off by default, so a
// handler behind a reverse proxy that rewrites nothing keeps working;
// calling WithAllowedOrigins more than once adds to the list.
func WithAllowedOrigins(origins ...string) Option {
	return func(h *handler) {
		if h.origins == nil {
			h.origins = make(map[string]bool, len(origins))
		}
		for _, o := range origins {
			h.origins[normalizeOrigin(o)] = true
		}
	}
}

// WithAllowedHosts turns on the Host check against DNS rebinding: a request
// whose Host header is not one of hosts is refused with 403 Forbidden before
// anything else happens.
//
// An entry without a port ("localhost", "127.0.0.1", "[::1]",
// "api.example.com") matches that host on any port; an entry with one
// ("localhost:8080") matches only that port. Comparison is
// case-insensitive. The check is off by default, because behind a reverse
// proxy the Host header names the proxy's public name, which only the host
// knows; calling WithAllowedHosts more than once adds to the list.
func WithAllowedHosts(hosts ...string) Option {
	return func(h *handler) {
		if h.hosts == nil {
			h.hosts = make(map[string]bool, len(hosts))
		}
		for _, host := range hosts {
			h.hosts[strings.ToLower(strings.TrimSpace(host))] = true
		}
	}
}

// moduleVersion is the version of the toolexec module in the running
// binary, read from its build information.
func moduleVersion() string {
	const module = "github.com/toolexec/toolexec"
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return "devel"
	}
	for _, dep := range info.Deps {
		if dep.Path == module {
			if dep.Replace != nil && dep.Replace.Version != "" {
				return dep.Replace.Version
			}
			if dep.Version != "" && dep.Version != "(devel)" {
				return dep.Version
			}
		}
	}
	if info.Main.Path == module && info.Main.Version != "" && info.Main.Version != "(devel)" {
		return info.Main.Version
	}
	return "devel"
}
