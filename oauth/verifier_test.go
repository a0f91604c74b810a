package oauth_test

import (
	"context"
	"crypto/hmac"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/pem"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolexec/toolexec/internal/tokentest"
	"github.com/toolexec/toolexec/oauth"
)

const testResource = "https://tools.example.com/mcp"

func newVerifier(t *testing.T, is *testIssuer, mod ...func(*oauth.Config)) *oauth.Verifier {
	t.Helper()
	cfg := oauth.Config{Issuer: is.srv.URL, Resources: []string{testResource}, MinRefreshInterval: -1}
	for _, m := range mod {
		m(&cfg)
	}
	v, err := oauth.NewVerifier(cfg)
	require.NoError(t, err)
	return v
}

func TestVerifyAcceptsAValidToken(t *testing.T) {
	is := newTestIssuer(t)
	s := newRSASigner(t, "k1")
	is.publish(s)
	v := newVerifier(t, is)
	id, err := v.Verify(context.Background(), s.sign(t, is.claimsFor(testResource, "tools.call tools.read")), "")
	require.NoError(t, err)
	assert.Equal(t, "alice", id.Subject)
	assert.Equal(t, "demo", id.ClientID)
	assert.Equal(t, []string{"tools.call", "tools.read"}, id.Scopes)
	assert.True(t, id.HasScope("tools.read"))
	assert.Equal(t, is.srv.URL, id.Issuer)
	assert.Equal(t, "alice", id.Claims["sub"])
}

func TestVerifyReadsScpArrays(t *testing.T) {
	is := newTestIssuer(t)
	s := newECSigner(t, "ec")
	is.publish(s)
	c := is.claimsFor(testResource, "")
	delete(c, "scope")
	c["scp"] = []string{"a", "b"}
	id, err := newVerifier(t, is).Verify(context.Background(), s.sign(t, c), testResource)
	require.NoError(t, err)
	assert.Equal(t, []string{"a", "b"}, id.Scopes)
}

func TestVerifyRefusesBadTokens(t *testing.T) {
	is := newTestIssuer(t)
	good := newRSASigner(t, "k1")
	is.publish(good)
	other := newRSASigner(t, "k1") // same kid, key the issuer never published
	stranger := newRSASigner(t, "k-unknown")
	pubDER, err := x509.MarshalPKIXPublicKey(&good.Private.(*rsa.PrivateKey).PublicKey)
	require.NoError(t, err)
	pubPEM := pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: pubDER})
	now := time.Now()
	with := func(k string, val any) map[string]any {
		c := is.claimsFor(testResource, "tools.call")
		if val == nil {
			delete(c, k)
		} else {
			c[k] = val
		}
		return c
	}
	tests := map[string]string{
		"expired":               good.sign(t, with("exp", now.Add(-time.Hour).Unix())),
		"not yet valid":         good.sign(t, with("nbf", now.Add(time.Hour).Unix())),
		"issued in the future":  good.sign(t, with("iat", now.Add(time.Hour).Unix())),
		"no expiry":             good.sign(t, with("exp", nil)),
		"wrong issuer":          good.sign(t, with("iss", "https://evil.example.com")),
		"wrong audience":        good.sign(t, with("aud", []string{"https://other.example.com/mcp"})),
		"unknown key id":        stranger.sign(t, with("scope", "tools.call")),
		"key not the issuer's":  other.sign(t, with("scope", "tools.call")),
		"not a JWT":             "opaque-token",
		"garbage":               "a.b.c",
		"alg none":              tokentest.Forge(map[string]any{"alg": "none", "kid": "k1"}, with("scope", "x"), func(string) []byte { return nil }),
		"HS256 with public key": tokentest.Forge(map[string]any{"alg": "HS256", "kid": "k1", "typ": "JWT"}, with("scope", "x"), func(in string) []byte { m := hmac.New(sha256.New, pubPEM); m.Write([]byte(in)); return m.Sum(nil) }),
		"HS256 with JWK bytes":  tokentest.Forge(map[string]any{"alg": "HS256", "kid": "k1"}, with("scope", "x"), func(in string) []byte { m := hmac.New(sha256.New, pubDER); m.Write([]byte(in)); return m.Sum(nil) }),
	}
	valid := good.sign(t, with("scope", "tools.call"))
	parts := strings.Split(valid, ".")
	payload, _ := base64.RawURLEncoding.DecodeString(parts[1])
	tampered := strings.Replace(string(payload), `"tools.call"`, `"tools.admin"`, 1)
	require.NotEqual(t, string(payload), tampered)
	tests["tampered payload"] = parts[0] + "." + base64.RawURLEncoding.EncodeToString([]byte(tampered)) + "." + parts[2]
	tests["oversized"] = strings.Repeat("a", 17<<10) + ".b.c"

	v := newVerifier(t, is)
	_, err = v.Verify(context.Background(), valid, testResource)
	require.NoError(t, err, "the control token is valid")
	for name, tok := range tests {
		t.Run(name, func(t *testing.T) {
			_, err := v.Verify(context.Background(), tok, testResource)
			require.ErrorIs(t, err, oauth.ErrInvalidToken)
			assert.NotContains(t, err.Error(), tok, "the error never holds the token")
		})
	}
}

