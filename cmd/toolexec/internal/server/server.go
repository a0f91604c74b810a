package server

import (
	"crypto/subtle"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/toolexec/toolexec"
	"github.com/toolexec/toolexec/explorer"
	"github.com/toolexec/toolexec/internal/hostguard"
	"github.com/toolexec/toolexec/mcp"
	"github.com/toolexec/toolexec/oauth"
	"github.com/toolexec/toolexec/oxp"
)

// Where the surfaces are mounted.
const (
	RESTPrefix    = "/api"
	MCPPath       = "/mcp"
	OXPPrefix     = "/oxp"
	ToolsetPrefix = "/toolsets/"
)

// Options configure the Executors the command serves. The zero value
// serves with the library's defaults and no auth.
type Options struct {
	// Token, when set, is the bearer token every call must carry
	// ("Authorization: Bearer TOKEN", or HandsAI's X-HandsAI-Token).
	// Discovery and validation need none.
	Token string
	// Timeout bounds every call whose tool sets none (0: none).
	Timeout time.Duration
	// MaxConcurrency bounds the calls running at once (0: unlimited).
	MaxConcurrency int
	// RateLimit bounds how often each caller may call, all tools together
	// but those with a rate limit of their own (the zero value: no limit).
	// A caller is the identity the auth hook established (an OAuth
	// token's subject), else the request's remote address; over stdio,
	// the one client.
	RateLimit toolexec.RateLimit
	// MaxBodyBytes bounds request bodies (0: the library's default).
	MaxBodyBytes int64
	// Logger receives the server's logs (nil: discarded).
	Logger *slog.Logger
	// Store is what every Executor of the server keeps its counts, cache
	// and MCP state in (toolexec.WithStore): the Redis replicas share with
	// --redis. Handler gives nil a toolexec.MemoryStore of its own, so
	// that the routes of every toolset (each an Executor of its own) count
	// a tool's concurrency, a caller's rate and the cache together, as one
	// server.
	Store toolexec.Store
	// Extra are further Executor options (telemetry, interceptors).
	Extra []toolexec.Option
	// ServerName and ServerVersion are the MCP server info.
	ServerName, ServerVersion string
	// OAuth, when set, verifies OAuth 2.1 bearer tokens on every call
	// (with the tools' scopes) and filters every tool list to what the
	// caller may call; the protected resource metadata is served at
	// /.well-known/oauth-protected-resource. It replaces Token. Its
	// resources are OAuthBase's /api, /mcp and /oxp.
	OAuth *oauth.Verifier
	// OAuthBase is the server's public base URL. Each toolset NAME's
	// endpoints are resources of their own, OAuthBase/toolsets/NAME/{api,
	// mcp,oxp} and OAuthBase/mcp/NAME, each with its own protected
	// resource metadata.
	OAuthBase string
	// OAuthPublicList lets a caller without a token list the tools that
	// need no scope. Without it, every request with OAuth on needs a valid
	// token (see requireToken), lists and MCP's initialize included.
	OAuthPublicList bool
	// NoExplorer leaves out the explorer page otherwise served at /api/.
	NoExplorer bool
	// AllowedHosts and AllowedOrigins are what the DNS-rebinding and
	// cross-site request defense admits besides its defaults (see
	// toolexec.RebindingProtection). The defense guards every route of every
	// surface: a request that arrived on a loopback address must name a
	// loopback host, and a browser's request must come from the server's
	// own origin.
	AllowedHosts, AllowedOrigins []string
}

