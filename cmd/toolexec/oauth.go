package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"time"

	"github.com/toolexec/toolexec"
	"github.com/toolexec/toolexec/cmd/toolexec/internal/server"
	"github.com/toolexec/toolexec/oauth"
)

// issuerScopesTimeout bounds how long serve waits, at start, for the
// authorization server's metadata when --oauth-scopes is not given.
const issuerScopesTimeout = 10 * time.Second

// oauthFlags are serve's --oauth-* flags: every setting of oauth.Config,
// and whether tool lists need a token.
type oauthFlags struct {
	fs *flag.FlagSet

	issuer, base, scopes, scopePrefix, resourceName, jwksURL string
	scopeClaims, audiences, clients, algorithms              listFlag
	publicList, requireATJWT                                 bool
	leeway, keyCacheTTL, minRefresh                          time.Duration

	introspect          bool
	introspectEndpoint  string
	introspectClient    string
	introspectSecretEnv string
	introspectMax       int
	introspectRate      float64
	introspectTTL       time.Duration
	introspectEntries   int
}

// register defines the flags on fs.
func (o *oauthFlags) register(fs *flag.FlagSet) {
	o.fs = fs
	fs.StringVar(&o.issuer, "oauth-issuer", "", "verify OAuth 2.1 access tokens from this authorization server (its issuer URL, exactly as its metadata states it) instead of a static token")
	fs.StringVar(&o.base, "oauth-resource", "", "with --oauth-issuer: this server's public base URL (such as https://tools.example.com); a token's audience must name the endpoint it is used on: BASE/api, BASE/mcp, BASE/oxp, BASE/toolsets/NAME/{api,mcp,oxp} or BASE/mcp/NAME")
	fs.StringVar(&o.scopes, "oauth-scopes", "", "the comma-separated scopes clients ask for first (scopes_supported; every 401 names them; {resource} stands for the endpoint's URI). Default: openid and the --oauth-scope-claim names the issuer advertises, then every scope the tools declare (with --oauth-scope-claim naming claims other than scope and scp: those the issuer advertises, all when it advertises none)")
	fs.Var(&o.scopeClaims, "oauth-scope-claim", "a claim scopes are read from: a name or a dotted path such as groups or realm_access.roles, holding a space-separated string or an array (repeatable; default scope, else scp: the two are alternatives, the first the token carries; other claims add)")
	fs.StringVar(&o.scopePrefix, "oauth-scope-prefix", "", "put before a tool's scopes where a 403 names them, for servers that know scopes by a longer name than their tokens hold (Entra ID: its App ID URI and /)")
	fs.Var(&o.audiences, "oauth-audience", "the last resort for servers that cannot put the endpoint's URI in aud: a further accepted audience, only from an --oauth-client (repeatable)")
	fs.Var(&o.clients, "oauth-client", "a client (azp, client_id or cid) whose tokens are accepted through --oauth-audience (repeatable)")
	fs.BoolVar(&o.publicList, "oauth-public-list", false, "let callers without a token list the tools that need no scope (MCP initialize and tools/list, REST and OXP lists, the explorer's data); by default every request but the explorer page and OXP's health check needs a valid token")
	fs.BoolVar(&o.requireATJWT, "oauth-require-at-jwt", false, "accept only JWTs typed at+jwt (RFC 9068)")
	fs.Var(&o.algorithms, "oauth-algorithms", "the JWS algorithms accepted, comma-separated (default RS256, RS384, RS512, PS256, PS384, PS512, ES256, ES384, ES512, EdDSA; none and HS* never)")
	fs.DurationVar(&o.leeway, "oauth-leeway", 0, "the clock skew tolerated on exp, nbf and iat (0: 30s; negative: none)")
	fs.StringVar(&o.jwksURL, "oauth-jwks-url", "", "read the issuer's keys here instead of its metadata's jwks_uri")
	fs.DurationVar(&o.keyCacheTTL, "oauth-key-cache-ttl", 0, "how long fetched keys are used before being fetched again (0: 1h)")
	fs.DurationVar(&o.minRefresh, "oauth-min-refresh-interval", 0, "the least time between key or metadata fetches caused by unknown key ids or failures (0: 5s; negative: no bound)")
	fs.StringVar(&o.resourceName, "oauth-resource-name", "", "a human-readable name in the protected resource metadata")
	fs.BoolVar(&o.introspect, "oauth-introspect", false, "accept opaque (non-JWT) tokens through the issuer's introspection endpoint (RFC 7662)")
	fs.StringVar(&o.introspectEndpoint, "oauth-introspection-endpoint", "", "with --oauth-introspect: the endpoint (default: the metadata's introspection_endpoint)")
	fs.StringVar(&o.introspectClient, "oauth-introspection-client", "", "with --oauth-introspect: this server's client id at the introspection endpoint")
	fs.StringVar(&o.introspectSecretEnv, "oauth-introspection-secret-env", "TOOLEXEC_OAUTH_INTROSPECTION_SECRET", "with --oauth-introspect: the environment variable holding that client's secret")
	fs.IntVar(&o.introspectMax, "oauth-introspection-max-concurrent", 0, "introspection requests in flight at once (0: 16; negative: no bound)")
	fs.Float64Var(&o.introspectRate, "oauth-introspection-max-per-second", 0, "introspection requests started per second (0: 100; negative: no bound)")
	fs.DurationVar(&o.introspectTTL, "oauth-introspection-inactive-ttl", 0, "how long an inactive answer is remembered (0: 10s; negative: not at all)")
	fs.IntVar(&o.introspectEntries, "oauth-introspection-inactive-entries", 0, "how many inactive tokens are remembered (0: 4096)")
}

