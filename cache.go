package toolexec

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"maps"
	"time"
)

// DefaultCacheTTL is how long a cached result is kept unless WithCacheTTL
// or the tool's ToolOptions.CacheTTL says otherwise.
const DefaultCacheTTL = time.Minute

// Cache is where the read-through result cache keeps the results of tools
// that opt in (ToolOptions.Cache). It is a plain byte store, so that any
// existing store (Redis, memcached, ...) can serve behind it when results
// must be shared across replicas; the default is an in-process MemoryCache.
//
// Keys are short opaque strings that reveal nothing of the arguments.
// Values are results encoded as JSON; the pipeline decodes a fresh copy on
// every hit, so no caller can modify what the cache holds.
//
// A Cache must be safe for concurrent use. Its errors never fail a call: a
// Get error counts as a miss and a Set error leaves the result uncached;
// both are logged at warning level.
type Cache interface {
	// Get returns the value stored under key, and whether there was one
	// that has not expired.
	Get(ctx context.Context, key string) (value []byte, ok bool, err error)
	// Set stores value under key for ttl.
	Set(ctx context.Context, key string, value []byte, ttl time.Duration) error
}

// WithCache sets the Cache of the tools that opt into caching. The default
// is NewMemoryCache(0), one per Executor.
func WithCache(c Cache) Option {
	return func(x *Executor) { x.cache = c }
}

// WithCacheTTL sets how long cached results are kept: d <= 0 means
// DefaultCacheTTL. A tool's ToolOptions.CacheTTL replaces it for that tool.
func WithCacheTTL(d time.Duration) Option {
	return func(x *Executor) { x.cacheTTL = d }
}

// cacheKey derives the key of a call from the tool's name and version and
// the canonical JSON of its arguments (object keys sorted, as
// encoding/json writes maps, and numbers as the float64 they decode to), and
// the caller's identity and the call's variants (see cacheScope). It
// reports why the call must not be cached, or notUncached: it has no
// identity and its tool's results are not shared, or its arguments cannot
// be encoded, which an input transform can cause.
func cacheKey(ctx context.Context, call *Call) (string, uncachedReason) {
	h := sha256.New()
	if !cacheScope(ctx, &call.Tool, h) {
		return "", uncachedNoIdentity
	}
	args, err := json.Marshal(call.Arguments)
	if err != nil {
		return "", uncachedArguments
	}
	h.Write([]byte(call.Tool.Name))
	h.Write([]byte{0})
	h.Write([]byte(call.Tool.Version))
	h.Write([]byte{0})
	h.Write(args)
	return "toolexec:v1:" + hex.EncodeToString(h.Sum(nil)), notUncached
}

// cacheInterceptor is the read-through cache stage, for tools that opt in.
// A hit returns a fresh copy of the stored result without calling next; a
// miss calls next and stores its result, unless the call failed, the
// result is an isError one, or the handler asked its caller for input.
func (x *Executor) cacheInterceptor(next CallFunc) CallFunc {
	return func(ctx context.Context, call *Call) (*CallToolResult, error) {
		if !call.Tool.Options.Cache {
			return next(ctx, call)
		}
		// A shared store's limit stage may have looked the call up
		// already, in its own round trip (limit_shared.go).
		ov := overlapOf(ctx, call)
		var key string
		if ov != nil {
			key = ov.key
		} else {
			var why uncachedReason
			if key, why = cacheKey(ctx, call); why != notUncached {
				x.logUncached(ctx, call, why)
				return next(ctx, call)
			}
		}
		obs := call.observer()
		sctx, st := obs.StartStage(ctx, StageInfo{Stage: StageCache})
		var res *CallToolResult
		if ov != nil {
			res = x.cacheDecode(sctx, call, ov.value, ov.found)
		} else {
			res = x.cacheGet(sctx, call, key)
		}
		hit := res != nil
		obs.CacheHit(sctx, hit)
		st.End(nil, nil)
		if hit {
			return res, nil
		}
		if ov != nil && ov.admitAgain != nil {
			// The store found a value that did not decode, and the call
			// took no slot for it: take one now.
			if err := ov.admitAgain(ctx); err != nil {
				return nil, err
			}
		}

		res, err := next(ctx, call)
		if err != nil || res == nil || res.IsError || call.askedInput {
			// A result that took the caller's answers (RequestInput) is
			// theirs alone: a hit would skip asking the next caller.
			return res, err
		}
		data, ttl, ok := x.cacheEncode(call, res)
		if !ok {
			return res, nil
		}
		if ov != nil {
			// Stored by the limit stage, in the round trip that gives its
			// slot back.
			ov.write, ov.ttl = data, ttl
			return res, nil
		}
		err = x.cache.Set(context.WithoutCancel(ctx), key, data, ttl)
		x.noteCache(ctx, err)
		return res, nil
	}
}

// cacheGet returns the cached result of key, decoded afresh, or nil.
func (x *Executor) cacheGet(ctx context.Context, call *Call, key string) *CallToolResult {
	data, ok, err := x.cache.Get(ctx, key)
	x.noteCache(ctx, err)
	if err != nil {
		return nil
	}
	return x.cacheDecode(ctx, call, data, ok)
}

// cacheDecode returns a cached result read as data (found says whether
// there was one), decoded afresh, or nil.
func (x *Executor) cacheDecode(ctx context.Context, call *Call, data []byte, found bool) *CallToolResult {
	if !found {
		return nil
	}
	res := new(CallToolResult)
	if err := json.Unmarshal(data, res); err != nil {
		x.logger.WarnContext(ctx, "toolexec: cached result cannot be decoded; running the tool", "tool", call.Tool.Name, "error", err)
		return nil
	}
	return res
}

// cacheEncode returns what the cache stores for res, and for how long:
// the result's JSON, taken now, so whatever the caller later does to res
// stays out of the cache. ok is false for a result that cannot be encoded.
func (x *Executor) cacheEncode(call *Call, res *CallToolResult) (data []byte, ttl time.Duration, ok bool) {
	stored := *res
	if _, ok := stored.Meta[traceIDKey]; ok {
		// A trace id belongs to the call that ran; a hit is another call.
		stored.Meta = maps.Clone(res.Meta)
		stored.SetTraceID("")
	}
	data, err := json.Marshal(stored)
	if err != nil {
		return nil, 0, false // the surface reports the encoding failure to the caller
	}
	ttl = call.Tool.Options.CacheTTL
	if ttl <= 0 {
		ttl = x.cacheTTL
	}
	return data, ttl, true
}

// noteCache logs a cache failure: at warning level the first after a
// success (and the first success after failures at info level), at debug
// level the others, so that a cache that cannot be reached for a while is
// logged twice, not once per call. A lookup that failed because the
// call's own context ended says nothing of the cache.
func (x *Executor) noteCache(ctx context.Context, err error) {
	switch {
	case err == nil:
		if x.cacheDown.Load() && x.cacheDown.CompareAndSwap(true, false) {
			x.logger.InfoContext(ctx, "toolexec: the cache answers again")
		}
	case ctx.Err() != nil:
	case x.cacheDown.CompareAndSwap(false, true):
		x.logger.WarnContext(ctx, "toolexec: the cache failed; calls run their tools uncached until it answers", "error", err)
	default:
		x.logger.DebugContext(ctx, "toolexec: the cache failed", "error", err)
	}
}