// executor returns the Executor of p's tools, with more options before
// Options.Extra.
func (o Options) executor(p *Provider, more ...toolexec.Option) *toolexec.Executor {
	opts := []toolexec.Option{
		toolexec.WithAllowExecute(true),
		toolexec.WithValidation(true),
		toolexec.WithRebindingProtection(toolexec.RebindingProtection{
			AllowedHosts:   o.AllowedHosts,
			AllowedOrigins: o.AllowedOrigins,
		}),
	}
	if o.Logger != nil {
		opts = append(opts, toolexec.WithLogger(o.Logger))
	}
	switch {
	case o.OAuth != nil:
		opts = append(opts, toolexec.WithAuthHook(o.OAuth.AuthHook), toolexec.WithToolFilter(o.OAuth.FilterTools))
	case o.Token != "":
		opts = append(opts, toolexec.WithAuthHook(BearerAuth(o.Token)))
	}
	if o.Timeout > 0 {
		opts = append(opts, toolexec.WithTimeout(o.Timeout))
	}
	if o.MaxConcurrency > 0 {
		opts = append(opts, toolexec.WithConcurrencyLimit(toolexec.ConcurrencyLimit{Max: o.MaxConcurrency}))
	}
	if o.RateLimit.Rate > 0 {
		opts = append(opts, toolexec.WithRateLimit(o.RateLimit))
	}
	if o.MaxBodyBytes > 0 {
		opts = append(opts, toolexec.WithMaxBodyBytes(o.MaxBodyBytes))
	}
	if o.Store != nil {
		opts = append(opts, toolexec.WithStore(o.Store))
	}
	opts = append(opts, more...)
	opts = append(opts, o.Extra...)
	return toolexec.New(p, p, opts...)
}

// openAPI is how the REST surface mounted at mount+RESTPrefix (mount is ""
// or a toolset's /toolsets/NAME) describes itself at openapi.json: titled
// after the server, and the toolset when it is one. With OAuth, its server
// is its resource's public URL, calls need a token from the issuer (whose
// OpenID Connect Discovery document is named), and so do lists unless
// OAuthPublicList; otherwise the server URL is each request's own, and
// calls need a bearer token when Token is set.
func (o Options) openAPI(mount, toolset string) toolexec.OpenAPI {
	name, version := o.serverInfo()
	doc := toolexec.OpenAPI{Title: name + " tools", Version: version}
	if toolset != "" {
		doc.Title = name + " tools: toolset " + toolset
	}
	if o.OAuth != nil {
		resource := strings.TrimRight(o.OAuthBase, "/") + mount + RESTPrefix
		doc.ServerURL = resource
		if md, ok := o.OAuth.MetadataFor(resource); ok && len(md.AuthorizationServers) > 0 {
			doc.OpenIDConnectURL = strings.TrimRight(md.AuthorizationServers[0], "/") + "/.well-known/openid-configuration"
		}
		doc.GuardedDiscovery = !o.OAuthPublicList
	}
	return doc
}

// serverInfo is the MCP server's name and version.
func (o Options) serverInfo() (name, version string) {
	name, version = o.ServerName, o.ServerVersion
	if name == "" {
		name = "toolexec"
	}
	if version == "" {
		version = "0.0.0"
	}
	return name, version
}

// surfaces are the three handlers of one Executor.
type surfaces struct {
	x    *toolexec.Executor
	rest http.Handler
	mcp  http.Handler
	oxp  http.Handler
	// mcpOpen is mcp without the token check OAuth puts before every
	// request (the same handler without OAuth), for routes that check the
	// token themselves.
	mcpOpen http.Handler
}

// surfaces returns the surfaces of p's tools, mounted at mount ("" or a
// toolset's /toolsets/NAME), toolset being the toolset's name.
func (o Options) surfaces(p *Provider, mount, toolset string) *surfaces {
	x := o.executor(p, toolexec.WithOpenAPI(o.openAPI(mount, toolset)))
	name, version := o.serverInfo()
	var rest http.Handler = toolexec.NewHandler(x)
	if !o.NoExplorer {
		// The command exists to run tools: the page's Call button is on.
		rest = explorer.Wrap(x, rest, explorer.WithExecute(true),
			explorer.WithTitle(name+" tools"))
	}
	s := &surfaces{
		x:    x,
		rest: rest,
		mcp:  mcp.NewHandler(x, mcp.WithServerInfo(name, version)),
		oxp:  oxp.NewHandler(x),
	}
	s.mcpOpen = s.mcp
	if o.OAuth != nil && !o.OAuthPublicList {
		s.rest = requireToken(o.OAuth, s.rest, explorerPage, writeUnauthorized)
		s.mcp = requireToken(o.OAuth, s.mcp, nil, writeUnauthorized)
		s.oxp = requireToken(o.OAuth, s.oxp, oxpHealth, writeOXPUnauthenticated)
	}
	return s
}

