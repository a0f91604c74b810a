package toolexec

import (
	"strconv"
	"strings"
)

// CompareVersions orders two tool versions by Semantic Versioning 2.0.0
// precedence, returning -1, 0 or +1:
//
//   - MAJOR.MINOR.PATCH compare numerically ("1.10.0" > "1.9.0");
//   - a pre-release sorts before its release ("1.0.0-rc.1" < "1.0.0"), and
//     pre-releases compare identifier by identifier: numeric identifiers
//     numerically ("rc.10" > "rc.2"), numeric before alphanumeric, others in
//     ASCII order, a shorter list first when all else is equal;
//   - build metadata ("+build.5") is ignored, so "1.0.0+a" and "1.0.0+b"
//     compare equal.
//
// A version that does not parse as semantic version (including "v1.0.0" and
// "1.0") sorts before every one that does, and "" before everything; two
// unparsable versions compare as strings.
func CompareVersions(a, b string) int {
	if a == b {
		return 0
	}
	pa, oka := parseVersion(a)
	pb, okb := parseVersion(b)
	switch {
	case oka && okb:
		return pa.compare(pb)
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

// semver is a parsed semantic version; build metadata is dropped, as it
// takes no part in precedence.
type semver struct {
	n   [3]uint64
	pre []string
}

// parseVersion reads "MAJOR.MINOR.PATCH[-PRERELEASE][+BUILD]" as Semantic
// Versioning 2.0.0 defines it: numbers without leading zeros, dot-separated
// non-empty identifiers of [0-9A-Za-z-], numeric pre-release identifiers
// without leading zeros.
func parseVersion(s string) (semver, bool) {
	var v semver
	if i := strings.IndexByte(s, '+'); i >= 0 {
		if !validIdentifiers(s[i+1:], false) {
			return v, false
		}
		s = s[:i]
	}
	if i := strings.IndexByte(s, '-'); i >= 0 {
		if !validIdentifiers(s[i+1:], true) {
			return v, false
		}
		s, v.pre = s[:i], strings.Split(s[i+1:], ".")
	}
	parts := strings.Split(s, ".")
	if len(parts) != 3 {
		return v, false
	}
	for i, p := range parts {
		if !isNumeric(p) || (len(p) > 1 && p[0] == '0') {
			return v, false
		}
		n, err := strconv.ParseUint(p, 10, 64)
		if err != nil {
			return v, false
		}
		v.n[i] = n
	}
	return v, true
}

// validIdentifiers checks a dot-separated pre-release or build list.
func validIdentifiers(s string, pre bool) bool {
	for _, id := range strings.Split(s, ".") {
		if id == "" {
			return false
		}
		for i := 0; i < len(id); i++ {
			c := id[i]
			if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '-') {
				return false
			}
		}
		if pre && isNumeric(id) && len(id) > 1 && id[0] == '0' {
			return false
		}
	}
	return true
}

func isNumeric(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

func (v semver) compare(w semver) int {
	for i := range v.n {
		if v.n[i] != w.n[i] {
			return cmpUint(v.n[i], w.n[i])
		}
	}
	switch {
	case len(v.pre) == 0 && len(w.pre) == 0:
		return 0
	case len(v.pre) == 0:
		return 1
	case len(w.pre) == 0:
		return -1
	}
	for i := 0; i < len(v.pre) && i < len(w.pre); i++ {
		if c := comparePreID(v.pre[i], w.pre[i]); c != 0 {
			return c
		}
	}
	return cmpUint(uint64(len(v.pre)), uint64(len(w.pre)))
}

// comparePreID compares two pre-release identifiers: numeric ones by value
// (compared as digit strings, so any length works), numeric before
// alphanumeric, alphanumeric ones in ASCII order.
func comparePreID(a, b string) int {
	na, nb := isNumeric(a), isNumeric(b)
	switch {
	case na && nb:
		if len(a) != len(b) {
			return cmpUint(uint64(len(a)), uint64(len(b)))
		}
		return strings.Compare(a, b)
	case na:
		return -1
	case nb:
		return 1
	}
	return strings.Compare(a, b)
}

func cmpUint(a, b uint64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// ValidVersion reports whether v is a semantic version as CompareVersions
// parses it ("1.2.0", "2.0.0-rc.1", "1.0.0+build.5"). Registry.Add accepts
// only these (or "" for an unversioned tool).
func ValidVersion(v string) bool {
	_, ok := parseVersion(v)
	return ok
}
