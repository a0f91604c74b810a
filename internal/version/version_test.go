package version_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/toolexec/toolexec/internal/version"
)

func TestCompareFollowsSemverPrecedence(t *testing.T) {
	// Each row is strictly ascending: a < b.
	ascending := []struct{ a, b string }{
		{"0.0.0", "0.0.1"},
		{"0.9.0", "0.10.0"},
		{"1.9.0", "1.10.0"},
		{"1.2.3", "1.2.10"},
		{"1.99.99", "2.0.0"},
		{"1.0.0-alpha", "1.0.0"},
		{"1.0.0-rc.1", "1.0.0"},
		// The precedence example of Semantic Versioning 2.0.0, item 11.
		{"1.0.0-alpha", "1.0.0-alpha.1"},
		{"1.0.0-alpha.1", "1.0.0-alpha.beta"},
		{"1.0.0-alpha.beta", "1.0.0-beta"},
		{"1.0.0-beta", "1.0.0-beta.2"},
		{"1.0.0-beta.2", "1.0.0-beta.11"},
		{"1.0.0-beta.11", "1.0.0-rc.1"},
		// Numeric identifiers compare by value, whatever their length.
		{"1.0.0-rc.2", "1.0.0-rc.10"},
		{"1.0.0-99999999999999999999", "1.0.0-100000000000000000000"},
		// Numeric identifiers sort before alphanumeric ones.
		{"1.0.0-1", "1.0.0-a"},
		{"1.0.0-9", "1.0.0-0a"},
		// Unparsable versions sort below every valid one, "" lowest of all.
		{"", "banana"},
		{"", "0.0.0"},
		{"banana", "0.0.0"},
		{"v9.0.0", "0.0.1"},
		{"9.0", "0.0.1"},
		{"apple", "banana"},
	}
	for _, tc := range ascending {
		assert.Equal(t, -1, version.Compare(tc.a, tc.b), "%q < %q", tc.a, tc.b)
		assert.Equal(t, 1, version.Compare(tc.b, tc.a), "%q > %q", tc.b, tc.a)
	}
}

func TestCompareIgnoresBuildMetadata(t *testing.T) {
	assert.Equal(t, 0, version.Compare("1.0.0+a", "1.0.0+b"))
	assert.Equal(t, 0, version.Compare("1.0.0", "1.0.0+build.7"))
	assert.Equal(t, 0, version.Compare("1.0.0-rc.1+x", "1.0.0-rc.1"))
	assert.Equal(t, 0, version.Compare("2.1.0", "2.1.0"))
	assert.Equal(t, 0, version.Compare("", ""))
}

func TestValidAcceptsOnlySemver(t *testing.T) {
	valid := []string{"0.0.0", "1.2.3", "10.20.30", "1.0.0-rc.1", "1.0.0-alpha-beta.0a", "1.0.0+build.5", "1.0.0-x.7.z.92+exp.sha.5114f85", "18446744073709551615.0.0"}
	for _, v := range valid {
		assert.True(t, version.Valid(v), v)
	}
	invalid := []string{"", "1", "1.0", "v1.0.0", "1.0.0.0", "01.0.0", "1.02.0", "1.0.00", "1.0.0-", "1.0.0+", "1.0.0-01", "1.0.0-a..b", "1.0.0+a..b", "1.0.0-é", "1.0.0 ", " 1.0.0", "-1.0.0", "+1.0.0", "1.a.0", "18446744073709551616.0.0", "latest"}
	for _, v := range invalid {
		assert.False(t, version.Valid(v), v)
	}
}

func TestCompareTable(t *testing.T) {
	cases := []struct {
		a, b string
		want int
	}{
		{"1.0.0", "1.0.0", 0},
		{"1.0.0", "2.0.0", -1},
		{"1.10.0", "1.9.0", 1},
		{"1.0.10", "1.0.9", 1},
		{"1.0.0-rc.1", "1.0.0", -1},
		{"1.0.0-alpha", "1.0.0-beta", -1},
		{"1.0.0+build.5", "1.0.0", 0},
		{"", "0.0.1", -1},
		{"garbage", "0.0.1", -1},
		{"", "garbage", -1},
		{"01.0.0", "1.0.0", -1},
		{"1.0", "0.0.1", -1},
	}
	for _, tc := range cases {
		assert.Equal(t, tc.want, version.Compare(tc.a, tc.b), "%q vs %q", tc.a, tc.b)
		assert.Equal(t, -tc.want, version.Compare(tc.b, tc.a), "%q vs %q", tc.b, tc.a)
	}
}
