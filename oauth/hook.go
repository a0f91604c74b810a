package oauth

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/toolexec/toolexec"
)

// AuthHook is a toolexec.AuthHook (pass v.AuthHook to toolexec.WithAuthHook)
// that admits a call only with a valid bearer access token for the
// request's resource (see Verify), and only when the token holds every
// scope the tool declares (toolexec.ToolOptions.Scopes). It refuses through
// toolexec.WriteChallenge, so every surface answers with its documented
// body and:
//
//   - no token: 401, WWW-Authenticate: Bearer scope="<this resource's
//     Config.ScopesSupported>", resource_metadata="<this resource's
//     metadata URL>" (never the tool's own scopes, which would tell an
//     anonymous caller of a tool hidden from it, see FilterTools);
//   - a token that is not accepted: 401, Bearer error="invalid_token", with
//     the same scope and resource_metadata;
//   - a token without a scope the tool needs: 403, Bearer
//     error="insufficient_scope", scope="<the tool's scopes a client can
//     ask for, then those the token holds that ScopesSupported lists, then
//     every OAuth scope the token was granted>", resource_metadata=...; a
//     scope the tool needs that is a claim value (a group, role or
//     permission, see Config.ScopeClaims) is never in scope: an
//     error_description says the token lacks it and that a client cannot
//     ask for it, and when every missing scope is one, scope is left out.
//
// The token is read from the Authorization header only (RFC 6750 section
// 2.1), never from the URL or the body. An admitted call's context carries
// the Identity (see FromContext), and the auth stage's span gets the
// attribute enduser.id with the subject; the token is never put on a span
// or logged.
//
// AuthHook is also ordinary middleware. In front of a surface it makes
// every request need a valid token, discovery included, which is what MCP
// clients expect of a protected MCP endpoint (they start their
// authorization flow on the 401 of their first request):
//
//	mux.Handle("/mcp", v.AuthHook(mcp.NewHandler(x)))
//
// It then answers refusals itself, checks no tool scope (the same
// Executor's hook still does, per call), and leaves the Identity in the
// request's context, where the hook and FilterTools find it instead of
// verifying the token again.
func (v *Verifier) AuthHook(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		res := v.resourceFor(r)
		var needed []string
		if call := toolexec.CallFromContext(r.Context()); call != nil {
			needed = call.Tool.Options.Scopes
		}
		// A 401 names Config.ScopesSupported, never the tool's own scopes:
		// a caller without a valid token may not see the tool (FilterTools
		// hides it), and must not learn of it, nor tell it apart from one
		// that does not exist, by the challenge. The 403 of an
		// authenticated caller names them.
		hint := res.scopes
		id, err := v.identify(r, res)
		if errors.Is(err, errNoToken) {
			toolexec.WriteChallenge(w, http.StatusUnauthorized, challenge("", hint, "", res.metadataURL))
			return
		}
		if err != nil {
			switch {
			case errors.Is(err, ErrInvalidToken):
				v.s.Logger.DebugContext(r.Context(), "oauth: token refused", "resource", res.uri, "reason", err)
			case errors.Is(err, errIntrospectionLimited), r.Context().Err() != nil:
				// Logged once per interval by the introspector; or the
				// client has gone.
				v.s.Logger.DebugContext(r.Context(), "oauth: token not checked", "resource", res.uri, "reason", err)
			default:
				v.s.Logger.WarnContext(r.Context(), "oauth: token could not be checked", "error", err)
			}
			toolexec.WriteChallenge(w, http.StatusUnauthorized, challenge("invalid_token", hint, "", res.metadataURL))
			return
		}
		if missing := id.missing(needed); len(missing) > 0 {
			v.s.Logger.DebugContext(r.Context(), "oauth: token lacks scopes", "subject", id.Subject, "missing", missing)
			scopes, description := v.stepUp(needed, id, res)
			toolexec.WriteChallenge(w, http.StatusForbidden,
				challenge("insufficient_scope", scopes, description, res.metadataURL))
			return
		}
		next.ServeHTTP(w, r.WithContext(callerContext(r.Context(), id)))
	})
}

