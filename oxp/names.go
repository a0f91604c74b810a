package oxp

import "strings"

// maxNameLen is the longest OXP tool name: ^[A-Za-z0-9_-]{1,64}$.
const maxNameLen = 64

// unversioned is the OXP version of a tool that has none: OXP requires
// x.y.z, and 0.0.0 sorts where toolexec puts unversioned tools, below every
// real version.
const unversioned = "0.0.0"

// nameByte reports whether c may appear in an OXP name: [A-Za-z0-9_-].
func nameByte(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_' || c == '-'
}

// validSegment reports whether s is one segment of a tool name (a toolkit
// or a tool): ^[A-Za-z0-9_-]+$.
func validSegment(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !nameByte(s[i]) {
			return false
		}
	}
	return true
}

// validName reports whether s is an OXP tool name: ^[A-Za-z0-9_-]{1,64}$.
func validName(s string) bool { return len(s) <= maxNameLen && validSegment(s) }

// isSep reports whether c separates the segments of a toolexec name.
func isSep(c byte) bool { return c == '/' || c == '.' }

// mapName gives the OXP id base and name of a toolexec tool name. The name
// splits on '/' and '.'; the last segment is the tool, the segments before
// it (joined by '_') the toolkit, or toolkit when there are none. Every
// segment must match ^[A-Za-z0-9_-]+$ and the OXP name ("Toolkit_Tool") must
// be at most 64 bytes; otherwise ok is false.
//
// So a namespaced name's OXP name is the name with every separator turned
// into '_', and its id base the same but for the last separator, which
// becomes '.'. mapsTo relies on this.
func mapName(name, toolkit string) (base, oxpName string, ok bool) {
	last := strings.LastIndexAny(name, "/.")
	if last < 0 {
		if !validSegment(name) || len(toolkit)+1+len(name) > maxNameLen {
			return "", "", false
		}
		return toolkit + "." + name, toolkit + "_" + name, true
	}
	if len(name) > maxNameLen {
		return "", "", false
	}
	kit := []byte(name[:last])
	start := 0
	for i := 0; i <= len(kit); i++ {
		if i < len(kit) && !isSep(kit[i]) {
			continue
		}
		if !validSegment(name[start:i]) {
			return "", "", false // an empty segment ("a//b", ".a") or a byte OXP cannot express
		}
		if i < len(kit) {
			kit[i] = '_'
		}
		start = i + 1
	}
	tool := name[last+1:]
	if !validSegment(tool) {
		return "", "", false // "a.", or a byte OXP cannot express
	}
	return string(kit) + "." + tool, string(kit) + "_" + tool, true
}

// mapsTo reports whether the toolexec name maps to the OXP name target,
// which must be a valid OXP name (validName): whether mapName(name,
// toolkit) is ok with that OXP name. It builds nothing, so a call can check
// every tool of a large provider cheaply.
func mapsTo(name, target, toolkit string) bool {
	if len(name) != len(target) {
		// Only a name without a namespace is shorter than its OXP name:
		// "add" is "Tools_add". It then holds no separator, as target
		// holds none.
		return len(target) == len(toolkit)+1+len(name) &&
			target[len(toolkit)] == '_' && target[:len(toolkit)] == toolkit && target[len(toolkit)+1:] == name
	}
	// A namespaced name is as long as its OXP name: each separator is a
	// '_' there, and no segment may be empty.
	sawSep, prevSep := false, true
	for i := 0; i < len(name); i++ {
		c := name[i]
		if isSep(c) {
			if prevSep || target[i] != '_' {
				return false
			}
			sawSep, prevSep = true, true
			continue
		}
		if c != target[i] {
			return false
		}
		prevSep = false
	}
	return sawSep && !prevSep
}

// numeric reports whether s is a version number without leading zeros:
// 0|[1-9][0-9]*.
func numeric(s string) bool {
	if s == "" || (s[0] == '0' && len(s) > 1) {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// expandVersion turns OXP's shorthand "x" into "x.0.0", and by extension
// "x.y" into "x.y.0"; anything else is returned as it is.
func expandVersion(v string) string {
	major, minor, dotted := strings.Cut(v, ".")
	switch {
	case !numeric(major):
		return v
	case !dotted:
		return v + ".0.0"
	case numeric(minor):
		return v + ".0"
	}
	return v
}

// quote wraps s in single quotes for a message; ids hold no quotes worth
// escaping, and a stray one does no harm in JSON.
func quote(s string) string { return "'" + s + "'" }
