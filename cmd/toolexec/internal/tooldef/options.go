// Package tooldef builds what the kinds of declared tools share: here,
// the execution settings every kind takes from the file in the same way
// (timeout, cache, scopes, concurrency, rate, task support).
package tooldef

import (
	"time"

	"github.com/toolexec/toolexec"
	"github.com/toolexec/toolexec/cmd/toolexec/internal/config"
)

// Options returns t's execution settings with timeout as its timeout (0:
// the server's): the cache for a read-only tool that asks for it, shared
// between callers (a declared tool's answer depends on its arguments
// only: nothing it runs sees who called), its scopes, concurrency limit
// and rate, and its task support.
func Options(t *config.Tool, timeout time.Duration) toolexec.ToolOptions {
	o := toolexec.ToolOptions{
		Timeout:     timeout,
		Cache:       t.Cache && t.ReadOnly,
		CacheShared: true,
		CacheTTL:    t.CacheTTL,
		Scopes:      t.Scopes,
		// config's values are MCP's, as the library's are. A call that
		// became a task runs on when its request ends; its context ends
		// when the task is cancelled.
		TaskSupport: toolexec.TaskSupport(t.TaskSupport),
	}
	if t.MaxConcurrency > 0 {
		o.ConcurrencyLimit = &toolexec.ConcurrencyLimit{Max: t.MaxConcurrency}
	}
	if l := t.RateLimit; l != nil {
		// A zero l (rateLimit: none) is no limit, the server's included.
		o.RateLimit = &toolexec.RateLimit{Rate: l.Rate, Per: l.Per, Burst: l.Burst}
	}
	return o
}
