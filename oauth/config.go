package oauth

import (
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/go-jose/go-jose/v4"
)

// Config configures a Verifier. Issuer and at least one resource are
// required; everything else has a safe default.
type Config struct {
	// Issuer is the authorization server's issuer identifier, exactly as
	// its metadata and its tokens state it ("https://auth.example.com/realms/x").
	// Its metadata is read from Issuer + "/.well-known/openid-configuration"
	// or, failing that, the RFC 8414 form
	// "https://auth.example.com/.well-known/oauth-authorization-server/realms/x",
	// and must name the same issuer.
	Issuer string

	// Resources are the canonical URIs of the resources this server
	// protects (RFC 8707, RFC 9728): "https://api.example.com/mcp", one per
	// protected endpoint, without a fragment, query or trailing slash. A
	// request belongs to the resource whose path is the longest prefix of
	// the request's path (as the client sent it, so http.StripPrefix does
	// not matter), or to the first resource when none matches. A token is
	// accepted only when its audience names the request's resource.
	Resources []string

	// Audiences are further "aud" values accepted on every resource, the
	// last resort for authorization servers that cannot put the resource
	// URI in a token's audience (Entra ID's v2 tokens name the API's
	// application id); fix it on the server's side first where it can be
	// (docs/auth.md says how for each server). A token accepted through
	// one of them, rather than through the request's resource URI, must
	// also be issued to one of AuthorizedParties, and must not carry
	// "nonce" (a claim of OpenID Connect ID tokens). So an ID token whose
	// audience is a listed client id, or a token minted for an application
	// that is not listed, is refused. NewVerifier refuses Audiences without
	// AuthorizedParties.
	Audiences []string

	// AuthorizedParties are the clients whose tokens are accepted through
	// Audiences: the client a token was issued to ("client_id", else
	// "azp", else Okta's "cid") must be one of them. They do not restrict tokens whose audience is the
	// request's resource URI.
	AuthorizedParties []string

	// ScopeClaims name the claims a token's scopes are read from, each a
	// claim name ("scope", "scp", "groups", "roles", "permissions") or a
	// dotted path into nested objects ("realm_access.roles",
	// "resource_access.tools-api.roles"). A name that is itself a claim
	// wins over a path, so namespaced claims such as
	// "https://tools.example.com/roles" work as they are. Each claim may be
	// a string of scopes delimited by spaces or an array of strings; the
	// token's scopes are those of every listed claim, in order, without
	// repeats, except that "scope" and "scp", two names for the claim of
	// OAuth scopes (RFC 9068 writes "scope"; Entra ID and Okta "scp"), are
	// alternatives: only the first of them listed that the token carries is
	// read, so a token carrying both is not granted the union. The default
	// is "scope", else "scp".
	//
	// "scope" and "scp" hold OAuth scopes, which a client can ask for;
	// every other claim holds claim values (groups, roles, permissions)
	// that the authorization server grants on its own terms. With only
	// "scope" and "scp" listed, every scope a tool declares is taken for an
	// OAuth scope; with any other claim listed, only those ScopesSupported
	// lists are, and a 403 never asks a client to request the others (see
	// AuthHook).
	ScopeClaims []string

	// ScopesSupported are the scopes the metadata advertises
	// ("scopes_supported"), and those every 401 challenge asks for. MCP
	// clients ask for them on their first sign-in; further scopes a tool
	// declares are then obtained by step-up, on the 403
	// insufficient_scope that names them. List only scopes the
	// authorization server knows: some (Dex, Keycloak) refuse a request
	// naming one they do not. With ScopeClaims reading claim values, they
	// are also the only tool scopes a 403 asks a client to request. An
	// entry holding "{resource}" names, for each resource, that resource's
	// URI in its place: Dex's "audience:server:client_id:{resource}" makes
	// a client ask Dex for a token whose audience is the resource it
	// addresses. Optional.
	ScopesSupported []string

	// ScopePrefix is put before each scope of a tool when a 403 challenge
	// names it, for authorization servers that know a scope by a longer
	// name than the one they write in tokens: Entra ID is asked for
	// "https://tools.example.com/mcp/tools.call" (its App ID URI, then the
	// scope) and writes "tools.call" in "scp" (set
	// "https://tools.example.com/mcp/"). A scope in a token that starts
	// with the prefix counts without it. Optional.
	ScopePrefix string

	// ResourceName is a human-readable name for the metadata
	// ("resource_name"). Optional.
	ResourceName string

	// Algorithms are the JWS algorithms accepted on JWT access tokens. The
	// default is RS256, RS384, RS512, PS256, PS384, PS512, ES256, ES384,
	// ES512 and EdDSA. "none" and the HMAC algorithms (HS256, HS384, HS512)
	// are never accepted, whatever is listed: a resource server holds no
	// shared secret, and an HMAC checked with a public key proves nothing.
	Algorithms []string

	// RequireAccessTokenType refuses JWTs whose "typ" header is not
	// "at+jwt" (RFC 9068 section 4), so that no other kind of JWT the
	// issuer signs (an ID token, say) can pass for an access token. Off by
	// default: many servers (Keycloak, Entra ID, Okta, Dex) send "JWT" or
	// no "typ". Whatever it says, a JWT is refused whose "typ" header is
	// present and none of "JWT", "application/jwt", "at+jwt" and
	// "application/at+jwt", or whose "typ" claim is present and not
	// "Bearer" (Keycloak marks its ID tokens "ID" and its refresh tokens
	// "Refresh"), or that carries "c_hash" (only OpenID Connect ID tokens
	// do).
	RequireAccessTokenType bool

	// Leeway is the clock skew tolerated on exp, nbf and iat. The default
	// (0) is 30 seconds; a negative value tolerates none.
	Leeway time.Duration

	// JWKSURL, when set, is where the issuer's keys are read, instead of
	// the metadata's jwks_uri.
	JWKSURL string

	// KeyCacheTTL is how long fetched keys are used before they are fetched
	// again; the default (0) is one hour. Keys that can no longer be fetched
	// are used until a fetch succeeds.
	KeyCacheTTL time.Duration

	// MinRefreshInterval bounds how often a token naming an unknown key (or
	// a failed metadata fetch) makes the Verifier ask the authorization
	// server again, so that forged key ids cannot make it flood the server.
	// The default (0) is 5 seconds; a negative value sets no bound.
	MinRefreshInterval time.Duration

	// Introspection, when set, accepts opaque (non-JWT) access tokens by
	// asking the authorization server about each (RFC 7662). JWTs are
	// always verified locally.
	Introspection *Introspection

	// HTTPClient makes the requests to the authorization server (metadata,
	// keys, introspection). The default has a 10 second timeout.
	HTTPClient *http.Client

	// Logger receives why tokens are refused (never the tokens) at debug
	// level and failures to reach the authorization server at warning
	// level. The default is slog.Default() when NewVerifier runs.
	Logger *slog.Logger
}