func (s *surfaces) mount(mux *http.ServeMux, prefix string) {
	mux.Handle(prefix+RESTPrefix+"/", http.StripPrefix(prefix+RESTPrefix, s.rest))
	mux.Handle(prefix+OXPPrefix+"/", http.StripPrefix(prefix+OXPPrefix, s.oxp))
	// /mcp is the MCP endpoint; /mcp/tools/list and /mcp/tools/call are
	// the HandsAI-compatible routes of the same handler.
	mux.Handle(prefix+MCPPath, http.StripPrefix(prefix, s.mcp))
	mux.Handle(prefix+MCPPath+"/", http.StripPrefix(prefix, s.mcp))
}

// Handler serves every tool of p at /api (REST, with the explorer page at
// /api/ unless Options.NoExplorer), /mcp (MCP and the HandsAI routes) and
// /oxp (OXP 1.0). Each toolset NAME of the current config is served as
// mcp-toolbox serves it, at /mcp/NAME (MCP: that toolset's tools only, to
// list and to call, with the HandsAI routes /mcp/NAME/tools/list and
// /mcp/NAME/tools/call), and with all three surfaces at
// /toolsets/NAME/api, /toolsets/NAME/mcp and /toolsets/NAME/oxp. A name
// the current config does not define answers 404. It returns the handler
// and the Executor of the full tool set.
func Handler(p *Provider, o Options) (http.Handler, *toolexec.Executor) {
	if o.Store == nil {
		o.Store = toolexec.NewMemoryStore()
	}
	all := o.surfaces(p, "", "")
	// The surfaces run the DNS-rebinding defense on every request; the
	// routes that answer before any surface does (an unknown toolset) run
	// the same.
	guard := hostguard.New(o.AllowedHosts, o.AllowedOrigins)
	sets := &toolsets{p: p, o: o, guard: guard, built: map[string]*toolset{}, verifiers: map[string]*oauth.Verifier{}}
	mux := http.NewServeMux()
	mux.Handle(RESTPrefix+"/", http.StripPrefix(RESTPrefix, all.rest))
	mux.Handle(OXPPrefix+"/", http.StripPrefix(OXPPrefix, all.oxp))
	mux.Handle(MCPPath, all.mcp)
	// Below /mcp/: the HandsAI routes, part of the /mcp resource, and the
	// toolsets' MCP endpoints, each a resource of its own; each behind its
	// token check (see mcpRoutes).
	mux.Handle(MCPPath+"/", &mcpRoutes{all: all.mcpOpen, sets: sets, guard: guard})
	// mcp-toolbox's native API beside the REST surface (toolboxapi.go).
	native := newToolboxAPI(p, o, all.x, all.rest, guard)
	mux.Handle(toolboxToolsetPath, native)
	mux.Handle(toolboxToolsetPath+"/", native)
	mux.Handle(toolboxToolPath, native)
	// mcp-toolbox's health check, which container probes call by address
	// (hence no host check, as in toolbox): it says the process serves.
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, _ *http.Request) {
		writeJSON(w, http.StatusOK, map[string]string{"status": "ok"})
	})
	mux.Handle(ToolsetPrefix, sets)

	if o.OAuth != nil {
		// RFC 9728: where OAuth clients learn which authorization server
		// issues tokens for each endpoint, a toolset's included.
		mux.Handle("/.well-known/oauth-protected-resource", o.OAuth.Metadata())
		mux.Handle("/.well-known/oauth-protected-resource/", o.OAuth.Metadata())
		mux.Handle("/.well-known/oauth-protected-resource"+ToolsetPrefix, sets.metadata())
		// /mcp's own, exactly: without it the pattern below would redirect
		// it to /mcp/, which clients do not follow.
		mux.Handle("/.well-known/oauth-protected-resource"+MCPPath, o.OAuth.Metadata())
		mux.Handle("/.well-known/oauth-protected-resource"+MCPPath+"/", sets.mcpMetadata())
	}

	return mux, all.x
}

