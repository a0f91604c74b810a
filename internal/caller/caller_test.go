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
