// Package tokentest signs and forges access tokens for the tests of
// OAuth-protected endpoints: one signer for every test that plays an
// authorization server, and one forger for the tokens no JOSE library
// would sign.
package tokentest

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"encoding/base64"
	"encoding/json"
	"testing"

	"github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"
	"github.com/stretchr/testify/require"
)

// Key is a private signing key and the key id ("kid") the tokens it signs
// carry. Private is an *rsa.PrivateKey (signing RS256) or an
// *ecdsa.PrivateKey on P-256 (signing ES256).
type Key struct {
	ID      string
	Private crypto.Signer
}

// NewRSA is a fresh 2048-bit RSA key with key id id.
func NewRSA(t testing.TB, id string) *Key {
	t.Helper()
	k, err := rsa.GenerateKey(rand.Reader, 2048)
	require.NoError(t, err)
	return &Key{ID: id, Private: k}
}

// NewEC is a fresh P-256 key with key id id.
func NewEC(t testing.TB, id string) *Key {
	t.Helper()
	k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	require.NoError(t, err)
	return &Key{ID: id, Private: k}
}

// Alg is the algorithm k signs with: ES256 for an ECDSA key, else RS256.
func (k *Key) Alg() jose.SignatureAlgorithm {
	if _, ok := k.Private.(*ecdsa.PrivateKey); ok {
		return jose.ES256
	}
	return jose.RS256
}

// Public is k's public key as a key set publishes it: with its id, its
// algorithm and use "sig".
func (k *Key) Public() jose.JSONWebKey {
	return jose.JSONWebKey{Key: k.Private.Public(), KeyID: k.ID, Algorithm: string(k.Alg()), Use: "sig"}
}

// Sign is a compact JWT of claims signed by k, whose header carries k's id
// and the type typ ("at+jwt", "JWT"; none when typ is "").
func (k *Key) Sign(t testing.TB, typ string, claims map[string]any) string {
	t.Helper()
	opts := &jose.SignerOptions{}
	if typ != "" {
		opts = opts.WithType(jose.ContentType(typ))
	}
	sig, err := jose.NewSigner(jose.SigningKey{Algorithm: k.Alg(), Key: jose.JSONWebKey{Key: k.Private, KeyID: k.ID}}, opts)
	require.NoError(t, err)
	tok, err := jwt.Signed(sig).Claims(claims).Serialize()
	require.NoError(t, err)
	return tok
}

// Forge builds header.claims.signature from raw parts, for the tokens no
// JOSE library would sign ("alg": "none", an HMAC keyed with a public key,
// a wrong "typ"): the signature is sign's answer for the signing input.
func Forge(header, claims map[string]any, sign func(signingInput string) []byte) string {
	enc := func(v any) string {
		b, _ := json.Marshal(v)
		return base64.RawURLEncoding.EncodeToString(b)
	}
	in := enc(header) + "." + enc(claims)
	return in + "." + base64.RawURLEncoding.EncodeToString(sign(in))
}