// Introspection configures RFC 7662 token introspection for opaque tokens.
//
// Anyone can send an opaque token, so what introspection costs the
// authorization server is bounded: identical tokens in flight at once are
// introspected once, with every request waiting for that answer; an answer
// "inactive" is remembered for a while; requests to the endpoint are
// limited in number at once and per second; and a request is cancelled
// when every client waiting for its answer has gone away. A token beyond a
// limit is refused as not checked (401 invalid_token), never sent.
type Introspection struct {
	// Endpoint is the introspection endpoint; "" uses the metadata's
	// introspection_endpoint.
	Endpoint string
	// ClientID and ClientSecret authenticate this resource server to the
	// endpoint with HTTP Basic authentication (RFC 6749 section 2.3.1).
	ClientID     string
	ClientSecret string

	// MaxConcurrent bounds the introspection requests in flight at once;
	// a further token waits for a slot until its client goes away. The
	// default (0) is 16; a negative value sets no bound.
	MaxConcurrent int

	// MaxPerSecond bounds how many introspection requests start per
	// second, on average, with bursts of up to MaxPerSecond (at least 1);
	// a token that would start one beyond it is refused unchecked. Tokens
	// answered from a request in flight or from the memory of inactive
	// tokens do not count. The default (0) is 100; a negative value sets
	// no bound.
	MaxPerSecond float64

	// InactiveTTL is how long an answer "inactive" is remembered, so that
	// the same token sent again is refused without asking. The default (0)
	// is 10 seconds; a negative value remembers nothing. Only "inactive" is
	// remembered: an active token is introspected on every use, so a
	// revocation takes effect at once.
	InactiveTTL time.Duration

	// InactiveEntries bounds how many inactive tokens are remembered (as
	// SHA-256 digests, about 100 bytes each), the least recently seen
	// forgotten first. The default (0) is 4096.
	InactiveEntries int
}

