package oxp

import (
	"strings"

	"github.com/toolexec/toolexec"
	semver "github.com/toolexec/toolexec/internal/version"
)

// resolve finds the tool version a call's tool_id names, by the rules of
// catalog, without building the catalog. The part before the last '@' is
// an id base ("Calculator.Add") or an OXP name ("Calculator_Add"); the part
// after it is a version:
//
//   - none, or "latest": the latest version, as Executor.Lookup chooses it;
//   - "x": x.0.0, and "x.y": x.y.0 (OXP's shorthand);
//   - anything else: that version, the same string or equal by semantic
//     version precedence (Executor.Lookup again).
//
// Finding the name (resolveName) costs one pass over the provider's tools,
// or a few lookups (see nameFor): that search is what keeps two names with
// the same OXP name both unserved, as the list shows them. For a provider
// that reports changes, the name a key resolved to is remembered until the
// tool set changes (nameCache), and a call costs one Lookup of the version.
// It fills in e, which must be zero, or returns a serverError when nothing
// matches.
func (h *handler) resolve(toolID string, e *entry) *serverError {
	key, version, hasVersion := toolID, "", false
	if i := strings.LastIndexByte(toolID, '@'); i >= 0 {
		key, version, hasVersion = toolID[:i], toolID[i+1:], true
	}
	known, gen := h.names.get(key)
	if known == nil {
		var bad *serverError
		if known, bad = h.resolveName(toolID, key); bad != nil {
			return bad
		}
	}
	if hasVersion && version == "" {
		return noVersion(toolID)
	}
	want := ""
	if hasVersion && version != "latest" {
		want = expandVersion(version)
	}
	var ok bool
	if e.tool, ok = h.x.Lookup(known.name, want); !ok && !h.lookupUnversioned(known.name, want, &e.tool) {
		return h.noSuchVersion(toolID, known, want)
	}
	e.base, e.name, e.version = known.base, known.oxpName, e.tool.Version
	if e.version == "" {
		e.version = unversioned
	}
	if e.version == known.version {
		e.fullID = known.id
	} else if known.version == "" {
		// First resolved now: remember it, with the id of this version.
		e.fullID = e.id()
		known.version, known.id = e.version, e.fullID
		h.names.put(key, gen, known)
	}
	return nil
}

// lookupUnversioned reports whether name is served as version want, which
// did not match exactly, because want is 0.0.0 (by precedence) and the tool
// is unversioned, and then sets *tool to it: an unversioned tool is served
// as 0.0.0, unless the name also has versions: then the latest is one of
// them. When it reports false, *tool may have been overwritten.
func (h *handler) lookupUnversioned(name, want string, tool *toolexec.Tool) bool {
	if !semver.Valid(want) || semver.Compare(want, unversioned) != 0 {
		return false
	}
	var latest bool
	*tool, latest = h.x.Lookup(name, "")
	return latest && tool.Version == ""
}

// noVersion is the answer to a tool id that ends in '@'.
func noVersion(toolID string) *serverError {
	return &serverError{
		Message:          "Tool " + quote(toolID) + " is not available",
		DeveloperMessage: "the tool id ends in '@' without a version; use Toolkit.Tool@x.y.z, @x, or no version for the latest",
	}
}

// noSuchVersion is the answer to a tool id whose name is served but not in
// the version want.
func (h *handler) noSuchVersion(toolID string, known *resolvedName, want string) *serverError {
	return &serverError{
		Message:          "Tool " + quote(toolID) + " is not available",
		DeveloperMessage: known.base + " has no version " + want + " (available: " + strings.Join(h.versions(known.name), ", ") + ")",
	}
}

