// Package version orders tool versions by Semantic Versioning 2.0.0
// precedence, on golang.org/x/mod/semver: versions are written without the
// "v" prefix and always in full (MAJOR.MINOR.PATCH).
package version
