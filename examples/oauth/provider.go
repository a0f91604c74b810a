package main

import (
	"context"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/subtle"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/go-jose/go-jose/v4"
	"github.com/zitadel/oidc/v3/pkg/oidc"
	"github.com/zitadel/oidc/v3/pkg/op"
)

// The demo client and what it may ask for.
const (
	clientID     = "demo"
	clientSecret = "demo-secret"
	tokenTTL     = 5 * time.Minute
)

var demoScopes = []string{"tools.call", "tools.admin"}

// newProvider returns a real OpenID Provider (zitadel/oidc's op package)
// with issuer issuer, serving paths relative to it (mount it with
// http.StripPrefix). It offers the client_credentials grant to the client
// demo/demo-secret for the scopes tools.call and tools.admin, and issues
// JWT access tokens whose audience is the token request's resource
// parameter (RFC 8707), which must name one of resources; a request
// without one gets a token for all of them.
func newProvider(issuer string, keys *keyRing, resources []string) (http.Handler, error) {
	store := &storage{keys: keys, resources: resources}
	provider, err := op.NewProvider(&op.Config{
		CryptoKey:       sha256.Sum256([]byte("demo only: encrypts opaque tokens, unused here")),
		AuthMethodPost:  true,
		CodeMethodS256:  true, // MCP clients insist the metadata says PKCE S256
		SupportedScopes: append([]string{oidc.ScopeOpenID}, demoScopes...),
	}, store, op.StaticIssuer(issuer), op.WithAllowInsecure())
	if err != nil {
		return nil, err
	}
	return honestDiscovery(passResource(provider)), nil
}

// resourceKey carries the token request's resource parameter to the storage.
type resourceKey struct{}

// passResource hands the resource parameter of token requests to the
// storage through the request's context: the op package parses the
// client_credentials form without it.
func passResource(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/token") {
			r.Body = http.MaxBytesReader(w, r.Body, 64<<10)
			if err := r.ParseForm(); err == nil {
				r = r.WithContext(context.WithValue(r.Context(), resourceKey{}, r.PostForm["resource"]))
			}
		}
		next.ServeHTTP(w, r)
	})
}

// storage is the provider's storage: what client_credentials needs. The
// other flows answer that they are not supported (unsupported.go).
type storage struct {
	keys      *keyRing
	resources []string
}

var _ op.ClientCredentialsStorage = (*storage)(nil) // the op package looks for it

func (s *storage) Health(context.Context) error { return nil }

// ClientCredentials authenticates the client of a client_credentials
// request.
func (s *storage) ClientCredentials(_ context.Context, id, secret string) (op.Client, error) {
	if id != clientID || subtle.ConstantTimeCompare([]byte(secret), []byte(clientSecret)) != 1 {
		return nil, errors.New("unknown client or wrong secret")
	}
	return demoClient{}, nil
}

// ClientCredentialsTokenRequest decides what the token says: the client as
// subject, the requested scopes (each must be one of demoScopes), and the
// resource as audience (every resource when the request names none).
func (s *storage) ClientCredentialsTokenRequest(ctx context.Context, id string, scopes []string) (op.TokenRequest, error) {
	for _, sc := range scopes {
		if !slices.Contains(demoScopes, sc) {
			return nil, oidc.ErrInvalidScope().WithDescription("unknown scope %q", sc)
		}
	}
	resource, _ := ctx.Value(resourceKey{}).([]string)
	switch {
	case len(resource) == 0:
		// No resource parameter (RFC 8707 lets the server choose): a token
		// for every endpoint of the demo.
		resource = s.resources
	case len(resource) > 1 || !slices.Contains(s.resources, resource[0]):
		return nil, oidc.ErrInvalidTarget().WithDescription("resource must name one of %s", strings.Join(s.resources, ", "))
	}
	return &oidc.JWTTokenRequest{Subject: id, Audience: resource, Scopes: scopes}, nil
}

// GetClientByClientID finds the one client.
func (s *storage) GetClientByClientID(_ context.Context, id string) (op.Client, error) {
	if id != clientID {
		return nil, errors.New("unknown client")
	}
	return demoClient{}, nil
}

