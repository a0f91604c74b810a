package mcp

import (
	"runtime/debug"
	"time"
)

// Option configures the handler NewHandler returns (and ServeStdio's); the
// With functions of this package make them.
type Option interface{ apply(*handler) }

// optionFunc is an Option that is a function of the handler.
type optionFunc func(*handler)

func (f optionFunc) apply(h *handler) { f(h) }

// WithServerInfo sets the name and version the handler reports as
// serverInfo in its initialize result (2025 versions) and in the _meta of
// every result (2026-07-28). The defaults are "toolexec" and the
// version of the toolexec module the host was built with ("devel" when it
// cannot be told).
func WithServerInfo(name, version string) Option {
	return optionFunc(func(h *handler) {
		h.name, h.version = name, version
	})
}

// WithInstructions sets the instructions the initialize and server/discover
// results carry: a
// hint to the client's model on how to use this server's tools. Empty (the
// default) omits them.
func WithInstructions(instructions string) Option {
	return optionFunc(func(h *handler) { h.instructions = instructions })
}

// WithPageSize splits tools/list into pages of at most n tools, linked by
// nextCursor. n <= 0, the default, answers every tool in one page.
//
// A cursor is an offset into the list as the provider gives it on each
// request, so a list that changes between two pages may shift by the tools
// added or removed meanwhile.
func WithPageSize(n int) Option {
	return optionFunc(func(h *handler) { h.pageSize = max(n, 0) })
}

// DefaultMaxBatchSize is the most messages a JSON-RPC batch may hold unless
// WithMaxBatchSize says otherwise.
const DefaultMaxBatchSize = 100

// WithMaxBatchSize bounds the messages of one JSON-RPC batch (allowed in
// protocol version 2025-03-26): a larger batch is refused whole, with HTTP
// 400 and -32600, before any of it runs, so one request cannot queue
// thousands of tool calls. n <= 0 restores DefaultMaxBatchSize.
func WithMaxBatchSize(n int) Option {
	return optionFunc(func(h *handler) {
		if n <= 0 {
			n = DefaultMaxBatchSize
		}
		h.maxBatch = n
	})
}

// WithAllowedOrigins adds origins to those a browser may call the handler
// from. By default a request carrying an Origin header (every browser
// request) is served only when that origin is the request's own (its host
// and port are the Host header's); any other is refused with 403 Forbidden
// before anything else happens, so a page elsewhere cannot drive the tools.
// Requests without an Origin header (every non-browser client) are not
// affected.
//
// Origins are compared case-insensitively, scheme included:
// "http://localhost:3000" admits exactly that origin, while an entry
// without a port, "http://localhost", admits that scheme and host on any
// port. Calling WithAllowedOrigins more than once adds to the list, and
// calling it with no origins changes nothing.
func WithAllowedOrigins(origins ...string) Option {
	return optionFunc(func(h *handler) { h.guard.AllowOrigins(origins...) })
}

// WithAllowedHosts sets the Host headers the handler answers; a request
// whose Host is not one of hosts is refused with 403 Forbidden before
// anything else happens.
//
// Without a list, the handler defends against DNS rebinding on its own: a
// request that arrived on a loopback address (127.0.0.1, ::1) is served only
// when its Host is a loopback name (localhost, a name under .localhost, or
// a loopback address), since a page that rebinds its own name to this
// machine still sends that name. A reverse proxy on the same machine that
// forwards its public name lists that name here.
//
// An entry without a port ("localhost", "127.0.0.1", "[::1]",
// "api.example.com") matches that host on any port; an entry with one
// ("localhost:8080") matches only that port. Comparison is
// case-insensitive; calling WithAllowedHosts more than once adds to the
// list, and calling it with no hosts changes nothing. The lists of the
// Executor's toolexec.WithRebindingProtection are added to these.
func WithAllowedHosts(hosts ...string) Option {
	return optionFunc(func(h *handler) { h.guard.AllowHosts(hosts...) })
}

// WithoutRebindingProtection turns off the default DNS-rebinding defense:
// the loopback Host check and the same-origin Origin check. Lists given with
// WithAllowedHosts and WithAllowedOrigins still apply. It is for hosts that
// make the same checks in front of the handler.
func WithoutRebindingProtection() Option {
	return optionFunc(func(h *handler) { h.guard.Disable() })
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

// WithCacheHints sets the caching hints MCP 2026-07-28 asks for on
// tools/list and server/discover results: ttl, how long a client may
// consider the answer fresh (ttlMs, whole milliseconds; negative is 0), and
// scope, who may cache it. The defaults, 0 and CachePrivate, tell clients
// to ask again each time and shared caches to keep out, which is right for
// a provider whose tools change or differ per caller; a fixed, public tool
// set can say, for example, WithCacheHints(5*time.Minute, CachePublic).
// A scope other than CachePublic is CachePrivate. Earlier versions carry no
// hints.
func WithCacheHints(ttl time.Duration, scope CacheScope) Option {
	return optionFunc(func(h *handler) {
		h.ttl = max(ttl, 0)
		h.cacheScope = CachePrivate
		if scope == CachePublic {
			h.cacheScope = CachePublic
		}
	})
}
