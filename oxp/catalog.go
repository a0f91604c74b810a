package oxp

import (
	"github.com/toolexec/toolexec"
)

// entry is one tool version as OXP shows it.
type entry struct {
	tool    toolexec.Tool
	base    string // "Toolkit.Tool", the id without its version
	name    string // "Toolkit_Tool"
	version string // the tool's Version, or unversioned
}

func (e *entry) id() string { return e.base + "@" + e.version }

// catalog is the tool list as GET /tools shows it, built afresh from the
// provider on every request: the library never caches the list.
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
	for _, t := range tools {
		m := names[t.Name]
		if m == nil || c.skipped[t.Name] != "" || (m.versioned && t.Version == "") {
			continue
		}
		e := entry{tool: t, base: m.base, name: m.name, version: t.Version}
		if e.version == "" {
			e.version = unversioned
		}
		if ids[e.id()] {
			continue
		}
		ids[e.id()] = true
		c.entries = append(c.entries, e)
	}
	return c
}
