package version

import (
	"strconv"
	"strings"

	"golang.org/x/mod/semver"
)

// Compare orders two tool versions by Semantic Versioning 2.0.0
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
// A version that is not Valid (including "v1.0.0" and "1.0") sorts before
// every one that is, and "" before everything; two invalid versions compare
// as strings.
func Compare(a, b string) int {
	if a == b {
		return 0
	}
	oka, okb := Valid(a), Valid(b)
	switch {
	case oka && okb:
		return semver.Compare("v"+a, "v"+b)
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

// Valid reports whether v is a full semantic version, "MAJOR.MINOR.PATCH"
// with an optional pre-release and build metadata ("1.2.0", "2.0.0-rc.1",
// "1.0.0+build.5"), each of MAJOR, MINOR and PATCH at most 2^64-1. There is
// no "v" prefix and no shorthand: "v1.0.0", "1.0" and "1" are not valid.
//
// golang.org/x/mod/semver does the parsing; it wants the "v" prefix and
// accepts "v1" and "v1.2" as shorthands, so v is checked to be in full form
// (its canonical form, build metadata aside, is v itself).
func Valid(v string) bool {
	if v == "" || v[0] == 'v' {
		return false
	}
	w := "v" + v
	if !semver.IsValid(w) {
		return false
	}
	core, _, _ := strings.Cut(v, "+")
	if semver.Canonical(w) != "v"+core {
		return false // a shorthand such as "1.0"
	}
	core, _, _ = strings.Cut(core, "-")
	for n := range strings.SplitSeq(core, ".") {
		if _, err := strconv.ParseUint(n, 10, 64); err != nil {
			return false
		}
	}
	return true
}

// IsRelease reports whether v is Valid and has no pre-release.
func IsRelease(v string) bool {
	return Valid(v) && semver.Prerelease("v"+v) == ""
}

// Same reports whether a and b are two spellings of one semantic version:
// both are Valid and have equal precedence ("1.0.0" and "1.0.0+build.7").
func Same(a, b string) bool {
	return Valid(a) && Valid(b) && semver.Compare("v"+a, "v"+b) == 0
}
