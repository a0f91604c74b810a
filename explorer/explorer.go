package explorer

import (
	"net/http"
	"net/url"
	"strings"

	"github.com/go-chi/chi/v5"

	"github.com/toolexec/toolexec"
	"github.com/toolexec/toolexec/internal/hostguard"
	"github.com/toolexec/toolexec/internal/httpjson"
	"github.com/toolexec/toolexec/internal/schema"
)

// DefaultTitle is the page's title unless WithTitle says otherwise.
const DefaultTitle = "MCP Tool Explorer"

// metaPath is the page's own endpoint, relative to the mount: each tool's
// title and version, which the REST list does not carry.
const metaPath = "/_explorer/tools"

// outputPath is the page's output check, relative to the mount: POST a
// result's structuredContent to outputPath?tool=NAME and get it checked
// against the tool's output schema.
const outputPath = "/_explorer/output"

// Option configures the explorer page; the With functions of this package
// make them.
type Option interface{ apply(*config) }

// optionFunc is an Option that is a function of the page's configuration.
type optionFunc func(*config)

func (f optionFunc) apply(c *config) { f(c) }

type config struct {
	title        string
	projectLabel string
	projectURL   string
	execute      bool
	omit         bool
	mcp          string
}

// WithTitle sets the page's title, shown in its header and the browser tab.
// An empty title keeps DefaultTitle. The title is text: it is escaped, never
// interpreted as HTML.
func WithTitle(title string) Option {
	return optionFunc(func(c *config) {
		if title != "" {
			c.title = title
		}
	})
}

// WithProjectLink adds a link to the host's project (its documentation, its
// repository) to the page's header, showing label. Only http and https
// URLs, or paths on the same server, are accepted: any other href (such as
// a javascript: URL) leaves the link out. An empty label shows the URL.
func WithProjectLink(label, href string) Option {
	return optionFunc(func(c *config) {
		if !safeLink(href) {
			c.projectLabel, c.projectURL = "", ""
			return
		}
		if label == "" {
			label = href
		}
		c.projectLabel, c.projectURL = label, href
	})
}

// WithExecute turns the page's Call button on (true) or off (false, the
// default). It is independent of the Executor's own gate: the button works
// only when both this switch and toolexec.WithAllowExecute are on, and the
// page names the one that is off. It shapes the page only; it does not stop
// anyone from calling the REST endpoints directly.
func WithExecute(on bool) Option {
	return optionFunc(func(c *config) { c.execute = on })
}

// WithMCP makes the page run its calls through the MCP endpoint at path
// (Streamable HTTP, protocol 2026-07-28), as an MCP client does: a tool's
// progress shows as a live bar, its log messages beside the result, Cancel
// closes the call's stream (which cancels the tool's context), and a tool
// that asks for input (elicitation) gets a form in the page whose answer
// resumes the call. The page can still call over REST instead.
//
// path is where the host mounts the mcp package's handler on the same
// server, absolute ("/mcp") or relative to the page ("../mcp"); the page
// connects to its own origin only. A path with a scheme or a host, or with
// control characters or backslashes, is ignored, and so is "": the page
// then calls over REST only, as it does without this option. WithMCP
// shapes the page only: the MCP endpoint answers whoever calls it.
func WithMCP(path string) Option {
	return optionFunc(func(c *config) {
		if !samePath(path) {
			c.mcp = ""
			return
		}
		c.mcp = path
	})
}

// WithPage keeps (true, the default) or leaves out (false) the page. With
// the page left out, Wrap returns the REST handler itself, so a host can
// keep one mounting line and switch the page off by configuration.
func WithPage(on bool) Option {
	return optionFunc(func(c *config) { c.omit = !on })
}

// Wrap returns a handler that serves the explorer page at rest's root and
// passes every other request to rest, the REST surface of x
// (toolexec.NewHandler(x)). Mount the result where rest would be mounted:
//
//	GET  /                 the page (HEAD too); any other method: 405
//	GET  /_explorer/tools  the page's own data: each tool's title and version
//	POST /_explorer/output?tool=NAME
//	                       the page's output check: the body (a result's
//	                       structuredContent) checked against the tool's
//	                       output schema, never running the tool
//	anything else          rest
//
// The page's responses carry a Content-Security-Policy that allows its own
// inline script and style by hash and nothing from another host, along
// with X-Content-Type-Options: nosniff and Referrer-Policy: no-referrer.
//
// x supplies what the page shows about the server: whether the execution
// gate is open (toolexec.WithAllowExecute) and whether calls need a token
// (toolexec.WithAuthHook). With WithPage(false), Wrap returns rest. With
// the Executor's toolexec.WithRebindingProtection, the page and its
// endpoint refuse a request that fails the Host or Origin check with 403,
// as rest does.
//
// Wrap panics if x or rest is nil, as http.ServeMux.Handle panics on a nil
// handler: both are programming errors found on the first run.
func Wrap(x *toolexec.Executor, rest http.Handler, opts ...Option) http.Handler {
	if x == nil || rest == nil {
		panic("explorer: Wrap: nil Executor or REST handler")
	}
	c := config{title: DefaultTitle}
	for _, opt := range opts {
		opt.apply(&c)
	}
	if c.omit {
		return rest
	}
	p := buildPage(pageConfigFor(x, &c))
	h := &handler{x: x, rest: rest, page: p}
	h.schemas.Live = h.liveTools
	if rp, ok := x.SurfaceKit().RebindingProtection(); ok {
		h.guard = hostguard.New(rp.AllowedHosts, rp.AllowedOrigins)
	}
	return h
}

