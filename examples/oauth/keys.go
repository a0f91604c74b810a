package main

import (
	"crypto/rand"
	"crypto/rsa"
	"fmt"
	"sync"

	"github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"
)

// keyRing holds the provider's RSA signing keys: the newest signs, all are
// published, so tokens signed before a rotation stay valid until they
// expire. rotate adds a new one.
type keyRing struct {
	mu   sync.Mutex
	keys []*signingKey
}

// signingKey is one RSA key and its id.
type signingKey struct {
	id  string
	key *rsa.PrivateKey
}

// rotate makes a new signing key; the old ones stay published.
func (r *keyRing) rotate() (*signingKey, error) {
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		return nil, err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	k := &signingKey{id: fmt.Sprintf("key-%d", len(r.keys)+1), key: key}
	r.keys = append(r.keys, k)
	return k, nil
}

// current is the key that signs.
func (r *keyRing) current() *signingKey {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.keys[len(r.keys)-1]
}

// public is the key set the provider publishes.
func (r *keyRing) public() jose.JSONWebKeySet {
	r.mu.Lock()
	defer r.mu.Unlock()
	set := jose.JSONWebKeySet{}
	for _, k := range r.keys {
		set.Keys = append(set.Keys, jose.JSONWebKey{Key: &k.key.PublicKey, KeyID: k.id, Algorithm: string(jose.RS256), Use: "sig"})
	}
	return set
}

// sign signs claims with the current key, with typ as the JWT's "typ"
// header ("at+jwt" for access tokens, RFC 9068; "JWT" for ID tokens).
func (r *keyRing) sign(typ string, claims map[string]any) (string, error) {
	k := r.current()
	s, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.RS256, Key: jose.JSONWebKey{Key: k.key, KeyID: k.id}},
		(&jose.SignerOptions{}).WithType(jose.ContentType(typ)))
	if err != nil {
		return "", err
	}
	return jwt.Signed(s).Claims(claims).Serialize()
}
