package toolexec

import semver "github.com/toolexec/toolexec/internal/version"

// ToolLookup is an optional interface of a ToolProvider that finds one tool
// without listing them all; Registry implements it. version "" asks for the
// latest version. An implementation must resolve versions as
// Executor.Lookup documents.
type ToolLookup interface {
	LookupTool(name, version string) (Tool, bool)
}

// Lookup resolves a tool by name and version. The provider is asked afresh
// on every lookup.
//
// version "" means the latest version: the highest release by Semantic
// Versioning 2.0.0 precedence (MAJOR.MINOR.PATCH numerically, pre-releases
// before their release, build metadata ignored), whatever the registration
// order. Pre-releases ("2.0.0-rc.1") are chosen only when the name has no
// release at all, as with Go modules, so publishing a pre-release beside a
// release never changes what callers get by default. An unversioned tool
// (Version "") and a version that does not parse count as the lowest.
//
// Any other version selects that version: the tool whose Version is the
// same string, or else the first whose Version is equal by semantic version
// precedence (so "1.0.0" finds "1.0.0+build.7", build metadata being
// ignored). Shorthands such as OXP's "1" for "1.0.0" are the surface's to
// expand before calling Lookup.
func (x *Executor) Lookup(name, version string) (Tool, bool) {
	if l, ok := x.tools.(ToolLookup); ok {
		return l.LookupTool(name, version)
	}
	return lookupIn(x.tools.Tools(), name, version)
}

// latestTools lists the tools as discovery shows them: one entry per name,
// the latest version (as Lookup chooses it), in the provider's order of
// first appearance.
//
// A name not of the form MCP recommends (CheckToolName) is logged at
// warning level the first time it is listed, unless the provider is a
// Registry, which warns when the tool is added.
func (x *Executor) latestTools() []Tool {
	tools := x.tools.Tools()
	x.checkListedNames(tools)
	return latestVersions(tools)
}

func lookupIn(tools []Tool, name, version string) (Tool, bool) {
	i := matchTool(len(tools), func(i int) *Tool { return &tools[i] }, name, version)
	if i < 0 {
		return Tool{}, false
	}
	return tools[i], true
}

// matchTool returns the index of the tool named name in version (the latest
// when version is ""), among n tools read by at; -1 when there is none.
func matchTool(n int, at func(int) *Tool, name, version string) int {
	best, equal := -1, -1
	for i := 0; i < n; i++ {
		t := at(i)
		if t.Name != name {
			continue
		}
		if version != "" {
			if t.Version == version {
				return i
			}
			if equal < 0 && semver.Same(t.Version, version) {
				equal = i
			}
			continue
		}
		if best < 0 || newerForLatest(t.Version, at(best).Version) {
			best = i
		}
	}
	if version != "" {
		return equal
	}
	return best
}

// newerForLatest reports whether version a beats b for "latest": any
// release beats any pre-release, then semantic version precedence decides.
// Ties keep b, so the first registered of two equal versions wins.
func newerForLatest(a, b string) bool {
	ra, rb := semver.IsRelease(a), semver.IsRelease(b)
	if ra != rb {
		return ra
	}
	return semver.Compare(a, b) > 0
}

// latestVersions keeps, for each tool name, only its latest version (as
// Executor.Lookup chooses it), in the order names first appear.
func latestVersions(tools []Tool) []Tool {
	index := make(map[string]int, len(tools))
	out := make([]Tool, 0, len(tools))
	for _, t := range tools {
		if j, seen := index[t.Name]; seen {
			if newerForLatest(t.Version, out[j].Version) {
				out[j] = t
			}
			continue
		}
		index[t.Name] = len(out)
		out = append(out, t)
	}
	return out
}