// The defaults of Introspection's bounds.
const (
	defaultIntrospectionConcurrency = 16
	defaultIntrospectionRate        = 100
	defaultInactiveTTL              = 10 * time.Second
	defaultInactiveEntries          = 4096
)

// resourcePlaceholder, in an entry of ScopesSupported, stands for the
// resource's URI.
const resourcePlaceholder = "{resource}"

// defaultAlgorithms are the asymmetric JWS algorithms accepted by default.
var defaultAlgorithms = []string{"RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256", "ES384", "ES512", "EdDSA"}

// settings is a Config checked and completed with its defaults.
type settings struct {
	Config
	given     Config // as given to NewVerifier, for ForResources
	resources []resource
	algs      []jose.SignatureAlgorithm
	// scopesOnly: ScopeClaims read OAuth scopes alone, no claim values.
	scopesOnly bool
}

// resource is one protected resource: its URI and where its metadata lives.
type resource struct {
	uri         string   // the canonical URI, as configured
	path        string   // its path, "" for an origin
	metadataURL string   // RFC 9728 section 3.1
	scopes      []string // ScopesSupported, "{resource}" replaced by uri
}

// wellKnownPath is the RFC 9728 well-known path segment.
const wellKnownPath = "/.well-known/oauth-protected-resource"