func TestVerifyFetchesKeysAgainAfterARotation(t *testing.T) {
	is := newTestIssuer(t)
	old := newRSASigner(t, "2026-01")
	is.publish(old)
	v := newVerifier(t, is)
	_, err := v.Verify(context.Background(), old.sign(t, is.claimsFor(testResource, "")), testResource)
	require.NoError(t, err)

	rotated := newRSASigner(t, "2026-02")
	is.publish(rotated)
	_, err = v.Verify(context.Background(), rotated.sign(t, is.claimsFor(testResource, "")), testResource)
	require.NoError(t, err, "an unknown key id fetches the key set again")
	assert.Equal(t, 2, is.jwksHits)
}

func TestVerifyBoundsKeyFetchesForUnknownKeyIDs(t *testing.T) {
	is := newTestIssuer(t)
	good := newRSASigner(t, "k1")
	is.publish(good)
	v := newVerifier(t, is, func(c *oauth.Config) { c.MinRefreshInterval = time.Hour })
	_, err := v.Verify(context.Background(), good.sign(t, is.claimsFor(testResource, "")), testResource)
	require.NoError(t, err)
	for i := range 5 {
		forged := newRSASigner(t, "forged-"+string(rune('a'+i)))
		_, err := v.Verify(context.Background(), forged.sign(t, is.claimsFor(testResource, "")), testResource)
		require.ErrorIs(t, err, oauth.ErrInvalidToken)
	}
	assert.Equal(t, 1, is.jwksHits, "forged key ids do not make the verifier flood the issuer")
}

func TestVerifyIntrospectsOpaqueTokens(t *testing.T) {
	is := newTestIssuer(t)
	is.active["good"] = map[string]any{"active": true, "sub": "bob", "client_id": "c", "scope": "tools.call",
		"aud": testResource, "iss": is.srv.URL, "exp": time.Now().Add(time.Hour).Unix()}
	is.active["other-audience"] = map[string]any{"active": true, "sub": "bob", "aud": "https://other.example.com"}
	is.active["expired"] = map[string]any{"active": true, "sub": "bob", "aud": testResource, "exp": time.Now().Add(-time.Hour).Unix()}
	v := newVerifier(t, is, func(c *oauth.Config) {
		c.Introspection = &oauth.Introspection{ClientID: "rs", ClientSecret: "rs-secret"}
	})
	id, err := v.Verify(context.Background(), "good", testResource)
	require.NoError(t, err)
	assert.Equal(t, "bob", id.Subject)
	assert.Equal(t, []string{"tools.call"}, id.Scopes)
	for _, tok := range []string{"unknown", "other-audience", "expired"} {
		_, err := v.Verify(context.Background(), tok, testResource)
		require.ErrorIs(t, err, oauth.ErrInvalidToken, tok)
	}
}

func TestNewVerifierRefusesUnsafeConfigs(t *testing.T) {
	for name, cfg := range map[string]oauth.Config{
		"no issuer":         {Resources: []string{testResource}},
		"no resource":       {Issuer: "https://as.example.com"},
		"relative resource": {Issuer: "https://as.example.com", Resources: []string{"/mcp"}},
		"fragment":          {Issuer: "https://as.example.com", Resources: []string{testResource + "#x"}},
		"alg none":          {Issuer: "https://as.example.com", Resources: []string{testResource}, Algorithms: []string{"none"}},
		"alg HS256":         {Issuer: "https://as.example.com", Resources: []string{testResource}, Algorithms: []string{"HS256"}},
	} {
		_, err := oauth.NewVerifier(cfg)
		assert.Error(t, err, name)
	}
}

func TestVerifyUsesKeysWithoutAnID(t *testing.T) {
	is := newTestIssuer(t)
	s := newRSASigner(t, "") // published without a kid, tokens without one
	is.publish(s)
	v := newVerifier(t, is)
	_, err := v.Verify(context.Background(), s.sign(t, is.claimsFor(testResource, "")), testResource)
	require.NoError(t, err)
	withKid := &signer{&tokentest.Key{ID: "k9", Private: s.Private}}
	_, err = v.Verify(context.Background(), withKid.sign(t, is.claimsFor(testResource, "")), testResource)
	require.NoError(t, err, "a key without an id may have signed a token naming one")
}

func TestVerifyRequiresAccessTokenTypeWhenAsked(t *testing.T) {
	is := newTestIssuer(t)
	s := newRSASigner(t, "k1")
	is.publish(s)
	v := newVerifier(t, is, func(c *oauth.Config) { c.RequireAccessTokenType = true })
	_, err := v.Verify(context.Background(), s.sign(t, is.claimsFor(testResource, "")), testResource)
	require.NoError(t, err, "signed with typ at+jwt")
	_, err = v.Verify(context.Background(), s.Sign(t, "JWT", is.claimsFor(testResource, "")), testResource)
	require.ErrorIs(t, err, oauth.ErrInvalidToken)
}