// callerContext is ctx carrying id for handlers (FromContext) and naming
// the caller for the pipeline: the read-through cache keys a result on the
// token's issuer, subject and client (see cacheIdentity), and on the
// scopes it granted, so a result is only ever served to the same caller,
// through the same client, holding the same scopes. A token that does not
// name its caller completely leaves the call without an identity (any
// identity set before is cleared), so its result is not cached.
func callerContext(ctx context.Context, id *Identity) context.Context {
	ctx = NewContext(ctx, id)
	ctx = toolexec.ContextWithIdentity(ctx, cacheIdentity(id))
	ctx = toolexec.ContextWithEndUser(ctx, id.Subject) // an observer's enduser.id
	scopes := slices.Clone(id.Scopes)
	slices.Sort(scopes)
	return toolexec.ContextWithCacheVariant(ctx, "scope="+strings.Join(scopes, " "))
}

var errNoToken = errors.New("oauth: no bearer token")

// identify returns the identity of the request's bearer token for res. An
// identity already in the request's context for res (AuthHook ran as
// middleware in front of the surface, say) is used as it is, so a token is
// verified once per request.
func (v *Verifier) identify(r *http.Request, res *resource) (*Identity, error) {
	if id, ok := FromContext(r.Context()); ok && id.Issuer == v.s.Issuer && v.accepts(id.Audience, res.uri) {
		return id, nil
	}
	token, ok := bearerToken(r)
	if !ok {
		return nil, errNoToken
	}
	return v.Verify(r.Context(), token, res.uri)
}

// FilterTools is a toolexec.ToolFilter (pass v.FilterTools to
// toolexec.WithToolFilter) for per-caller tool lists: it keeps the tools
// whose scopes the caller's token holds. Lists run no auth hook, so it
// verifies the bearer token itself when the request has one; a request
// without a token, or with one that is not accepted, is anonymous and sees
// only the tools that declare no scope. It never refuses a list.
func (v *Verifier) FilterTools(r *http.Request, tools []toolexec.Tool) []toolexec.Tool {
	id, err := v.identify(r, v.resourceFor(r))
	if err != nil {
		if !errors.Is(err, errNoToken) {
			v.s.Logger.DebugContext(r.Context(), "oauth: token refused for a tool list; listing as anonymous", "reason", err)
		}
		id = nil
	}
	out := make([]toolexec.Tool, 0, len(tools))
	for _, t := range tools {
		if len(t.Options.Scopes) == 0 || (id != nil && len(id.missing(t.Options.Scopes)) == 0) {
			out = append(out, t)
		}
	}
	return out
}

// bearerToken returns the token of the request's one Authorization header
// when it uses the Bearer scheme.
func bearerToken(r *http.Request) (string, bool) {
	values := r.Header.Values("Authorization")
	if len(values) != 1 {
		return "", false
	}
	scheme, token, ok := strings.Cut(values[0], " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return "", false
	}
	token = strings.TrimSpace(token)
	return token, token != ""
}

// resourceFor returns the resource a request belongs to: the one whose
// path is the longest prefix of the request's path, on a segment boundary,
// or the first resource. The path is read from the request line, so it is
// the one the client used whatever prefix the host stripped.
func (v *Verifier) resourceFor(r *http.Request) *resource {
	p := requestPath(r)
	best := &v.s.resources[0]
	bestLen := -1
	for i := range v.s.resources {
		res := &v.s.resources[i]
		if (p == res.path || strings.HasPrefix(p, res.path+"/")) && len(res.path) > bestLen {
			best, bestLen = res, len(res.path)
		}
	}
	return best
}

// requestPath is the escaped path the client sent.
func requestPath(r *http.Request) string {
	if r.RequestURI != "" {
		if u, err := url.ParseRequestURI(r.RequestURI); err == nil {
			return u.EscapedPath()
		}
	}
	return r.URL.EscapedPath()
}
