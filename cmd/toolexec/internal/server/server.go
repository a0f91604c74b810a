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
	// MaxBodyBytes bounds request bodies (0: the library's default).
	MaxBodyBytes int64
	// Logger receives the server's logs (nil: discarded).
	Logger *slog.Logger
	// Extra are further Executor options (telemetry, interceptors).
	Extra []toolexec.Option
	// ServerName and ServerVersion are the MCP server info.
	ServerName, ServerVersion string
	// OAuth, when set, verifies OAuth 2.1 bearer tokens on every call
	// (with the tools' scopes) and filters every tool list to what the
	// caller may call; the protected resource metadata is served at
	// /.well-known/oauth-protected-resource. It replaces Token.
	OAuth *oauth.Verifier
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

func (o Options) executor(p *Provider) *toolexec.Executor {
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
	if o.MaxBodyBytes > 0 {
		opts = append(opts, toolexec.WithMaxBodyBytes(o.MaxBodyBytes))
	}
	opts = append(opts, o.Extra...)
	return toolexec.New(p, p, opts...)
}

// surfaces are the three handlers of one Executor.
type surfaces struct {
	x    *toolexec.Executor
	rest http.Handler
	mcp  http.Handler
	oxp  http.Handler
}

func (o Options) surfaces(p *Provider) *surfaces {
	x := o.executor(p)
	name, version := o.ServerName, o.ServerVersion
	if name == "" {
		name = "toolexec"
	}
	if version == "" {
		version = "0.0.0"
	}
	var rest http.Handler = toolexec.NewHandler(x)
	if !o.NoExplorer {
		// The command exists to run tools: the page's Call button is on.
		rest = explorer.Wrap(x, rest, explorer.WithExecute(true),
			explorer.WithTitle(name+" tools"))
	}
	return &surfaces{
		x:    x,
		rest: rest,
		mcp:  mcp.NewHandler(x, mcp.WithServerInfo(name, version)),
		oxp:  oxp.NewHandler(x),
	}
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
// /oxp (OXP 1.0), and each toolset NAME of the current config
// at /toolsets/NAME/api, /toolsets/NAME/mcp and /toolsets/NAME/oxp.
// It returns the handler and the Executor of the full tool set.
func Handler(p *Provider, o Options) (http.Handler, *toolexec.Executor) {
	all := o.surfaces(p)
	mux := http.NewServeMux()
	all.mount(mux, "")
	mux.Handle(ToolsetPrefix, &toolsets{p: p, o: o, built: map[string]http.Handler{}})

	if o.OAuth != nil {
		// RFC 9728: where OAuth clients learn which authorization server
		// issues tokens for each endpoint.
		mux.Handle("/.well-known/oauth-protected-resource", o.OAuth.Metadata())
		mux.Handle("/.well-known/oauth-protected-resource/", o.OAuth.Metadata())
	}

	return mux, all.x
}

// toolsets serves /toolsets/NAME/...: one set of surfaces per toolset
// name, built on first use on a Provider view limited to that toolset.
// A name the current config does not define answers 404.
type toolsets struct {
	p     *Provider
	o     Options
	mu    sync.Mutex
	built map[string]http.Handler
}

func (t *toolsets) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	rest := strings.TrimPrefix(r.URL.Path, ToolsetPrefix)
	name, _, _ := strings.Cut(rest, "/")
	if name == "" || !t.p.Current().HasToolset(name) {
		http.NotFound(w, r)
		return
	}
	t.mu.Lock()
	h, ok := t.built[name]
	if !ok {
		mux := http.NewServeMux()
		t.o.surfaces(t.p.View(name)).mount(mux, ToolsetPrefix+name)
		h = mux
		t.built[name] = h
	}
	t.mu.Unlock()
	h.ServeHTTP(w, r)
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
