package oxp

import (
	"regexp"
	"strings"

	"github.com/toolexec/toolexec"
)

// maxNameLen is the longest OXP tool name: ^[A-Za-z0-9_-]{1,64}$.
const maxNameLen = 64

// unversioned is the OXP version of a tool that has none: OXP requires
// x.y.z, and 0.0.0 sorts where toolexec puts unversioned tools, below every
// real version.
const unversioned = "0.0.0"

// segmentRE matches one segment of a tool name: a toolkit or a tool.
var segmentRE = regexp.MustCompile(`^[A-Za-z0-9_-]+$`)

// entry is one tool version as OXP shows it.
type entry struct {
	tool    toolexec.Tool
	base    string // "Toolkit.Tool", the id without its version
	name    string // "Toolkit_Tool"
	version string // the tool's Version, or unversioned
}

func (e *entry) id() string { return e.base + "@" + e.version }

// catalog is the tool list as OXP sees it, built afresh from the provider
// on every request: the library never caches the list.
type catalog struct {
	entries []entry
	// index maps both an id's base and a name to the toolexec tool name.
	index map[string]string
	// skipped lists the toolexec names not served, with the reason.
	skipped map[string]string
}

// mapName gives the OXP id base and name of a toolexec tool name. The name
// splits on '/' and '.'; the last segment is the tool, the segments before
// it (joined by '_') the toolkit, or toolkit when there are none. Every
// segment must match ^[A-Za-z0-9_-]+$ and the OXP name ("Toolkit_Tool") must
// be at most 64 bytes; otherwise ok is false.
func mapName(name, toolkit string) (base, oxpName string, ok bool) {
	segs := strings.FieldsFunc(name, func(r rune) bool { return r == '/' || r == '.' })
	if len(segs) == 0 || strings.Count(name, "/")+strings.Count(name, ".") != len(segs)-1 {
		return "", "", false // empty, or an empty segment ("a//b", ".a", "a.")
	}
	for _, s := range segs {
		if !segmentRE.MatchString(s) {
			return "", "", false
		}
	}
	kit, tool := toolkit, segs[len(segs)-1]
	if len(segs) > 1 {
		kit = strings.Join(segs[:len(segs)-1], "_")
	}
	oxpName = kit + "_" + tool
	if len(oxpName) > maxNameLen {
		return "", "", false
	}
	return kit + "." + tool, oxpName, true
}

// catalog builds the OXP view of the Executor's tools, in the provider's
// order:
//
//   - a name that cannot map (see mapName) is skipped;
//   - two names that map to the same id base or the same OXP name are both
//     skipped, so a call never reaches the wrong tool;
//   - a name registered both with and without a version keeps only its
//     versioned entries: the unversioned one is never the latest, and OXP
//     could not address it;
//   - of two entries with the same id, the first is kept, as Lookup would.
func (h *handler) catalog() *catalog {
	tools := h.x.AllTools()
	c := &catalog{index: make(map[string]string), skipped: make(map[string]string)}
	type mapping struct {
		base, name string
		versioned  bool
	}
	names := make(map[string]*mapping)
	owner := make(map[string]string) // id base or OXP name -> toolexec name
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
			c.skipped[t.Name] = "the name cannot be expressed as an OXP id (segments of [A-Za-z0-9_-] separated by '/' or '.', name at most 64 bytes)"
			continue
		}
		names[t.Name] = &mapping{base: base, name: oxpName, versioned: t.Version != ""}
		for _, key := range []string{base, oxpName} {
			if other, taken := owner[key]; taken && other != t.Name {
				c.skipped[t.Name] = "its OXP id or name " + key + " is also that of " + other
				c.skipped[other] = "its OXP id or name " + key + " is also that of " + t.Name
			}
			owner[key] = t.Name
		}
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
		c.index[m.base] = t.Name
		c.index[m.name] = t.Name
	}
	return c
}

// resolve finds the entry a tool_id names. The part before the last '@' is
// an id base ("Calculator.Add") or an OXP name ("Calculator_Add"); the part
// after it is a version:
//
//   - none, or "latest": the latest version (toolexec.LatestVersions);
//   - "x": x.0.0, and "x.y": x.y.0 (OXP's shorthand);
//   - anything else: that version, the same string or equal by semantic
//     version precedence.
//
// It returns nil and a serverError when nothing matches.
func (c *catalog) resolve(toolID string) (*entry, *serverError) {
	base, version, hasVersion := toolID, "", false
	if i := strings.LastIndexByte(toolID, '@'); i >= 0 {
		base, version, hasVersion = toolID[:i], toolID[i+1:], true
	}
	name, ok := c.index[base]
	if !ok {
		return nil, &serverError{
			Message:          "Tool " + quote(toolID) + " is not available",
			DeveloperMessage: "no tool has the id or name " + quote(base) + "; GET /tools lists them",
		}
	}
	var versions []*entry
	for i := range c.entries {
		if c.entries[i].tool.Name == name {
			versions = append(versions, &c.entries[i])
		}
	}
	if hasVersion && version == "" {
		return nil, &serverError{
			Message:          "Tool " + quote(toolID) + " is not available",
			DeveloperMessage: "the tool id ends in '@' without a version; use Toolkit.Tool@x.y.z, @x, or no version for the latest",
		}
	}
	if !hasVersion || version == "latest" {
		tools := make([]toolexec.Tool, len(versions))
		for i, e := range versions {
			tools[i] = e.tool
		}
		latest := toolexec.LatestVersions(tools)[0].Version
		for _, e := range versions {
			if e.tool.Version == latest {
				return e, nil
			}
		}
	}
	want := expandVersion(version)
	for _, e := range versions {
		if e.version == want {
			return e, nil
		}
	}
	if toolexec.ValidVersion(want) {
		for _, e := range versions {
			if toolexec.ValidVersion(e.version) && toolexec.CompareVersions(e.version, want) == 0 {
				return e, nil
			}
		}
	}
	available := make([]string, len(versions))
	for i, e := range versions {
		available[i] = e.version
	}
	return nil, &serverError{
		Message:          "Tool " + quote(toolID) + " is not available",
		DeveloperMessage: versions[0].base + " has no version " + want + " (available: " + strings.Join(available, ", ") + ")",
	}
}

// shorthandRE matches OXP's shorthand versions: "x", and by extension "x.y".
var shorthandRE = regexp.MustCompile(`^(0|[1-9][0-9]*)(\.(0|[1-9][0-9]*))?$`)

// expandVersion turns "x" into "x.0.0" and "x.y" into "x.y.0"; anything else
// is returned as it is.
func expandVersion(v string) string {
	if !shorthandRE.MatchString(v) {
		return v
	}
	if strings.Contains(v, ".") {
		return v + ".0"
	}
	return v + ".0.0"
}

// quote wraps s in single quotes for a message; ids hold no quotes worth
// escaping, and a stray one does no harm in JSON.
func quote(s string) string { return "'" + s + "'" }
