package oauth

import (
	"context"
	"slices"
	"time"
)

// Identity is what a verified access token says about its bearer. Handlers
// read it with FromContext. It never holds the token itself.
type Identity struct {
	// Subject is the token's "sub": the user or, for a client_credentials
	// token, the client.
	Subject string
	// ClientID is the OAuth client the token was issued to ("client_id",
	// else "azp", else Okta's "cid"), when the token says.
	ClientID string
	// Issuer is the authorization server that issued the token
	// (Config.Issuer: a JWT names it, an introspected token was checked
	// by it).
	Issuer string
	// Audience lists the resources the token is meant for; it includes the
	// one it was accepted for.
	Audience []string
	// Scopes are the scopes granted, read from the claims
	// Config.ScopeClaims names ("scope", else "scp", by default), in the
	// token's order, each once.
	Scopes []string
	// ExpiresAt is when the token expires; zero when an introspected token
	// did not say.
	ExpiresAt time.Time
	// Claims holds every claim of the token (or every member of the
	// introspection answer) as decoded JSON. It must not be modified.
	Claims map[string]any
}

// HasScope reports whether the token granted scope.
func (id *Identity) HasScope(scope string) bool {
	return id != nil && slices.Contains(id.Scopes, scope)
}

// missing returns the scopes of needed the identity lacks, in order.
func (id *Identity) missing(needed []string) []string {
	var out []string
	for _, s := range needed {
		if !id.HasScope(s) {
			out = append(out, s)
		}
	}
	return out
}

type identityKey struct{}

// FromContext returns the identity Verifier.AuthHook verified for the call
// whose context ctx is, and whether there is one. A tool handler reads its
// caller this way:
//
//	if id, ok := oauth.FromContext(ctx); ok {
//		log.Printf("called by %s with %v", id.Subject, id.Scopes)
//	}
func FromContext(ctx context.Context) (*Identity, bool) {
	id, ok := ctx.Value(identityKey{}).(*Identity)
	return id, ok && id != nil
}

// NewContext returns a copy of ctx carrying id, for tests and for hosts
// that verify tokens elsewhere and call tools in-process. AuthHook and
// FilterTools trust an Identity they find in a request's context for the
// request's resource, instead of verifying the token again: store only
// identities that were verified.
func NewContext(ctx context.Context, id *Identity) context.Context {
	return context.WithValue(ctx, identityKey{}, id)
}
