package oxp

import (
	"slices"

	"github.com/toolexec/toolexec"
)

// entry is one tool version as OXP shows it.
type entry struct {
	tool    toolexec.Tool
	base    string // "Toolkit.Tool", the id without its version
	name    string // "Toolkit_Tool"
	version string // the tool's Version, or unversioned
	fullID  string // base@version, when the catalog made it; "" otherwise
}

func (e *entry) id() string {
	if e.fullID != "" {
		return e.fullID
	}
	return e.base + "@" + e.version
}

// catalog is the tool list as GET /tools shows it, from the provider's
// list of every request. Which tools it serves under which ids depends only
// on the names and versions listed, so the mapping is reused while they are
// the same (see catalogMemo); the tools themselves are always those just
// listed.
type catalog struct {
	entries []entry
	// skipped lists the toolexec names not served, with the reason.
	skipped map[string]string
}

// reasonUnmappable is why a name mapName refuses is not served.
const reasonUnmappable = "the name cannot be expressed as an OXP id (segments of [A-Za-z0-9_-] separated by '/' or '.', name at most 64 bytes)"

// catalog builds the OXP view of the Executor's tools, in the provider's
// order:
//
//   - a name that cannot map (see mapName) is skipped;
//   - two names that map to the same OXP name are both skipped, so a call
//     never reaches the wrong tool (two names with the same id base have
//     the same OXP name too: it is the base with '.' for '_');
//   - a name registered both with and without a version keeps only its
//     versioned entries: the unversioned one is never the latest, and OXP
//     could not address it;
//   - of two entries with the same id, the first is kept, as Lookup would.
//
// resolve applies the same rules to one call without building all this.
func (h *handler) catalog() *catalog {
	tools := h.x.SurfaceKit().AllTools()
	if m := h.memo.Load(); m != nil && m.matches(tools) {
		c := &catalog{entries: make([]entry, len(m.entries)), skipped: m.skipped}
		for i, e := range m.entries {
			e.tool = tools[m.index[i]]
			c.entries[i] = e
		}
		return c
	}
	c, index := h.buildCatalog(tools)
	m := &catalogMemo{keys: make([]toolVersion, len(tools)), entries: c.entries, index: index, skipped: c.skipped}
	for i, t := range tools {
		m.keys[i] = toolVersion{t.Name, t.Version}
	}
	h.memo.Store(m)
	return &catalog{entries: slices.Clone(c.entries), skipped: c.skipped}
}

// catalogMemo is the catalog last built, kept with the names and versions
// it was built from. Nothing in it is modified once stored.
type catalogMemo struct {
	keys    []toolVersion
	entries []entry
	index   []int // index[i]: the position in the provider's list of entries[i]'s tool
	skipped map[string]string
}

// matches reports whether tools lists the same names and versions, in the
// same order, as the list the memo was built from.
func (m *catalogMemo) matches(tools []toolexec.Tool) bool {
	if len(tools) != len(m.keys) {
		return false
	}
	for i := range tools {
		if tools[i].Name != m.keys[i].name || tools[i].Version != m.keys[i].version {
			return false
		}
	}
	return true
}

// buildCatalog builds the catalog of tools, and for each entry the position
// of its tool in tools.
func (h *handler) buildCatalog(tools []toolexec.Tool) (*catalog, []int) {
	c := &catalog{skipped: make(map[string]string)}
	type mapping struct {
		base, name string
		versioned  bool
	}
	names := make(map[string]*mapping)
	owner := make(map[string]string) // OXP name -> toolexec name
	for _, t := range tools {
		if m, seen := names[t.Name]; seen {
			if m != nil && t.Version != "" {
				m.versioned = true
			}
			continue
		}
		base, oxpName, ok := mapName(t.Name, h.toolkit)
		if !ok {
			names[t.Name] = nil
			c.skipped[t.Name] = reasonUnmappable
			continue
		}
		names[t.Name] = &mapping{base: base, name: oxpName, versioned: t.Version != ""}
		if other, taken := owner[oxpName]; taken {
			c.skipped[t.Name] = "its OXP name " + oxpName + " is also that of " + other
			c.skipped[other] = "its OXP name " + oxpName + " is also that of " + t.Name
			continue
		}
		owner[oxpName] = t.Name
	}
	ids := make(map[string]bool)
	var index []int
	for i, t := range tools {
		m := names[t.Name]
		if m == nil || c.skipped[t.Name] != "" || (m.versioned && t.Version == "") {
			continue
		}
		e := entry{tool: t, base: m.base, name: m.name, version: t.Version}
		if e.version == "" {
			e.version = unversioned
		}
		e.fullID = e.id()
		if ids[e.fullID] {
			continue
		}
		ids[e.fullID] = true
		c.entries = append(c.entries, e)
		index = append(index, i)
	}
	return c, index
}
