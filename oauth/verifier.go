package oauth

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"
)

// maxTokenBytes bounds the access tokens the Verifier looks at.
const maxTokenBytes = 16 << 10

// ErrInvalidToken is the error Verify returns (wrapped, with the reason)
// for a token that is not accepted: malformed, badly signed, expired, not
// yet valid, from another issuer or for another audience, inactive.
var ErrInvalidToken = errors.New("oauth: invalid access token")

// Verifier checks bearer access tokens for the resources of a Config. It
// is safe for concurrent use; create one per authorization server with
// NewVerifier and share it between the surfaces.
type Verifier struct {
	s            *settings
	remote       *remote
	introspector *introspector // nil without Config.Introspection
}

// NewVerifier checks cfg and returns a Verifier. It makes no request: the
// authorization server's metadata and keys are fetched on first use and
// cached (see Config), so a server starts even while its authorization
// server is unreachable, and refuses tokens until it can check them.
func NewVerifier(cfg Config) (*Verifier, error) {
	s, err := cfg.settle()
	if err != nil {
		return nil, err
	}
	v := &Verifier{s: s, remote: &remote{s: s}}
	if s.Introspection != nil {
		v.introspector = newIntrospector(s, v.ask)
	}
	return v, nil
}

// Verify checks token as an access token for the resource with URI
// resource (one of Config.Resources; "" means the first) and returns what
// it says. A JWT must be signed by one of the issuer's keys with an
// allowed algorithm, name the issuer, name resource in its audience, carry
// an expiry that has not passed, and have no not-before or issued-at time
// in the future (all within Config.Leeway). A token that is not a JWT is
// introspected when Config.Introspection is set, and refused otherwise.
//
// A refused token is an error wrapping ErrInvalidToken; an authorization
// server that cannot be reached is another error. Neither holds the token.
func (v *Verifier) Verify(ctx context.Context, token, resource string) (*Identity, error) {
	if resource == "" {
		resource = v.s.resources[0].uri
	}
	if token == "" || len(token) > maxTokenBytes {
		return nil, fmt.Errorf("%w: empty or longer than %d bytes", ErrInvalidToken, maxTokenBytes)
	}
	if strings.Count(token, ".") != 2 {
		if v.s.Introspection == nil {
			return nil, fmt.Errorf("%w: not a JWT, and introspection is not configured", ErrInvalidToken)
		}
		return v.introspect(ctx, token, resource)
	}
	return v.verifyJWT(ctx, token, resource)
}

// claims are the registered claims plus the ones Identity reads; scope and
// scp may be a space-separated string or an array.
type claims struct {
	jwt.Claims
	Scope    json.RawMessage `json:"scope"`
	SCP      json.RawMessage `json:"scp"`
	ClientID string          `json:"client_id"`
	AZP      string          `json:"azp"`
}

func (v *Verifier) verifyJWT(ctx context.Context, token, resource string) (*Identity, error) {
	tok, err := jwt.ParseSigned(token, v.s.algs)
	if err != nil {
		// go-jose refuses here any algorithm not allowed: none, HS256, ...
		return nil, fmt.Errorf("%w: %v", ErrInvalidToken, err)
	}
	if len(tok.Headers) != 1 {
		return nil, fmt.Errorf("%w: expected one signature", ErrInvalidToken)
	}
	h := tok.Headers[0]
	if v.s.RequireAccessTokenType {
		typ, _ := h.ExtraHeaders[jose.HeaderType].(string)
		if !strings.EqualFold(typ, "at+jwt") && !strings.EqualFold(typ, "application/at+jwt") {
			return nil, fmt.Errorf("%w: typ %q is not at+jwt", ErrInvalidToken, typ)
		}
	}
	keys, err := v.remote.keysFor(ctx, h.KeyID)
	if err != nil {
		if errors.Is(err, errUnknownKey) {
			return nil, fmt.Errorf("%w: %v", ErrInvalidToken, err)
		}
		return nil, err
	}
	var c claims
	var all map[string]any
	verified := false
	for _, k := range keys {
		if k.Algorithm != "" && k.Algorithm != h.Algorithm {
			continue // the key is for another algorithm
		}
		if tok.Claims(k.Key, &c, &all) == nil {
			verified = true
			break
		}
	}
	if !verified {
		return nil, fmt.Errorf("%w: signature not made by any key of the issuer", ErrInvalidToken)
	}
	if c.Expiry == nil {
		return nil, fmt.Errorf("%w: no exp claim", ErrInvalidToken)
	}
	err = c.ValidateWithLeeway(jwt.Expected{Issuer: v.s.Issuer, AnyAudience: v.audiences(resource), Time: time.Now()}, v.s.Leeway)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrInvalidToken, err)
	}
	id := &Identity{
		Subject:   c.Subject,
		ClientID:  c.ClientID,
		Issuer:    c.Issuer,
		Audience:  c.Audience,
		Scopes:    scopeList(c.Scope),
		ExpiresAt: c.Expiry.Time(),
		Claims:    all,
	}
	if id.ClientID == "" {
		id.ClientID = c.AZP
	}
	if id.Scopes == nil {
		id.Scopes = scopeList(c.SCP)
	}
	return id, nil
}

// audiences are the "aud" values accepted for resource.
func (v *Verifier) audiences(resource string) jwt.Audience {
	return append(jwt.Audience{resource}, v.s.Audiences...)
}

// accepts reports whether a token with audience aud is for resource.
func (v *Verifier) accepts(aud []string, resource string) bool {
	for _, a := range v.audiences(resource) {
		if slices.Contains(aud, a) {
			return true
		}
	}
	return false
}