// enabled reports whether --oauth-issuer is set.
func (o *oauthFlags) enabled() bool { return o.issuer != "" }

// setFlags returns the names of the --oauth-* flags given on the command
// line.
func (o *oauthFlags) setFlags() []string {
	var out []string
	o.fs.Visit(func(f *flag.Flag) {
		if strings.HasPrefix(f.Name, "oauth-") {
			out = append(out, "--"+f.Name)
		}
	})
	return out
}

// check refuses inconsistent flags before anything is loaded.
func (o *oauthFlags) check(token string) error {
	if !o.enabled() {
		if set := o.setFlags(); len(set) > 0 {
			return fmt.Errorf("%s: need --oauth-issuer", strings.Join(set, ", "))
		}
		return nil
	}
	if token != "" {
		return errors.New("--oauth-issuer and a static token are exclusive: unset the token's environment variable")
	}
	if o.base == "" {
		return errors.New("--oauth-issuer needs --oauth-resource, this server's public base URL")
	}
	if len(o.audiences) > 0 && len(o.clients) == 0 {
		return errors.New("--oauth-audience needs --oauth-client: the clients whose tokens may use that audience")
	}
	return nil
}

// config is the oauth.Config the flags describe, with scopes as
// ScopesSupported.
func (o *oauthFlags) config(getenv func(string) (string, bool), scopes []string, logger *slog.Logger) oauth.Config {
	base := strings.TrimSuffix(o.base, "/")
	cfg := oauth.Config{
		Issuer:                 o.issuer,
		Resources:              []string{base + server.RESTPrefix, base + server.MCPPath, base + server.OXPPrefix},
		Audiences:              o.audiences,
		AuthorizedParties:      o.clients,
		ScopeClaims:            o.scopeClaims,
		ScopesSupported:        scopes,
		ScopePrefix:            o.scopePrefix,
		ResourceName:           o.resourceName,
		Algorithms:             o.algorithms,
		RequireAccessTokenType: o.requireATJWT,
		Leeway:                 o.leeway,
		JWKSURL:                o.jwksURL,
		KeyCacheTTL:            o.keyCacheTTL,
		MinRefreshInterval:     o.minRefresh,
		Logger:                 logger,
	}
	if o.introspect {
		secret, _ := getenv(o.introspectSecretEnv)
		cfg.Introspection = &oauth.Introspection{
			Endpoint:        o.introspectEndpoint,
			ClientID:        o.introspectClient,
			ClientSecret:    secret,
			MaxConcurrent:   o.introspectMax,
			MaxPerSecond:    o.introspectRate,
			InactiveTTL:     o.introspectTTL,
			InactiveEntries: o.introspectEntries,
		}
	}
	return cfg
}

