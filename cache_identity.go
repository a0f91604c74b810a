package toolexec

import (
	"context"
	"encoding/binary"
	"hash"
)

type callerIdentityKey struct{}

type cacheVariantKey struct{}

// ContextWithIdentity returns a copy of ctx that names the caller: id is
// who the call is made by, as the auth hook established it (a user id, an
// API key's owner, a verified token's subject). An auth hook calls it on
// the request it passes on:
//
//	next.ServeHTTP(w, r.WithContext(toolexec.ContextWithIdentity(r.Context(), user.ID)))
//
// Wherever toolexec speaks of a call's caller, it means this identity: the
// read-through cache, the per-caller rate limits and task quotas, a task's
// owner and the MCP surface's per-caller stream caps all key on it (a call
// without one is counted by the address it came from where the limits say
// so). The end user (ContextWithEndUser) is another notion: a name for
// observers only (a span's enduser.id) that keys nothing. An auth hook may
// set both, as the oauth package's does: its identity joins the token's
// issuer, subject and client, its end user is the subject alone.
//
// A cached result is only served to a call with the same identity, and a
// call without one is not cached at all unless its tool declares its
// results shared (ToolOptions.CacheShared). An empty id names no one. A
// later ContextWithIdentity replaces an earlier one.
func ContextWithIdentity(ctx context.Context, id string) context.Context {
	return context.WithValue(ctx, callerIdentityKey{}, id)
}

// IdentityFromContext returns the identity ContextWithIdentity stored in
// ctx, and whether there is one (an empty id counts as none).
func IdentityFromContext(ctx context.Context) (string, bool) {
	id, _ := ctx.Value(callerIdentityKey{}).(string)
	return id, id != ""
}

// ContextWithCacheVariant returns a copy of ctx in which v is one more thing that
// sets this call's result apart: two calls share a cached result only when
// they carry the same variants, in the same order. Surfaces call it for
// what a tool receives besides its arguments and the caller's identity: the
// OXP surface adds the tokens, secrets and user id a tool's Requirements
// named. Variants only ever narrow sharing; they never make a call
// cacheable that would not be.
func ContextWithCacheVariant(ctx context.Context, v string) context.Context {
	prev, _ := ctx.Value(cacheVariantKey{}).([]string)
	next := make([]string, len(prev), len(prev)+1)
	copy(next, prev)
	return context.WithValue(ctx, cacheVariantKey{}, append(next, v))
}

// cacheScope writes into h what, besides the tool and its arguments, a
// call's cached result is keyed on, and reports false when the call must
// not be cached: its tool does not declare shared results and the call has
// no identity.
func cacheScope(ctx context.Context, t *Tool, h hash.Hash) bool {
	if t.Options.CacheShared {
		h.Write([]byte("shared\x00"))
	} else {
		id, ok := IdentityFromContext(ctx)
		if !ok {
			return false
		}
		h.Write([]byte("identity\x00"))
		writeField(h, id)
	}
	vs, _ := ctx.Value(cacheVariantKey{}).([]string)
	for _, v := range vs {
		writeField(h, v)
	}
	return true
}

// writeField writes s length-first, so no two lists of fields write the
// same bytes.
func writeField(h hash.Hash, s string) {
	var n [8]byte
	binary.BigEndian.PutUint64(n[:], uint64(len(s)))
	h.Write(n[:])
	h.Write([]byte(s))
}
