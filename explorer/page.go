package explorer

import (
	"crypto/sha256"
	"embed"
	"encoding/base64"
	"encoding/json"
	"html"
	"net/http"
	"strconv"
	"strings"

	"github.com/toolexec/toolexec"
)

//go:embed assets/index.html assets/explorer.css assets/explorer.js
var assets embed.FS

// pageConfig is what the page's script learns about the server, embedded
// in the document as a JSON data block.
type pageConfig struct {
	Title         string `json:"title"`
	ProjectLabel  string `json:"projectLabel,omitempty"`
	ProjectURL    string `json:"projectUrl,omitempty"`
	Execute       bool   `json:"execute"`
	ExecuteReason string `json:"executeReason,omitempty"`
	Auth          bool   `json:"auth"`
	MetaPath      string `json:"metaPath"`
	OutputPath    string `json:"outputPath"`
	// MCP is the MCP endpoint the page calls through (WithMCP); "" for
	// REST only.
	MCP string `json:"mcp,omitempty"`
	// OpenAPI is the REST API's OpenAPI document, relative to the page;
	// "" when the REST handler serves none (toolexec.OpenAPI).
	OpenAPI string `json:"openapi,omitempty"`
}

// The reasons the page shows when its Call button is disabled.
const (
	reasonGateClosed = "Calls are disabled on this server: its execution gate is closed (toolexec.WithAllowExecute)."
	reasonPageOff    = "Calls from this page are turned off by the host (explorer.WithExecute). Validate still works."
)

func pageConfigFor(x *toolexec.Executor, c *config) pageConfig {
	pc := pageConfig{
		Title:        c.title,
		ProjectLabel: c.projectLabel,
		ProjectURL:   c.projectURL,
		Auth:         x.SurfaceKit().AuthConfigured(),
		MetaPath:     metaPath[1:],
		OutputPath:   outputPath[1:],
		MCP:          c.mcp,
	}
	if x.SurfaceKit().OpenAPIServed() {
		pc.OpenAPI = "openapi.json"
	}
	switch {
	case !x.SurfaceKit().ExecutionAllowed():
		pc.ExecuteReason = reasonGateClosed
	case !c.execute:
		pc.ExecuteReason = reasonPageOff
	default:
		pc.Execute = true
	}
	return pc
}

// page is the rendered document and the headers it is served with.
type page struct {
	body []byte
	csp  string
}

// buildPage fills the embedded template: the title (escaped), the
// configuration (JSON, whose encoder escapes <, > and &, so it cannot close
// its script element), the style and the script, each allowed by its hash.
func buildPage(pc pageConfig) page {
	tmpl := mustRead("assets/index.html")
	css := mustRead("assets/explorer.css")
	js := mustRead("assets/explorer.js")
	cfg, err := json.Marshal(pc)
	if err != nil {
		panic("explorer: encoding the page configuration: " + err.Error()) // cannot happen: strings and bools
	}
	// One pass, so nothing a value holds is read as a marker.
	body := []byte(strings.NewReplacer(
		"{{TITLE}}", html.EscapeString(pc.Title),
		"{{CONFIG}}", string(cfg),
		"{{STYLE}}", string(css),
		"{{SCRIPT}}", string(js),
	).Replace(string(tmpl)))
	csp := "default-src 'none'" +
		"; script-src " + hashSource(js) +
		"; style-src " + hashSource(css) +
		"; img-src data:; media-src data:; connect-src 'self'" +
		"; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
	return page{body: body, csp: csp}
}

func (p *page) serve(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Content-Security-Policy", p.csp)
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("Cache-Control", "no-cache")
	h.Set("Content-Length", strconv.Itoa(len(p.body)))
	w.WriteHeader(http.StatusOK)
	if r.Method != http.MethodHead {
		_, _ = w.Write(p.body)
	}
}

func hashSource(b []byte) string {
	sum := sha256.Sum256(b)
	return "'sha256-" + base64.StdEncoding.EncodeToString(sum[:]) + "'"
}

func mustRead(name string) []byte {
	b, err := assets.ReadFile(name)
	if err != nil {
		panic("explorer: embedded asset missing: " + name) // cannot happen: embedded at build time
	}
	return b
}
