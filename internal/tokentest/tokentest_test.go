package tokentest_test

import (
	"testing"

	"github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolexec/toolexec/internal/tokentest"
)

func TestSignedTokensVerifyWithThePublishedKey(t *testing.T) {
	for _, k := range []*tokentest.Key{tokentest.NewRSA(t, "r1"), tokentest.NewEC(t, "e1")} {
		tok := k.Sign(t, "at+jwt", map[string]any{"sub": "alice"})
		parsed, err := jwt.ParseSigned(tok, []jose.SignatureAlgorithm{k.Alg()})
		require.NoError(t, err)
		require.Len(t, parsed.Headers, 1)
		assert.Equal(t, k.ID, parsed.Headers[0].KeyID)
		assert.Equal(t, "at+jwt", parsed.Headers[0].ExtraHeaders[jose.HeaderType])
		var claims map[string]any
		require.NoError(t, parsed.Claims(k.Public().Key, &claims))
		assert.Equal(t, "alice", claims["sub"])
	}
}

func TestForgeKeepsTheHeaderAsGiven(t *testing.T) {
	tok := tokentest.Forge(map[string]any{"alg": "none"}, map[string]any{"sub": "mallory"},
		func(string) []byte { return nil })
	_, err := jwt.ParseSigned(tok, []jose.SignatureAlgorithm{jose.RS256})
	require.Error(t, err, "a library refuses alg none")
	assert.Regexp(t, `^eyJhbGciOiJub25lIn0\.[A-Za-z0-9_-]+\.$`, tok)
}
