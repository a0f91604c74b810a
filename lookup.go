package toolexec

import (
	"strconv"
	"strings"
)

// ToolLookup is an optional interface of a ToolProvider that finds one tool
// without listing them all; Registry implements it. version "" asks for the
// latest version.
type ToolLookup interface {
	LookupTool(name, version string) (Tool, bool)
}

// Lookup resolves a tool by name and version. version "" means the latest
// version by semantic version order (an unversioned tool counts as the
// lowest); otherwise the version must match exactly. The provider is asked
// afresh on every lookup.
func (x *Executor) Lookup(name, version string) (Tool, bool) {
	if l, ok := x.tools.(ToolLookup); ok {
		return l.LookupTool(name, version)
	}
	return lookupIn(x.tools.Tools(), name, version)
}

// Tools lists the tools as discovery shows them: one entry per name, the
// latest version, in the provider's order of first appearance.
func (x *Executor) Tools() []Tool {
	return LatestVersions(x.tools.Tools())
}

// AllTools lists every tool in every version, as the provider gives them.
func (x *Executor) AllTools() []Tool {
	return x.tools.Tools()
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
	best := -1
	for i := 0; i < n; i++ {
		t := at(i)
		if t.Name != name {
			continue
		}
		if version != "" {
			if t.Version == version {
				return i
			}
			continue
		}
		if best < 0 || CompareVersions(t.Version, at(best).Version) > 0 {
			best = i
		}
	}
	return best
}

// LatestVersions keeps, for each tool name, only its latest version (by
// CompareVersions), in the order names first appear.
func LatestVersions(tools []Tool) []Tool {
	index := make(map[string]int, len(tools))
	out := make([]Tool, 0, len(tools))
	for _, t := range tools {
		if j, seen := index[t.Name]; seen {
			if CompareVersions(t.Version, out[j].Version) > 0 {
				out[j] = t
			}
			continue
		}
		index[t.Name] = len(out)
		out = append(out, t)
	}
	return out
}

// CompareVersions orders semantic versions "MAJOR.MINOR.PATCH" numerically,
// returning -1, 0 or +1. A pre-release ("1.0.0-rc.1") sorts before its
// release. A version that does not parse sorts before every one that does,
// and "" before everything; two unparsable versions compare as strings.
func CompareVersions(a, b string) int {
	if a == b {
		return 0
	}
	pa, oka := parseVersion(a)
	pb, okb := parseVersion(b)
	switch {
	case oka && okb:
		for i := 0; i < 3; i++ {
			if pa.n[i] != pb.n[i] {
				return cmpInt(pa.n[i], pb.n[i])
			}
		}
		switch {
		case pa.pre == pb.pre:
			return 0
		case pa.pre == "":
			return 1
		case pb.pre == "":
			return -1
		}
		return strings.Compare(pa.pre, pb.pre)
	case oka:
		return 1
	case okb:
		return -1
	case a == "":
		return -1
	case b == "":
		return 1
	}
	return strings.Compare(a, b)
}

type version struct {
	n   [3]uint64
	pre string
}

// parseVersion reads "x.y.z" with an optional "-pre" and "+build" suffix.
func parseVersion(s string) (version, bool) {
	var v version
	if i := strings.IndexByte(s, '+'); i >= 0 {
		s = s[:i]
	}
	if i := strings.IndexByte(s, '-'); i >= 0 {
		s, v.pre = s[:i], s[i+1:]
	}
	parts := strings.Split(s, ".")
	if len(parts) != 3 {
		return v, false
	}
	for i, p := range parts {
		n, err := strconv.ParseUint(p, 10, 64)
		if err != nil || p == "" || (len(p) > 1 && p[0] == '0') {
			return v, false
		}
		v.n[i] = n
	}
	return v, true
}

func cmpInt(a, b uint64) int {
	if a < b {
		return -1
	}
	return 1
}
