package oauth

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/go-jose/go-jose/v4/jwt"
)

// introspectionTimeout is the ceiling on one introspection request,
// whatever the HTTP client's own timeout.
const introspectionTimeout = 30 * time.Second

// introspection is what the Verifier reads of an RFC 7662 answer.
type introspection struct {
	Active   bool             `json:"active"`
	Subject  string           `json:"sub"`
	Audience jwt.Audience     `json:"aud"`
	Issuer   string           `json:"iss"`
	Expiry   *jwt.NumericDate `json:"exp"`
	NotBef   *jwt.NumericDate `json:"nbf"`
}

// answer is an introspection answer: the members the Verifier reads, and
// all of them as decoded JSON. It is shared by every request that waited
// for it, and never modified.
type answer struct {
	introspection
	all map[string]any
}

// introspect checks an opaque token with the authorization server (RFC
// 7662), through the bounds of the Verifier's introspector. The token must
// be active, from the issuer (when the answer names one), within its
// times, and admitted for resource as a JWT would be (see admit); its
// scopes and client are read from the answer's members as a JWT's are
// from its claims. An active token is introspected on every use.
func (v *Verifier) introspect(ctx context.Context, token, resource string) (*Identity, error) {
	got, err := v.introspector.answer(ctx, token)
	if err != nil {
		return nil, err
	}
	if !got.Active {
		return nil, fmt.Errorf("%w: inactive", ErrInvalidToken)
	}
	if got.Issuer != "" && got.Issuer != v.s.Issuer {
		return nil, fmt.Errorf("%w: issued by %q", ErrInvalidToken, got.Issuer)
	}
	now := time.Now()
	if got.Expiry != nil && now.Add(-v.s.Leeway).After(got.Expiry.Time()) {
		return nil, fmt.Errorf("%w: expired", ErrInvalidToken)
	}
	if got.NotBef != nil && now.Add(v.s.Leeway).Before(got.NotBef.Time()) {
		return nil, fmt.Errorf("%w: not valid yet", ErrInvalidToken)
	}
	// The answer comes from the configured issuer's server, whether or not
	// it says so.
	id := &Identity{Subject: got.Subject, ClientID: clientOf(got.all), Issuer: v.s.Issuer,
		Audience: got.Audience, Scopes: scopesIn(got.all, v.s.ScopeClaims, v.s.ScopePrefix), Claims: got.all}
	if got.Expiry != nil {
		id.ExpiresAt = got.Expiry.Time()
	}
	if err := v.admit(id, resource); err != nil {
		return nil, err
	}
	return id, nil
}

// ask sends one introspection request for token and decodes the answer.
func (v *Verifier) ask(ctx context.Context, token string) (*answer, error) {
	cfg := v.s.Introspection
	endpoint := cfg.Endpoint
	if endpoint == "" {
		m, err := v.remote.metadata(ctx)
		if err != nil {
			return nil, err
		}
		if endpoint = m.IntrospectionEndpoint; endpoint == "" {
			return nil, errors.New("oauth: the authorization server's metadata has no introspection_endpoint")
		}
	}
	form := url.Values{"token": {token}, "token_type_hint": {"access_token"}}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, endpoint, strings.NewReader(form.Encode()))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Accept", "application/json")
	req.SetBasicAuth(url.QueryEscape(cfg.ClientID), url.QueryEscape(cfg.ClientSecret))
	got := &answer{}
	if err := v.remote.do(req, &got.all); err != nil {
		return nil, fmt.Errorf("oauth: introspection: %w", err)
	}
	raw, _ := json.Marshal(got.all)
	if err := json.Unmarshal(raw, &got.introspection); err != nil {
		return nil, fmt.Errorf("%w: introspection answer: %v", ErrInvalidToken, err)
	}
	return got, nil
}
