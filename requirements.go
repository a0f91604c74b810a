package toolexec

// Requirements declare what a tool needs from its caller besides its
// arguments: secrets (API keys and the like), authorization from providers
// (OAuth 2.0 tokens with scopes) and the identity of the user it acts for.
// The zero value declares nothing.
//
// Surfaces that can carry these values check them after the auth hook and
// before the tool runs, and
// hand them to the handler through its context: the OXP surface (package
// oxp) lists them on each tool definition, answers a call that lacks one
// with 400 and missing_requirements, and gives the handler the call's
// context through oxp.FromContext. Surfaces without such a channel (REST,
// MCP) do not check them, so a handler reached that way must cope with their
// absence.
type Requirements struct {
	// Authorization lists the authorization providers the tool needs a token
	// from.
	Authorization []AuthorizationRequirement
	// Secrets lists the ids of the secrets the tool needs ("TWILIO_API_KEY").
	Secrets []string
	// UserID says the tool needs the id of the user it acts for.
	UserID bool
}

// AuthorizationRequirement is one authorization a tool needs: a token from
// the provider ID, granted with at least Scopes (OAuth 2.0; nil for a
// provider without scopes).
type AuthorizationRequirement struct {
	// ID names the provider ("google", "github").
	ID string
	// Scopes are the OAuth 2.0 scopes the token must carry.
	Scopes []string
}

// IsZero reports whether r declares nothing.
func (r Requirements) IsZero() bool {
	return len(r.Authorization) == 0 && len(r.Secrets) == 0 && !r.UserID
}
