package oxp

import (
	"runtime"
	"sync"
	"weak"

	"github.com/toolexec/toolexec"
)

// nameCache remembers which toolexec name a tool id's key (the part before
// '@': an id base such as "Calculator.Add", or an OXP name such as
// "Calculator_Add") resolves to, so that a call does not search the
// provider's names again (resolve's nameFor: one pass over every tool, or up
// to 3^k lookups for a key with k underscores). The version is still looked
// up on every call, so a new or removed version is seen at once.
//
// Which name a key resolves to changes only when the provider's tool set
// changes, so a handler keeps a nameCache only for a provider that reports
// changes (toolexec.ToolsChangedNotifier): every change empties the cache.
// It holds only keys that resolved, at most two per name served (its id
// base and its OXP name), so what callers send cannot grow it beyond the
// provider's own size. A nil *nameCache caches nothing.
type nameCache struct {
	mu sync.RWMutex
	// gen counts the changes seen; a resolution found under an older
	// generation is never stored.
	gen   uint64
	names map[string]*resolvedName
}

// resolvedName is what a key resolves to. It is never modified once
// stored.
type resolvedName struct {
	name    string // the toolexec name
	base    string // its OXP id base, "Toolkit.Tool"
	oxpName string // its OXP name, "Toolkit_Tool"
	// version and id are the OXP version and the full id of the tool
	// version the key first resolved to, so the usual call (always the
	// same version) builds no id.
	version, id string
}

// newNameCache returns a cache for x's provider, emptied on every change it
// reports, or nil when it reports none. The subscription ends when the
// cache is no longer reachable (the handler is gone), so a provider that
// outlives many handlers does not keep them all.
func newNameCache(x *toolexec.Executor) *nameCache {
	if !x.SurfaceKit().NotifiesToolsChanged() {
		return nil
	}
	c := &nameCache{}
	wc := weak.Make(c)
	stop := x.SurfaceKit().OnToolsChanged(func() {
		if c := wc.Value(); c != nil {
			c.changed()
		}
	})
	runtime.AddCleanup(c, func(stop func()) { stop() }, stop)
	return c
}

// changed forgets every resolution.
func (c *nameCache) changed() {
	c.mu.Lock()
	c.gen++
	c.names = nil
	c.mu.Unlock()
}

// get returns key's resolution, if known, and the generation to store a new
// one under.
func (c *nameCache) get(key string) (*resolvedName, uint64) {
	if c == nil {
		return nil, 0
	}
	c.mu.RLock()
	r, gen := c.names[key], c.gen
	c.mu.RUnlock()
	return r, gen
}

// put stores key's resolution, found under generation gen, unless the tool
// set has changed since.
func (c *nameCache) put(key string, gen uint64, r *resolvedName) {
	if c == nil {
		return
	}
	c.mu.Lock()
	if c.gen == gen {
		if c.names == nil {
			c.names = make(map[string]*resolvedName)
		}
		c.names[key] = r
	}
	c.mu.Unlock()
}