// AuthorizeClientIDSecret authenticates the client at the other endpoints.
func (s *storage) AuthorizeClientIDSecret(ctx context.Context, id, secret string) error {
	_, err := s.ClientCredentials(ctx, id, secret)
	return err
}

// CreateAccessToken gives each token an id and its expiry.
func (s *storage) CreateAccessToken(context.Context, op.TokenRequest) (string, time.Time, error) {
	return rand.Text(), time.Now().Add(tokenTTL), nil
}

// GetPrivateClaimsFromScopes puts the granted scopes in the token's scope
// claim (RFC 9068), where resource servers read them.
func (s *storage) GetPrivateClaimsFromScopes(_ context.Context, _, _ string, scopes []string) (map[string]any, error) {
	return map[string]any{"scope": strings.Join(scopes, " ")}, nil
}

func (s *storage) SigningKey(context.Context) (op.SigningKey, error) { return s.keys.current(), nil }

func (s *storage) SignatureAlgorithms(context.Context) ([]jose.SignatureAlgorithm, error) {
	return []jose.SignatureAlgorithm{jose.RS256}, nil
}

// KeySet publishes every key the ring holds, so tokens signed before a
// rotation stay valid until they expire.
func (s *storage) KeySet(context.Context) ([]op.Key, error) { return s.keys.public(), nil }

// demoClient is the client demo: client_credentials only, JWT access tokens.
type demoClient struct{}

func (demoClient) GetID() string                       { return clientID }
func (demoClient) RedirectURIs() []string              { return nil }
func (demoClient) PostLogoutRedirectURIs() []string    { return nil }
func (demoClient) ApplicationType() op.ApplicationType { return op.ApplicationTypeWeb }
func (demoClient) AuthMethod() oidc.AuthMethod         { return oidc.AuthMethodBasic }
func (demoClient) ResponseTypes() []oidc.ResponseType  { return nil }
func (demoClient) GrantTypes() []oidc.GrantType {
	return []oidc.GrantType{oidc.GrantTypeClientCredentials}
}
func (demoClient) LoginURL(string) string               { return "" }
func (demoClient) AccessTokenType() op.AccessTokenType  { return op.AccessTokenTypeJWT }
func (demoClient) IDTokenLifetime() time.Duration       { return 0 }
func (demoClient) DevMode() bool                        { return false }
func (demoClient) IDTokenUserinfoClaimsAssertion() bool { return false }
func (demoClient) ClockSkew() time.Duration             { return 0 }
func (demoClient) IsScopeAllowed(scope string) bool     { return slices.Contains(demoScopes, scope) }
func (demoClient) RestrictAdditionalIdTokenScopes() func([]string) []string {
	return func(s []string) []string { return s }
}
func (demoClient) RestrictAdditionalAccessTokenScopes() func([]string) []string {
	return func(s []string) []string { return s }
}

// keyRing holds the provider's RSA signing keys: the newest signs, all are
// published. rotate adds a new one.
type keyRing struct {
	mu   sync.Mutex
	keys []*signingKey
}

// signingKey is one RSA key; it serves as both op.SigningKey and op.Key.
type signingKey struct {
	id  string
	key *rsa.PrivateKey
}

func (k *signingKey) ID() string                                  { return k.id }
func (k *signingKey) SignatureAlgorithm() jose.SignatureAlgorithm { return jose.RS256 }
func (k *signingKey) Algorithm() jose.SignatureAlgorithm          { return jose.RS256 }
func (k *signingKey) Use() string                                 { return "sig" }
func (k *signingKey) Key() any                                    { return k.key }

// publicKey is a signingKey as the key set shows it.
type publicKey struct{ *signingKey }

func (k publicKey) Key() any { return &k.key.PublicKey }

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

func (r *keyRing) current() *signingKey {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.keys[len(r.keys)-1]
}

func (r *keyRing) public() []op.Key {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make([]op.Key, len(r.keys))
	for i, k := range r.keys {
		out[i] = publicKey{k}
	}
	return out
}