// resolveName finds the toolexec name that key, a tool id's part before
// '@', names: an id base ("Calculator.Add") or an OXP name
// ("Calculator_Add") that exactly one served name maps to. The result is
// new, for the caller to fill in and keep.
func (h *handler) resolveName(toolID, key string) (*resolvedName, *serverError) {
	// Every name that maps to the id base "K.T" has the OXP name "K_T".
	target, byBase := key, false
	if kit, tool, ok := strings.Cut(key, "."); ok {
		if !validSegment(kit) || !validSegment(tool) {
			return nil, h.noSuchTool(toolID, key)
		}
		target, byBase = kit+"_"+tool, true
	}
	if !validName(target) {
		return nil, h.noSuchTool(toolID, key)
	}
	name, found, unique := h.nameFor(target)
	if !found || !unique {
		return nil, h.noSuchTool(toolID, key) // none, or two names with one OXP name: neither is served
	}
	base, oxpName, _ := mapName(name, h.toolkit)
	if byBase && base != key {
		return nil, h.noSuchTool(toolID, key) // "a_b.c" is not the base of "a.b_c"
	}
	return &resolvedName{name: name, base: base, oxpName: oxpName}, nil
}

// maxEnumerated bounds the underscores of an OXP name whose possible
// toolexec names nameFor tries one by one (3^6 = 729 lookups at most).
const maxEnumerated = 6

// nameFor finds the toolexec name whose OXP name is target: found when one
// maps to it, unique when only one does. With a provider that looks tools
// up directly it tries every name that could map to target (each '_' may
// stand for '_', '/' or '.', plus the name without a namespace) instead of
// passing over every tool; otherwise, or for a name with many underscores,
// it makes one pass over the provider's list.
func (h *handler) nameFor(target string) (name string, found, unique bool) {
	note := func(n string) bool {
		if found && n != name {
			unique = false
			return false
		}
		name, found, unique = n, true, true
		return true
	}
	k := strings.Count(target, "_")
	if !h.x.SurfaceKit().IndexedLookup() || k > maxEnumerated {
		for _, t := range h.x.SurfaceKit().AllTools() {
			if mapsTo(t.Name, target, h.toolkit) && !note(t.Name) {
				return name, found, false
			}
		}
		return name, found, unique
	}
	try := func(n string) bool {
		if !mapsTo(n, target, h.toolkit) {
			return true
		}
		if _, ok := h.x.Lookup(n, ""); !ok {
			return true
		}
		return note(n)
	}
	if rest, ok := strings.CutPrefix(target, h.toolkit+"_"); ok && !try(rest) {
		return name, found, false
	}
	buf := []byte(target)
	var at []int
	for i := range buf {
		if buf[i] == '_' {
			at = append(at, i)
		}
	}
	for m, total := 0, pow3(k); m < total; m++ {
		for i, v := 0, m; i < k; i, v = i+1, v/3 {
			buf[at[i]] = "_/."[v%3]
		}
		if !try(string(buf)) {
			return name, found, false
		}
	}
	return name, found, unique
}

func pow3(k int) int {
	n := 1
	for ; k > 0; k-- {
		n *= 3
	}
	return n
}

// versions lists the OXP versions of the toolexec name, in the provider's
// order, as GET /tools shows them.
func (h *handler) versions(name string) []string {
	var out []string
	unversionedToo := false
	seen := make(map[string]bool)
	for _, t := range h.x.SurfaceKit().AllTools() {
		switch {
		case t.Name != name:
		case t.Version == "":
			unversionedToo = true
		case !seen[t.Version]:
			seen[t.Version] = true
			out = append(out, t.Version)
		}
	}
	if len(out) == 0 && unversionedToo {
		out = append(out, unversioned)
	}
	return out
}

// noSuchTool is the answer to a tool_id whose id base or OXP name, key,
// names no tool this surface serves. When key is the plain name of a tool
// (a caller sent "echo" for "Tools.echo"), the developer message gives that
// tool's id; otherwise it says what an id looks like.
func (h *handler) noSuchTool(toolID, key string) *serverError {
	dev := "no tool has the id or name " + quote(key) + "; tool ids look like Toolkit.Tool@x.y.z (GET /tools lists them)"
	if t, ok := h.x.Lookup(key, ""); ok {
		if base, _, mapped := mapName(t.Name, h.toolkit); mapped {
			version := t.Version
			if version == "" {
				version = unversioned
			}
			dev = quote(key) + " is a tool name, not a tool id: its id is " + base + "@" + version + " (or " + base + " for the latest version)"
		}
	}
	return &serverError{Message: "Tool " + quote(toolID) + " is not available", DeveloperMessage: dev}
}
