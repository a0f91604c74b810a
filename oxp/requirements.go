package oxp

import (
	"net/http"
	"strings"

	"github.com/toolexec/toolexec"
)

// Challenge is an authorization challenge: what a client shows its user so
// they can grant an authorization a tool needs. It is one entry of
// missing_requirements.authorization.
type Challenge struct {
	// ID identifies the challenge; by default the provider's id.
	ID string `json:"id"`
	// URL is where the user completes the authorization.
	URL string `json:"url,omitempty"`
	// CheckURL is where the client may poll for the challenge's status.
	CheckURL string `json:"check_url,omitempty"`
}

// requirementsWire is ToolDefinition.requirements.
type requirementsWire struct {
	Authorization []authorizationWire `json:"authorization,omitempty"`
	Secrets       []secretWire        `json:"secrets,omitempty"`
	UserID        bool                `json:"user_id,omitempty"`
}

type authorizationWire struct {
	ID     string      `json:"id"`
	OAuth2 *oauth2Wire `json:"oauth2,omitempty"`
}

type oauth2Wire struct {
	Scopes []string `json:"scopes"`
}

type secretWire struct {
	ID string `json:"id"`
}

// requirementsOf is the wire form of a tool's requirements; nil when it
// declares none. A provider with scopes is an OAuth 2.0 provider.
func requirementsOf(r toolexec.Requirements) *requirementsWire {
	if r.IsZero() {
		return nil
	}
	out := &requirementsWire{UserID: r.UserID}
	for _, a := range r.Authorization {
		w := authorizationWire{ID: a.ID}
		if len(a.Scopes) > 0 {
			w.OAuth2 = &oauth2Wire{Scopes: a.Scopes}
		}
		out.Authorization = append(out.Authorization, w)
	}
	for _, s := range r.Secrets {
		out.Secrets = append(out.Secrets, secretWire{ID: s})
	}
	return out
}

// missingWire is a ServerErrorResponse's missing_requirements. Secrets are
// this package's addition to OXP's authorization and user_id, so a client
// learns every missing requirement from one answer.
type missingWire struct {
	Authorization []Challenge  `json:"authorization,omitempty"`
	Secrets       []secretWire `json:"secrets,omitempty"`
	UserID        bool         `json:"user_id,omitempty"`
}

// missingRequirements checks the call's context against what the tool
// declares and returns the 400 answer when something is missing: a provider
// without a token, a secret without a value, no user id. An empty token,
// value or user id counts as missing. Scopes cannot be checked here (the
// token is opaque to the surface); the tool finds out when it uses it.
func (h *handler) missingRequirements(r *http.Request, e *entry, c *CallContext) *serverError {
	need := e.tool.Requirements
	var miss missingWire
	var what []string
	for _, a := range need.Authorization {
		if tok, _ := c.Token(a.ID); tok != "" {
			continue
		}
		ch := Challenge{ID: a.ID}
		if h.challenge != nil {
			ch = h.challenge(r, e.tool, a)
			if ch.ID == "" {
				ch.ID = a.ID
			}
		}
		miss.Authorization = append(miss.Authorization, ch)
		what = append(what, "authorization from "+a.ID)
	}
	for _, id := range need.Secrets {
		if v, _ := c.Secret(id); v != "" {
			continue
		}
		miss.Secrets = append(miss.Secrets, secretWire{ID: id})
		what = append(what, "secret "+id)
	}
	if need.UserID && c.UserID == "" {
		miss.UserID = true
		what = append(what, "user_id")
	}
	if len(what) == 0 {
		return nil
	}
	msg := "The tool needs more than the call supplied"
	if len(miss.Authorization) > 0 {
		msg = "Authorization is required before this tool can run"
	}
	return &serverError{
		Message:             msg,
		DeveloperMessage:    e.id() + " requires " + strings.Join(what, ", ") + " in the call's context",
		MissingRequirements: &miss,
	}
}