// verifier builds the Verifier of the flags, or nil when --oauth-issuer is
// unset. Without --oauth-scopes, the scopes clients are told to ask for
// are chosen among those the issuer's metadata advertises (see
// defaultScopes); tools are the tools the server starts with.
func (o *oauthFlags) verifier(ctx context.Context, getenv func(string) (string, bool), tools []toolexec.Tool, logger *slog.Logger) (*oauth.Verifier, []string, error) {
	if !o.enabled() {
		return nil, nil, nil
	}
	scopes, explicit := o.explicitScopes()
	if !explicit {
		probe, err := oauth.NewVerifier(o.config(getenv, nil, logger))
		if err != nil {
			return nil, nil, err
		}
		ctx, cancel := context.WithTimeout(ctx, issuerScopesTimeout)
		defer cancel()
		advertised, err := probe.IssuerScopes(ctx)
		if err != nil {
			logger.Warn("oauth: cannot read the issuer's scopes_supported; clients will be told to ask for the tools' scopes only (set --oauth-scopes to choose)",
				"issuer", o.issuer, "error", err)
		}
		scopes = defaultScopes(advertised, err == nil, o.scopeClaims, tools)
	}
	v, err := oauth.NewVerifier(o.config(getenv, scopes, logger))
	if err != nil {
		return nil, nil, err
	}
	return v, scopes, nil
}

// explicitScopes returns the scopes --oauth-scopes names, and whether it
// was given.
func (o *oauthFlags) explicitScopes() ([]string, bool) {
	explicit := false
	o.fs.Visit(func(f *flag.Flag) { explicit = explicit || f.Name == "oauth-scopes" })
	var scopes []string
	for s := range strings.SplitSeq(o.scopes, ",") {
		if s = strings.TrimSpace(s); s != "" {
			scopes = append(scopes, s)
		}
	}
	return scopes, explicit
}

// defaultScopes are the scopes clients are told to ask for when
// --oauth-scopes is not given: the issuer's that toolexec needs, "openid"
// when the issuer advertises it (some servers, Dex among them, issue no
// token without it) and each scope claim that the issuer advertises as a
// scope ("groups": Dex writes the groups claim only when asked for the
// groups scope); then the scopes the tools declare, sorted, so that a
// client signs in once for every tool its user may call. When scopes are
// read from claims other than scope and scp (groups, roles), a tool's
// scope may be such a claim value, which some servers refuse to be asked
// for: only the tool scopes the issuer advertises are named then (all of
// them when its metadata could not be read or lists no scopes); a caller
// that lacks another learns it from the 403.
func defaultScopes(advertised []string, known bool, claims []string, tools []toolexec.Tool) []string {
	var out []string
	add := func(s string) {
		if !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	if slices.Contains(advertised, "openid") {
		add("openid")
	}
	for _, c := range claims {
		if slices.Contains(advertised, c) {
			add(c)
		}
	}
	scopesOnly := !slices.ContainsFunc(claims, func(c string) bool { return c != "scope" && c != "scp" })
	var needed []string
	for _, t := range tools {
		needed = append(needed, t.Options.Scopes...)
	}
	slices.Sort(needed)
	for _, s := range slices.Compact(needed) {
		if scopesOnly || !known || len(advertised) == 0 || slices.Contains(advertised, s) {
			add(s)
		}
	}
	return out
}

// banner describes, for serve's start-up lines, what a request needs.
func (o *oauthFlags) banner(scopes []string) string {
	var b strings.Builder
	base := strings.TrimSuffix(o.base, "/")
	if o.publicList {
		b.WriteString("  calls need an OAuth access token; tool lists are public (--oauth-public-list)\n")
	} else {
		b.WriteString("  every request needs an OAuth access token (lists too; the explorer page itself is public)\n")
	}
	fmt.Fprintf(&b, "    issuer:   %s\n", o.issuer)
	fmt.Fprintf(&b, "    audience: the endpoint's URI, such as %s%s", base, server.MCPPath)
	if len(o.audiences) > 0 {
		fmt.Fprintf(&b, ", or %s from %s", strings.Join(o.audiences, ", "), strings.Join(o.clients, ", "))
	}
	b.WriteString("\n")
	if len(scopes) > 0 {
		shown := strings.ReplaceAll(strings.Join(scopes, " "), "{resource}", base+server.MCPPath)
		fmt.Fprintf(&b, "    scopes:   %s (then each tool's own, by step-up)\n", shown)
	} else {
		b.WriteString("    scopes:   none advertised (each tool's own, by step-up)\n")
	}
	fmt.Fprintf(&b, "    metadata: %s/.well-known/oauth-protected-resource%s", base, server.MCPPath)
	return b.String()
}