func (c Config) settle() (*settings, error) {
	s := &settings{Config: c, given: c}
	if _, err := absoluteURL(c.Issuer); err != nil {
		return nil, fmt.Errorf("oauth: Config.Issuer: %w", err)
	}
	if len(c.Resources) == 0 {
		return nil, errors.New("oauth: Config.Resources: at least one resource URI is required")
	}
	for _, r := range c.Resources {
		u, err := absoluteURL(r)
		if err != nil {
			return nil, fmt.Errorf("oauth: Config.Resources: %w", err)
		}
		if u.RawQuery != "" || u.ForceQuery {
			return nil, fmt.Errorf("oauth: Config.Resources: %q has a query", r)
		}
		p := strings.TrimSuffix(u.EscapedPath(), "/")
		res := resource{uri: r, path: p, metadataURL: u.Scheme + "://" + u.Host + wellKnownPath + p}
		for _, sc := range c.ScopesSupported {
			res.scopes = append(res.scopes, strings.ReplaceAll(sc, resourcePlaceholder, r))
		}
		s.resources = append(s.resources, res)
	}
	algs := c.Algorithms
	if len(algs) == 0 {
		algs = defaultAlgorithms
	}
	if len(c.Audiences) > 0 && len(c.AuthorizedParties) == 0 {
		return nil, errors.New("oauth: Config.Audiences needs Config.AuthorizedParties: the clients whose tokens are accepted through those audiences")
	}
	for _, a := range c.Audiences {
		if a == "" {
			return nil, errors.New("oauth: Config.Audiences: an empty audience")
		}
	}
	for _, p := range c.AuthorizedParties {
		if p == "" {
			return nil, errors.New("oauth: Config.AuthorizedParties: an empty client id")
		}
	}
	if len(s.ScopeClaims) == 0 {
		s.ScopeClaims = oauthScopeClaims // the first of them a token carries
	}
	s.scopesOnly = true
	for _, name := range s.ScopeClaims {
		if err := checkClaimPath(name); err != nil {
			return nil, fmt.Errorf("oauth: Config.ScopeClaims: %w", err)
		}
		s.scopesOnly = s.scopesOnly && isOAuthScopeClaim(name)
	}
	for _, sc := range c.ScopesSupported {
		if !isScopeToken(strings.ReplaceAll(sc, resourcePlaceholder, "x")) {
			return nil, fmt.Errorf("oauth: Config.ScopesSupported: %q is not a scope (empty, or holding whitespace or a control character)", sc)
		}
	}
	if c.ScopePrefix != "" && !isScopeToken(c.ScopePrefix) {
		return nil, fmt.Errorf("oauth: Config.ScopePrefix: %q holds whitespace or a control character", c.ScopePrefix)
	}
	for _, a := range algs {
		if a == "none" || strings.HasPrefix(strings.ToUpper(a), "HS") {
			return nil, fmt.Errorf("oauth: Config.Algorithms: %q is never accepted", a)
		}
		if !slices.Contains(defaultAlgorithms, a) {
			return nil, fmt.Errorf("oauth: Config.Algorithms: %q is not a supported signature algorithm", a)
		}
		s.algs = append(s.algs, jose.SignatureAlgorithm(a))
	}
	switch {
	case c.Leeway == 0:
		s.Leeway = 30 * time.Second
	case c.Leeway < 0:
		s.Leeway = 0
	}
	if c.KeyCacheTTL <= 0 {
		s.KeyCacheTTL = time.Hour
	}
	switch {
	case c.MinRefreshInterval == 0:
		s.MinRefreshInterval = 5 * time.Second
	case c.MinRefreshInterval < 0:
		s.MinRefreshInterval = 0
	}
	if c.HTTPClient == nil {
		s.HTTPClient = &http.Client{Timeout: 10 * time.Second}
	}
	if c.Logger == nil {
		s.Logger = slog.Default()
	}
	if c.Introspection != nil {
		in := *c.Introspection
		if in.Endpoint != "" {
			if _, err := absoluteURL(in.Endpoint); err != nil {
				return nil, fmt.Errorf("oauth: Config.Introspection.Endpoint: %w", err)
			}
		}
		if in.MaxConcurrent == 0 {
			in.MaxConcurrent = defaultIntrospectionConcurrency
		}
		if in.MaxPerSecond == 0 {
			in.MaxPerSecond = defaultIntrospectionRate
		}
		if in.InactiveTTL == 0 {
			in.InactiveTTL = defaultInactiveTTL
		}
		if in.InactiveEntries <= 0 {
			in.InactiveEntries = defaultInactiveEntries
		}
		s.Introspection = &in
	}
	if c.JWKSURL != "" {
		if _, err := absoluteURL(c.JWKSURL); err != nil {
			return nil, fmt.Errorf("oauth: Config.JWKSURL: %w", err)
		}
	}
	return s, nil
}

// absoluteURL parses an http or https URL without a fragment.
func absoluteURL(raw string) (*url.URL, error) {
	u, err := url.Parse(raw)
	if err != nil {
		return nil, err
	}
	if (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
		return nil, fmt.Errorf("%q is not an absolute http(s) URL", raw)
	}
	if u.Fragment != "" || strings.Contains(raw, "#") {
		return nil, fmt.Errorf("%q has a fragment", raw)
	}
	return u, nil
}
