// Package oauth makes a toolexec server an OAuth 2.1 resource server, as the
// MCP authorization specification (2025-06-18 onward) asks:
//
//   - a Verifier checks bearer access tokens: JWTs against the
//     authorization server's keys (found through its OAuth or OpenID
//     metadata, cached, fetched again when a token names an unknown key),
//     with its issuer, an audience naming this resource (RFC 8707) or, as a
//     last resort, a further audience from an authorized client, expiry
//     and not-before with a small leeway, and an allow-list of asymmetric
//     algorithms, refusing JWTs that are plainly not access tokens (ID
//     tokens, refresh tokens); opaque tokens optionally through RFC 7662
//     introspection, bounded so that junk tokens cannot flood the
//     authorization server;
//   - scopes are read from the claims the authorization server really
//     uses: "scope" (else "scp") by default, or groups and roles, nested
//     ones included ("realm_access.roles");
//   - Verifier.AuthHook is a toolexec.AuthHook: it refuses a call without a
//     valid token with 401 and a challenge naming the protected resource
//     metadata (RFC 9728, RFC 6750), and a call whose token lacks a scope
//     the tool declares (toolexec.ToolOptions.Scopes) with 403
//     insufficient_scope naming the scopes a client can ask for to step
//     up (never a group or role, which it names in error_description), on
//     every surface;
//   - Verifier.FilterTools is a toolexec.ToolFilter for per-caller tool
//     lists;
//   - Verifier.Metadata serves the protected resource metadata at
//     /.well-known/oauth-protected-resource and its path-suffixed forms;
//   - FromContext gives a tool handler the verified Identity: subject,
//     client, scopes and claims.
//
// The token itself is never logged, put on a span or kept beyond the
// request. See docs/auth.md for set-ups with common authorization servers.
package oauth
