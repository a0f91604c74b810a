package toolexec

import semver "github.com/toolexec/toolexec/internal/version"

// CompareVersions orders two tool versions by Semantic Versioning 2.0.0
// precedence, returning -1, 0 or +1: MAJOR.MINOR.PATCH numerically, a
// pre-release before its release, build metadata ignored. A version that
// is not valid (see ValidVersion) sorts before every valid one, and ""
// before everything.
func CompareVersions(a, b string) int { return semver.Compare(a, b) }

// ValidVersion reports whether v is a semantic version as CompareVersions
// parses it ("1.2.0", "2.0.0-rc.1", "1.0.0+build.5"). Registry.Add accepts
// only these (or "" for an unversioned tool).
func ValidVersion(v string) bool { return semver.Valid(v) }