type handler struct {
	x    *toolexec.Executor
	rest http.Handler
	page page
	// schemas holds the output schemas the output check compiled.
	schemas schema.Cache
	// guard is the Executor's rebinding protection
	// (toolexec.WithRebindingProtection); nil when it is off. rest applies
	// it to its own routes.
	guard *hostguard.Guard
}

func (h *handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	switch relativePath(r) {
	case "", "/":
		if !h.allowed(w, r) || !readMethod(w, r) {
			return
		}
		h.page.serve(w, r)
	case metaPath:
		if !h.allowed(w, r) || !readMethod(w, r) {
			return
		}
		h.serveMeta(w, r)
	case outputPath:
		if !h.allowed(w, r) {
			return
		}
		if r.Method != http.MethodPost {
			w.Header().Set("Allow", "POST")
			httpjson.Write(w, http.StatusMethodNotAllowed, map[string]string{"error": "Method not allowed"})
			return
		}
		h.checkOutput(w, r)
	default:
		h.rest.ServeHTTP(w, r)
	}
}

// toolMeta is one entry of the page's own endpoint.
type toolMeta struct {
	Name    string `json:"name"`
	Title   string `json:"title,omitempty"`
	Version string `json:"version,omitempty"`
}

func (h *handler) serveMeta(w http.ResponseWriter, r *http.Request) {
	tools := h.x.SurfaceKit().VisibleTools(r, h.x.SurfaceKit().LatestTools())
	out := make([]toolMeta, 0, len(tools))
	for i := range tools {
		t := &tools[i]
		title := t.Title
		if title == "" && t.Annotations != nil {
			title = t.Annotations.Title
		}
		out = append(out, toolMeta{Name: t.Name, Title: title, Version: t.Version})
	}
	w.Header().Set("Cache-Control", "no-store")
	if r.Method == http.MethodHead {
		httpjson.SetHeaders(w.Header())
		w.WriteHeader(http.StatusOK)
		return
	}
	httpjson.Write(w, http.StatusOK, out)
}

// readMethod answers 405 to anything but GET and HEAD, and reports whether
// the request may go on.
func readMethod(w http.ResponseWriter, r *http.Request) bool {
	if r.Method == http.MethodGet || r.Method == http.MethodHead {
		return true
	}
	w.Header().Set("Allow", "GET, HEAD")
	httpjson.Write(w, http.StatusMethodNotAllowed, map[string]string{"error": "Method not allowed"})
	return false
}

// allowed applies the rebinding protection to a request for the page or
// its endpoint, answering 403 when it refuses, and reports whether the
// request may go on.
func (h *handler) allowed(w http.ResponseWriter, r *http.Request) bool {
	if h.guard == nil || h.guard.Allowed(r) {
		return true
	}
	h.x.SurfaceKit().Logger().WarnContext(r.Context(), "explorer: request refused by the host/origin check",
		"host", r.Host, "origin", r.Header.Get("Origin"))
	httpjson.Write(w, http.StatusForbidden, map[string]string{"error": "Forbidden: origin or host not allowed"})
	return false
}

// relativePath is the request's path below the mount: chi's route path when
// chi mounted the handler, else the (already stripped) URL path.
func relativePath(r *http.Request) string {
	if rctx := chi.RouteContext(r.Context()); rctx != nil && rctx.RoutePath != "" {
		return rctx.RoutePath
	}
	return r.URL.Path
}

// samePath accepts a path on the same server, absolute or relative: a URL
// reference with no scheme and no host.
func samePath(p string) bool {
	if p == "" || strings.ContainsAny(p, "\x00\r\n\t\\") || strings.HasPrefix(p, "//") {
		return false
	}
	for _, r := range p {
		if r < 0x20 || r == 0x7f {
			return false
		}
	}
	u, err := url.Parse(p)
	return err == nil && u.Scheme == "" && u.Host == "" && u.User == nil
}

// safeLink accepts absolute http(s) URLs and paths on the same server.
func safeLink(href string) bool {
	if href == "" || strings.ContainsAny(href, "\x00\r\n\t\\") || strings.HasPrefix(href, "//") {
		return false
	}
	u, err := url.Parse(href)
	if err != nil {
		return false
	}
	switch strings.ToLower(u.Scheme) {
	case "http", "https":
		return u.Host != ""
	case "":
		return u.Host == ""
	}
	return false
}