// toolsets serves /toolsets/NAME/...: one set of surfaces per toolset
// name, built on first use on a Provider view limited to that toolset,
// and shared with /mcp/NAME. A name the current config does not define
// answers 404.
type toolsets struct {
	p         *Provider
	o         Options
	guard     *hostguard.Guard
	mu        sync.Mutex
	built     map[string]*toolset
	verifiers map[string]*oauth.Verifier // with OAuth: each toolset's, by name
}

// toolset is what serves one toolset: its surfaces under /toolsets/NAME,
// and its MCP endpoint at /mcp/NAME (with OAuth, each a resource of its
// own; mcp is served behind the token check of mcpRoutes).
type toolset struct {
	mux *http.ServeMux
	mcp http.Handler
}

// get returns what serves the named toolset, building it on first use, or
// false when the current config does not define the toolset. It answers
// err when the toolset's endpoints cannot be protected.
func (t *toolsets) get(name string) (*toolset, bool, error) {
	if name == "" || !t.p.Current().HasToolset(name) {
		return nil, false, nil
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if ts, ok := t.built[name]; ok {
		return ts, true, nil
	}
	view := t.p.View(name)
	o := t.o
	if o.OAuth != nil {
		v, err := t.verifierLocked(name)
		if err != nil {
			return nil, false, err
		}
		o.OAuth = v
	}
	s := o.surfaces(view, ToolsetPrefix+name, name)
	ts := &toolset{mux: http.NewServeMux(), mcp: s.mcpOpen}
	s.mount(ts.mux, ToolsetPrefix+name)
	t.built[name] = ts
	return ts, true, nil
}

func (t *toolsets) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	rest := strings.TrimPrefix(r.URL.Path, ToolsetPrefix)
	name, _, _ := strings.Cut(rest, "/")
	ts, ok, err := t.get(name)
	if err != nil {
		t.o.logError("toolexec: cannot protect a toolset's endpoints", "toolset", name, "error", err)
		writeJSONError(w, http.StatusInternalServerError, "Internal server error")
		return
	}
	if !ok {
		if !t.guard.Allowed(r) {
			// What a toolset's surfaces answer such a request, so a page
			// cannot tell which toolsets exist.
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusForbidden)
			_, _ = w.Write([]byte(`{"error":"Forbidden: origin or host not allowed"}` + "\n"))
			return
		}
		http.NotFound(w, r)
		return
	}
	ts.mux.ServeHTTP(w, r)
}

// BearerAuth is the auth hook of a static token: a call passes when it
// carries "Authorization: Bearer TOKEN" or "X-HandsAI-Token: TOKEN"
// (compared in constant time). A refusal is answered by the library as
// 401 {"error":"Unauthorized"} with a WWW-Authenticate challenge whose
// error_description says a static token is expected, so that an MCP client
// does not go looking for an OAuth server the command does not have.
func BearerAuth(token string) toolexec.AuthHook {
	want := []byte(token)
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			got := r.Header.Get("X-HandsAI-Token")
			if got == "" {
				scheme, v, _ := strings.Cut(r.Header.Get("Authorization"), " ")
				if strings.EqualFold(scheme, "Bearer") {
					got = v
				}
			}
			if got == "" || subtle.ConstantTimeCompare([]byte(strings.TrimSpace(got)), want) != 1 {
				challenge := `Bearer realm="toolexec", `
				if got != "" {
					challenge += `error="invalid_token", `
				}
				toolexec.WriteChallenge(w, http.StatusUnauthorized, challenge+
					`error_description="this server takes a static bearer token (no OAuth): send Authorization: Bearer <token>"`)
				return
			}
			next.ServeHTTP(w, r)
		})
	}
}
