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

// ForResources returns a Verifier for other resources of the same
// authorization server, configured as v is but for Config.Resources. It
// shares v's cached metadata and keys and its introspection bounds, so
// deriving one per mount (one for each toolset a server adds while it
// runs, say) costs the authorization server nothing more. Config.Resources
// rules apply to resources.
func (v *Verifier) ForResources(resources ...string) (*Verifier, error) {
	cfg := v.s.given
	cfg.Resources = resources
	s, err := cfg.settle()
	if err != nil {
		return nil, err
	}
	return &Verifier{s: s, remote: v.remote, introspector: v.introspector}, nil
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
	if err := v.checkType(h); err != nil {
		return nil, err
	}
	keys, err := v.remote.keysFor(ctx, h.KeyID)
	if err != nil {
		if errors.Is(err, errUnknownKey) {
			return nil, fmt.Errorf("%w: %v", ErrInvalidToken, err)
		}
		return nil, err
	}
	var c jwt.Claims
	var all map[string]any
	verified := false
	for _, k := range keys {
		if k.Algorithm != "" && k.Algorithm != h.Algorithm {
			continue // the key is for another algorithm
		}
		if tok.Claims(k.Key, &all) == nil {
			verified = true
			break
		}
	}
	if !verified {
		return nil, fmt.Errorf("%w: signature not made by any key of the issuer", ErrInvalidToken)
	}
	// The registered claims, from the verified payload; a claim of the
	// wrong type (an "exp" that is a string, say) refuses the token.
	raw, _ := json.Marshal(all)
	if err := json.Unmarshal(raw, &c); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrInvalidToken, err)
	}
	if c.Expiry == nil {
		return nil, fmt.Errorf("%w: no exp claim", ErrInvalidToken)
	}
	err = c.ValidateWithLeeway(jwt.Expected{Issuer: v.s.Issuer, Time: time.Now()}, v.s.Leeway)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrInvalidToken, err)
	}
	if typ, ok := all["typ"]; ok {
		if s, _ := typ.(string); !strings.EqualFold(s, "Bearer") {
			return nil, fmt.Errorf("%w: typ claim %q is not Bearer", ErrInvalidToken, s)
		}
	}
	if _, ok := all["c_hash"]; ok {
		// An OpenID Connect ID token issued with an authorization code
		// (OpenID Connect Core 1.0 section 3.3.2.11); no access token
		// carries it.
		return nil, fmt.Errorf("%w: carries c_hash: an ID token, not an access token", ErrInvalidToken)
	}
	id := &Identity{
		Subject:   c.Subject,
		ClientID:  clientOf(all),
		Issuer:    c.Issuer,
		Audience:  c.Audience,
		Scopes:    scopesIn(all, v.s.ScopeClaims, v.s.ScopePrefix),
		ExpiresAt: c.Expiry.Time(),
		Claims:    all,
	}
	if err := v.admit(id, resource); err != nil {
		return nil, err
	}
	return id, nil
}

// accessTokenTypes are the "typ" headers a JWT access token may carry, in
// lower case: RFC 9068's, and the generic JWT type most servers send.
var accessTokenTypes = []string{"at+jwt", "application/at+jwt", "jwt", "application/jwt"}

// checkType refuses a JWT whose "typ" header says it is something other
// than an access token, and, with RequireAccessTokenType, one that does
// not say it is one.
func (v *Verifier) checkType(h jose.Header) error {
	typ, present := h.ExtraHeaders[jose.HeaderType]
	s, _ := typ.(string)
	if v.s.RequireAccessTokenType {
		if !strings.EqualFold(s, "at+jwt") && !strings.EqualFold(s, "application/at+jwt") {
			return fmt.Errorf("%w: typ %q is not at+jwt", ErrInvalidToken, s)
		}
		return nil
	}
	if present && !slices.Contains(accessTokenTypes, strings.ToLower(s)) {
		return fmt.Errorf("%w: typ %q is not an access token's", ErrInvalidToken, s)
	}
	return nil
}

// clientOf returns the client a token was issued to: "client_id" (RFC
// 9068, RFC 7662), else "azp" (OpenID Connect), else "cid" (Okta).
func clientOf(claims map[string]any) string {
	for _, name := range [...]string{"client_id", "azp", "cid"} {
		if s, ok := claims[name].(string); ok && s != "" {
			return s
		}
	}
	return ""
}

// admit reports whether a token with identity id may be used on resource:
// its audience names resource, or it names one of Config.Audiences, the
// token was issued to one of Config.AuthorizedParties, and it carries no
// "nonce" (a claim of OpenID Connect ID tokens, Core 1.0 section 2; Dex
// writes it into its access tokens too, which is why a token whose
// audience is the resource may carry one).
func (v *Verifier) admit(id *Identity, resource string) error {
	if slices.Contains(id.Audience, resource) {
		return nil
	}
	i := slices.IndexFunc(v.s.Audiences, func(a string) bool { return slices.Contains(id.Audience, a) })
	if i < 0 {
		return fmt.Errorf("%w: audience %q does not name %q", ErrInvalidToken, id.Audience, resource)
	}
	if !slices.Contains(v.s.AuthorizedParties, id.ClientID) {
		return fmt.Errorf("%w: audience %q accepted only from an authorized party, and the token was issued to %q",
			ErrInvalidToken, v.s.Audiences[i], id.ClientID)
	}
	if _, ok := id.Claims["nonce"]; ok {
		return fmt.Errorf("%w: carries nonce: an ID token, not an access token", ErrInvalidToken)
	}
	return nil
}

// accepts reports whether a token with audience aud, verified earlier
// (FromContext), is for resource. A token admitted through Audiences was
// checked for its client then, and is accepted on every resource.
func (v *Verifier) accepts(aud []string, resource string) bool {
	if slices.Contains(aud, resource) {
		return true
	}
	return slices.ContainsFunc(v.s.Audiences, func(a string) bool { return slices.Contains(aud, a) })
}
