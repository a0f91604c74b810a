package oxp

import (
	"context"
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

// requirementsInterceptor checks the call's context against what the tool
// declares, and ends the call when something is missing (a provider without
// a token, a secret without a value, no user id) with a *toolexec.Error of
// StageIntercept whose Err is a *missingRequirementsError. Its Code is
// CodeInvalidArguments: the call did not carry what the tool needs, which is
// the caller's to fix, as with bad input. An empty token, value or user id counts as missing.
// Scopes cannot be checked here (the token is opaque to the surface); the
// tool finds out when it uses it.
//
// The handler hands it to Executor.Call as a per-call interceptor, so it
// runs after the auth hook has passed the call and before every other
// interceptor: an unauthenticated caller learns nothing from it, and the
// WithAuthorizationChallenge hook never runs for one.
func (h *handler) requirementsInterceptor(next toolexec.CallFunc) toolexec.CallFunc {
	return func(ctx context.Context, call *toolexec.Call) (*toolexec.CallToolResult, error) {
		if miss := h.missingRequirements(ctx, call); miss != nil {
			return nil, &toolexec.Error{Stage: toolexec.StageIntercept, Code: toolexec.CodeInvalidArguments, Message: miss.Error(), Err: miss}
		}
		return next(withRequirementVariants(ctx, call), call)
	}
}

// missingRequirementsError is why requirementsInterceptor refused a call.
// The surface finds it with errors.As and answers 400 with
// missing_requirements.
type missingRequirementsError struct {
	toolID  string
	missing missingWire
	what    []string // what is missing, for the developer message
}

// Error returns the developer message: the tool id and what it lacks.
func (e *missingRequirementsError) Error() string {
	return e.toolID + " requires " + strings.Join(e.what, ", ") + " in the call's context"
}

// serverError is the 400 answer.
func (e *missingRequirementsError) serverError() *serverError {
	msg := "The tool needs more than the call supplied"
	if len(e.missing.Authorization) > 0 {
		msg = "Authorization is required before this tool can run"
	}
	missing := e.missing
	return &serverError{Message: msg, DeveloperMessage: e.Error(), MissingRequirements: &missing}
}

// missingRequirements is what the call's CallContext lacks of what its tool
// requires, nil when nothing is. The challenge hook gets the call's request
// as the auth hook passed it, with ctx (which holds the CallContext).
func (h *handler) missingRequirements(ctx context.Context, call *toolexec.Call) *missingRequirementsError {
	need := call.Tool.Requirements
	if need.IsZero() {
		return nil
	}
	c := FromContext(ctx)
	if c == nil {
		c = &CallContext{} // the handler always sets one; nothing is supplied without it
	}
	miss := &missingRequirementsError{toolID: c.ToolID}
	for _, a := range need.Authorization {
		if tok, _ := c.Token(a.ID); tok != "" {
			continue
		}
		ch := Challenge{ID: a.ID}
		if h.challenge != nil && call.Request != nil {
			ch = h.challenge(call.Request.WithContext(ctx), call.Tool, a)
			if ch.ID == "" {
				ch.ID = a.ID
			}
		}
		miss.missing.Authorization = append(miss.missing.Authorization, ch)
		miss.what = append(miss.what, "authorization from "+a.ID)
	}
	for _, id := range need.Secrets {
		if v, _ := c.Secret(id); v != "" {
			continue
		}
		miss.missing.Secrets = append(miss.missing.Secrets, secretWire{ID: id})
		miss.what = append(miss.what, "secret "+id)
	}
	if need.UserID && c.UserID == "" {
		miss.missing.UserID = true
		miss.what = append(miss.what, "user_id")
	}
	if len(miss.what) == 0 {
		return nil
	}
	return miss
}

// withRequirementVariants adds to ctx, as cache variants, the values the
// call supplied for what its tool requires (tokens, secrets, the user id),
// so that a cached result of a tool with requirements is only served to a
// call that supplied the same values (see toolexec.ContextWithCacheVariant).
func withRequirementVariants(ctx context.Context, call *toolexec.Call) context.Context {
	need := call.Tool.Requirements
	if need.IsZero() || !call.Tool.Options.Cache {
		return ctx
	}
	c := FromContext(ctx)
	for _, a := range need.Authorization {
		tok, _ := c.Token(a.ID)
		ctx = toolexec.ContextWithCacheVariant(ctx, "oxp:authorization:"+a.ID+"\x00"+tok)
	}
	for _, id := range need.Secrets {
		v, _ := c.Secret(id)
		ctx = toolexec.ContextWithCacheVariant(ctx, "oxp:secret:"+id+"\x00"+v)
	}
	if need.UserID && c != nil {
		ctx = toolexec.ContextWithCacheVariant(ctx, "oxp:user_id\x00"+c.UserID)
	}
	return ctx
}
