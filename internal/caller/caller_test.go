package caller

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestDigestNamesTheIdentityElseTheCredentials(t *testing.T) {
	h := func(kv ...string) http.Header {
		out := http.Header{}
		for i := 0; i+1 < len(kv); i += 2 {
			out.Add(kv[i], kv[i+1])
		}
		return out
	}
	assert.Empty(t, Digest("", nil), "anonymous, no credentials")
	assert.Empty(t, Digest("", h("Accept", "x")), "headers that are no credentials")

	alice := Digest("alice", h("Authorization", "Bearer a"))
	assert.Equal(t, alice, Digest("alice", h("Authorization", "Bearer other")), "the identity wins over the headers")
	assert.NotEqual(t, alice, Digest("bob", nil))

	key := Digest("", h("X-Api-Key", "k1"))
	assert.NotEmpty(t, key)
	assert.NotEqual(t, key, Digest("", h("X-Api-Key", "k2")))
	assert.NotEqual(t, key, Digest("", h("Authorization", "k1")), "the header's name counts")
	assert.NotEqual(t, Digest("", h("Cookie", "a", "Cookie", "bc")), Digest("", h("Cookie", "ab", "Cookie", "c")), "values are length-prefixed")
}

func TestAddressKeysIPv6ByItsPrefix(t *testing.T) {
	cases := []struct {
		remote string
		bits   int
		want   string
	}{
		{"192.0.2.7:4000", 0, "192.0.2.7"},
		{"192.0.2.7", 0, "192.0.2.7"},
		{"[::ffff:192.0.2.7]:4000", 0, "192.0.2.7"},
		{"[2001:db8:1:2:aaaa:bbbb:cccc:dddd]:4000", 0, "2001:db8:1:2::/64"},
		{"[2001:db8:1:2::1]:9", 0, "2001:db8:1:2::/64"},
		{"[2001:db8:1:2::1]:9", 48, "2001:db8:1::/48"},
		{"[2001:db8:1:2::1]:9", 128, "2001:db8:1:2::1/128"},
		{"[2001:db8:1:2::1]:9", 200, "2001:db8:1:2::/64"},
		{"[fe80::1%eth0]:9", 0, "fe80::/64"},
		{"[2001:db8:1:2::1]", 0, "2001:db8:1:2::/64"},
		{"2001:db8:1:2::1", 0, "2001:db8:1:2::/64"},
		{"stdio", 0, "stdio"},
		{"", 0, ""},
	}
	for _, c := range cases {
		assert.Equal(t, c.want, Address(c.remote, c.bits), c.remote)
	}
	assert.Equal(t, Address("[2001:db8::1]:1", 0), Address("[2001:db8::ffff:1]:2", 0),
		"one /64, one caller, whatever its low bits")
	assert.NotEqual(t, Address("[2001:db8:0:1::1]:1", 0), Address("[2001:db8:0:2::1]:1", 0))
}

func TestShareIsTheIdentityElseTheAddressNeverTheCredentials(t *testing.T) {
	assert.Equal(t, Digest("alice", http.Header{"Authorization": {"Bearer a"}}), Share("alice", "192.0.2.7"),
		"with an identity, the owner's digest")
	assert.Equal(t, Share("alice", "192.0.2.7"), Share("alice", "198.51.100.1"), "wherever it calls from")
	assert.NotEqual(t, Share("", "192.0.2.7"), Share("", "198.51.100.1"))
	assert.NotEqual(t, Share("192.0.2.7", ""), Share("", "192.0.2.7"), "an identity and an address never collide")
	assert.Len(t, Share("", "192.0.2.7"), 32)
	assert.NotContains(t, Share("", "192.0.2.7"), "192")
}
