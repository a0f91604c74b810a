package toolexec

import (
	"bytes"
	"sync"
	"sync/atomic"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// schemaCache keeps each tool's compiled schemas, so a schema is compiled
// once and reused by every call and every validate request. Entries are
// keyed by tool name, version and which schema (input or output), and hold
// the bytes they were compiled from: a provider that hands back different
// bytes gets them compiled afresh, replacing the old entry.
//
// The cache holds at most one entry per schema of a tool the provider still
// lists, plus slack: when it has doubled since it was last swept, entries of
// tools the provider no longer has are dropped.
//
// The zero value is an empty cache ready to use.
type schemaCache struct {
	mu      sync.RWMutex // read-locked on the hits every call makes
	entries map[schemaKey]*compiledSchema
	sweepAt int

	// compiles counts schema compilations, for tests proving that a schema
	// is compiled once.
	compiles atomic.Int64
}

type schemaKey struct {
	name, version string
	output        bool
}

// compiledSchema is one compiled schema, or why it could not be compiled.
type compiledSchema struct {
	raw    []byte
	once   sync.Once
	schema *jsonschema.Schema
	err    error
}

// minSweep is the size below which the cache is never swept.
const minSweep = 64

// get returns the compiled form of raw, the schema of key, compiling it on
// first use. live lists the provider's current tools, for sweeping; it is
// called without the cache's lock held.
func (c *schemaCache) get(key schemaKey, raw []byte, live func() []Tool) *compiledSchema {
	c.mu.RLock()
	e, ok := c.entries[key]
	c.mu.RUnlock()
	if ok && bytes.Equal(e.raw, raw) {
		e.compile(&c.compiles)
		return e
	}

	c.mu.Lock()
	e, ok = c.entries[key]
	if !ok || !bytes.Equal(e.raw, raw) {
		e = &compiledSchema{raw: bytes.Clone(raw)}
		if c.entries == nil {
			c.entries = make(map[schemaKey]*compiledSchema)
		}
		c.entries[key] = e
	}
	sweep := !ok && len(c.entries) >= max(c.sweepAt, minSweep)
	if sweep {
		c.sweepAt = 2 * len(c.entries) // no second sweep until this one is done and the cache doubled
	}
	c.mu.Unlock()

	if sweep && live != nil {
		c.sweep(live())
	}
	e.compile(&c.compiles)
	return e
}

// compile compiles the schema on first use, counting it in n.
func (e *compiledSchema) compile(n *atomic.Int64) {
	e.once.Do(func() {
		n.Add(1)
		e.schema, e.err = compileSchema(e.raw)
	})
}

// sweep drops the entries of tools that are not in tools.
func (c *schemaCache) sweep(tools []Tool) {
	type id struct{ name, version string }
	keep := make(map[id]bool, len(tools))
	for i := range tools {
		keep[id{tools[i].Name, tools[i].Version}] = true
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	for k := range c.entries {
		if !keep[id{k.name, k.version}] {
			delete(c.entries, k)
		}
	}
	c.sweepAt = max(2*len(c.entries), minSweep)
}

// len returns the number of cached schemas.
func (c *schemaCache) len() int {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return len(c.entries)
}
