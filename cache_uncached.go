package toolexec

import (
	"context"
	"log/slog"
	"sync"
)

// uncachedReason is why a call of a tool that opts into the cache was not
// cached.
type uncachedReason uint8

const (
	notUncached        uncachedReason = iota // the call is cached
	uncachedNoIdentity                       // no identity, and the tool's results are not shared
	uncachedArguments                        // the arguments cannot be encoded
)

// maxUncachedWarnings bounds the tools an Executor remembers having warned
// about, so that a provider with ever new tool names cannot grow it.
const maxUncachedWarnings = 1024

// uncachedWarnings remembers the tools whose calls went uncached for want
// of an identity, so that each is warned about once. The zero value is
// ready to use.
type uncachedWarnings struct {
	mu    sync.Mutex
	tools map[string]struct{}
}

// first reports whether name is warned about for the first time (and then
// remembers it), false once maxUncachedWarnings tools are remembered.
func (u *uncachedWarnings) first(name string) bool {
	u.mu.Lock()
	defer u.mu.Unlock()
	if _, seen := u.tools[name]; seen || len(u.tools) >= maxUncachedWarnings {
		return false
	}
	if u.tools == nil {
		u.tools = make(map[string]struct{})
	}
	u.tools[name] = struct{}{}
	return true
}

// logUncached logs a call of a cacheable tool that was not cached. The
// first such call of a tool for want of an identity is a warning: a custom
// auth hook that does not call ContextWithIdentity turns the cache off silently
// otherwise. Later ones, and calls whose arguments cannot be encoded, are
// logged at debug level.
func (x *Executor) logUncached(ctx context.Context, call *Call, why uncachedReason) {
	if why == uncachedNoIdentity && x.uncachedWarned.first(call.Tool.Name) {
		x.logger.WarnContext(ctx, "toolexec: a cacheable tool's call was not cached: it has no identity "+
			"(the auth hook did not call toolexec.ContextWithIdentity) and the tool does not declare CacheShared; "+
			"further such calls of this tool are logged at debug level", "tool", call.Tool.Name)
		return
	}
	if !x.logger.Enabled(ctx, slog.LevelDebug) {
		return
	}
	reason := "no identity, and the results are not shared"
	if why == uncachedArguments {
		reason = "the arguments cannot be encoded"
	}
	x.logger.DebugContext(ctx, "toolexec: call not cached", "tool", call.Tool.Name, "reason", reason)
}
