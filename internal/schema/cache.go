package schema

import (
	"bytes"
	"sync"
	"sync/atomic"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// Cache keeps each tool's compiled schemas, so a schema is compiled
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
type Cache struct {
	// Live lists the tools the host serves now, for sweeping; set it once,
	// before the first Get. With none, the cache is never swept.
	Live func() []ID

	mu      sync.RWMutex // read-locked on the hits every call makes
	entries map[Key]*Compiled
	sweepAt int

	// compiles counts schema compilations, for tests proving that a schema
	// is compiled once.
	compiles atomic.Int64
}

// Key names one cached schema: a tool's name and version, and whether it
// is the output schema.
type Key struct {
	Name, Version string // the tool's
	Output        bool   // the output schema, not the input one
}

// ID names one tool version, as Live lists them.
type ID struct {
	Name, Version string // the tool's
}

// Compiled is one compiled schema, or why it could not be compiled.
type Compiled struct {
	raw    []byte
	once   sync.Once
	schema *jsonschema.Schema
	err    error
	quick  *quick // set when the schema is of quick's shape
}

// minSweep is the size below which the cache is never swept.
const minSweep = 64

// Get returns the compiled form of raw, the schema of key, compiling it on
// first use. Live is called, when a sweep is due, without the cache's lock
// held.
func (c *Cache) Get(key Key, raw []byte) *Compiled {
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
		e = &Compiled{raw: bytes.Clone(raw)}
		if c.entries == nil {
			c.entries = make(map[Key]*Compiled)
		}
		c.entries[key] = e
	}
	sweep := !ok && len(c.entries) >= max(c.sweepAt, minSweep)
	if sweep {
		c.sweepAt = 2 * len(c.entries) // no second sweep until this one is done and the cache doubled
	}
	c.mu.Unlock()

	if sweep && c.Live != nil {
		c.sweep(c.Live())
	}
	e.compile(&c.compiles)
	return e
}

// compile compiles the schema on first use, counting it in n.
func (e *Compiled) compile(n *atomic.Int64) {
	e.once.Do(func() {
		n.Add(1)
		e.schema, e.err = Compile(e.raw)
		if e.err == nil {
			e.quick = quickOf(e.raw)
		}
	})
}

// sweep drops the entries of tools that are not in tools.
func (c *Cache) sweep(tools []ID) {
	keep := make(map[ID]bool, len(tools))
	for _, t := range tools {
		keep[t] = true
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	for k := range c.entries {
		if !keep[ID{k.Name, k.Version}] {
			delete(c.entries, k)
		}
	}
	c.sweepAt = max(2*len(c.entries), minSweep)
}

// Len returns the number of cached schemas.
func (c *Cache) Len() int {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return len(c.entries)
}

// Compiles returns how many schemas the cache has compiled, for tests
// proving that a schema is compiled once.
func (c *Cache) Compiles() int64 { return c.compiles.Load() }

// Err is why the schema cannot be compiled; nil when it compiled.
func (e *Compiled) Err() error { return e.err }

// Validate checks v against the compiled schema, as the package-level
// Validate does, with the same answer; a schema of the common shape
// (see quick) accepts a valid value without the validator. The schema
// must have compiled (Err is nil).
func (e *Compiled) Validate(v any) ([]Failure, int) {
	if e.quick != nil && e.quick.accepts(v) {
		return nil, 0
	}
	return Validate(e.schema, v)
}
