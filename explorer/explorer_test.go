package explorer_test

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"

	"github.com/go-chi/chi/v5"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolexec/toolexec"
	"github.com/toolexec/toolexec/explorer"
)

func newExecutor(t *testing.T, opts ...toolexec.Option) *toolexec.Executor {
	t.Helper()
	reg := toolexec.NewRegistry()
	reg.MustAdd(toolexec.Tool{
		Name:        "text/upper",
		Title:       "Upper case",
		Version:     "1.2.0",
		Description: "Returns the text in upper case.",
		InputSchema: json.RawMessage(`{"type":"object","properties":{"text":{"type":"string"}},"required":["text"]}`),
	}, func(_ string, args map[string]any) ([]toolexec.Content, bool, string, error) {
		return []toolexec.Content{toolexec.Text(strings.ToUpper(args["text"].(string)))}, false, "", nil
	})
	return toolexec.New(reg, reg, opts...)
}

func allowAll(next http.Handler) http.Handler { return next }

// pageConfig extracts the JSON configuration block of the page.
func pageConfig(t *testing.T, body string) map[string]any {
	t.Helper()
	m := regexp.MustCompile(`<script type="application/json" id="explorer-config">([^<]*)</script>`).FindStringSubmatch(body)
	require.NotNil(t, m, "the page has its configuration block")
	var cfg map[string]any
	require.NoError(t, json.Unmarshal([]byte(m[1]), &cfg))
	return cfg
}

func get(t *testing.T, h http.Handler, method, path string) *httptest.ResponseRecorder {
	t.Helper()
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(method, path, nil))
	return rec
}

func TestPageHeaders(t *testing.T) {
	x := newExecutor(t)
	rec := get(t, explorer.Wrap(x, toolexec.NewHandler(x)), http.MethodGet, "/")
	require.Equal(t, http.StatusOK, rec.Code)
	h := rec.Header()
	assert.Equal(t, "text/html; charset=utf-8", h.Get("Content-Type"))
	assert.Equal(t, "nosniff", h.Get("X-Content-Type-Options"))
	assert.Equal(t, "no-referrer", h.Get("Referrer-Policy"))
	csp := h.Get("Content-Security-Policy")
	for _, d := range []string{"default-src 'none'", "connect-src 'self'", "img-src data:", "base-uri 'none'", "form-action 'none'", "frame-ancestors 'none'"} {
		assert.Contains(t, csp, d)
	}
	assert.Regexp(t, `script-src 'sha256-[A-Za-z0-9+/]+=*'(;|$)`, csp, "scripts only by hash")
	assert.Regexp(t, `style-src 'sha256-[A-Za-z0-9+/]+=*'(;|$)`, csp, "styles only by hash")
	assert.NotContains(t, csp, "unsafe-inline")
	assert.NotContains(t, csp, "http")

	body := rec.Body.String()
	assert.Contains(t, body, "<title>MCP Tool Explorer</title>")
	assert.NotRegexp(t, `(?i)\son[a-z]+\s*=`, body, "no inline event handlers")
	assert.NotRegexp(t, `(?i)(src|href)\s*=\s*"https?:`, body, "nothing from another host")
}

// The hashes in the policy are those of the page's own inline script and
// style, so the browser runs exactly them.
func TestPolicyHashesMatchThePage(t *testing.T) {
	x := newExecutor(t)
	rec := get(t, explorer.Wrap(x, toolexec.NewHandler(x)), http.MethodGet, "/")
	body, csp := rec.Body.String(), rec.Header().Get("Content-Security-Policy")
	script := regexp.MustCompile(`(?s)<script>(.*?)</script>`).FindStringSubmatch(body)
	style := regexp.MustCompile(`(?s)<style>(.*?)</style>`).FindStringSubmatch(body)
	require.NotNil(t, script)
	require.NotNil(t, style)
	assert.Contains(t, csp, "script-src "+sha256Source(script[1]))
	assert.Contains(t, csp, "style-src "+sha256Source(style[1]))
}

func TestConfigReflectsOptions(t *testing.T) {
	tests := []struct {
		name   string
		xopts  []toolexec.Option
		opts   []explorer.Option
		want   map[string]any
		reason string
	}{
		{
			name:   "defaults: gate closed",
			want:   map[string]any{"title": "MCP Tool Explorer", "execute": false, "auth": false},
			reason: "execution gate is closed",
		},
		{
			name:   "gate open, page switch off by default",
			xopts:  []toolexec.Option{toolexec.WithAllowExecute(true)},
			want:   map[string]any{"execute": false},
			reason: "explorer.WithExecute",
		},
		{
			name:   "page switch on, gate closed",
			opts:   []explorer.Option{explorer.WithExecute(true)},
			want:   map[string]any{"execute": false},
			reason: "execution gate is closed",
		},
		{
			name:  "both on, with an auth hook",
			xopts: []toolexec.Option{toolexec.WithAllowExecute(true), toolexec.WithAuthHook(allowAll)},
			opts:  []explorer.Option{explorer.WithExecute(true), explorer.WithTitle("Acme tools"), explorer.WithProjectLink("Acme docs", "https://acme.example/docs")},
			want:  map[string]any{"execute": true, "auth": true, "title": "Acme tools", "projectLabel": "Acme docs", "projectUrl": "https://acme.example/docs"},
		},
		{
			name:   "the OpenAPI document linked by default",
			want:   map[string]any{"openapi": "openapi.json"},
			reason: "execution gate is closed",
		},
		{
			name:   "not when the REST handler serves none",
			xopts:  []toolexec.Option{toolexec.WithOpenAPI(toolexec.OpenAPI{Disabled: true})},
			want:   map[string]any{"openapi": nil},
			reason: "execution gate is closed",
		},
		{
			name:   "MCP off by default",
			want:   map[string]any{"mcp": nil, "outputPath": "_explorer/output"},
			reason: "execution gate is closed",
		},
		{
			name:   "MCP on an absolute path",
			opts:   []explorer.Option{explorer.WithMCP("/mcp")},
			want:   map[string]any{"mcp": "/mcp"},
			reason: "execution gate is closed",
		},
		{
			name:   "MCP on a relative path",
			opts:   []explorer.Option{explorer.WithMCP("../mcp")},
			want:   map[string]any{"mcp": "../mcp"},
			reason: "execution gate is closed",
		},
		{
			name:   "MCP on another host is ignored",
			opts:   []explorer.Option{explorer.WithMCP("https://evil.example/mcp")},
			want:   map[string]any{"mcp": nil},
			reason: "execution gate is closed",
		},
		{
			name:   "MCP on a scheme-relative URL is ignored",
			opts:   []explorer.Option{explorer.WithMCP("//evil.example/mcp")},
			want:   map[string]any{"mcp": nil},
			reason: "execution gate is closed",
		},
		{
			name:   "MCP on a javascript: URL is ignored",
			opts:   []explorer.Option{explorer.WithMCP("javascript:alert(1)")},
			want:   map[string]any{"mcp": nil},
			reason: "execution gate is closed",
		},
		{
			name:   "MCP with a control character is ignored",
			opts:   []explorer.Option{explorer.WithMCP("/mcp\n")},
			want:   map[string]any{"mcp": nil},
			reason: "execution gate is closed",
		},
		{
			name:   "an empty MCP path turns it off",
			opts:   []explorer.Option{explorer.WithMCP("/mcp"), explorer.WithMCP("")},
			want:   map[string]any{"mcp": nil},
			reason: "execution gate is closed",
		},
		{
			name:   "an unsafe project link is left out",
			opts:   []explorer.Option{explorer.WithProjectLink("x", "javascript:alert(1)")},
			want:   map[string]any{"projectUrl": nil, "projectLabel": nil},
			reason: "execution gate is closed",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			x := newExecutor(t, tt.xopts...)
			rec := get(t, explorer.Wrap(x, toolexec.NewHandler(x), tt.opts...), http.MethodGet, "/")
			cfg := pageConfig(t, rec.Body.String())
			for k, v := range tt.want {
				assert.Equal(t, v, cfg[k], k)
			}
			if tt.reason == "" {
				assert.Nil(t, cfg["executeReason"])
			} else {
				assert.Contains(t, cfg["executeReason"], tt.reason)
			}
		})
	}
}

func TestTitleIsEscaped(t *testing.T) {
	x := newExecutor(t)
	title := `</script><script>alert(1)</script>{{CONFIG}}`
	rec := get(t, explorer.Wrap(x, toolexec.NewHandler(x), explorer.WithTitle(title)), http.MethodGet, "/")
	body := rec.Body.String()
	assert.Equal(t, 2, strings.Count(body, "<script"), "only the config block and the page's script")
	assert.Contains(t, body, "<title>&lt;/script&gt;&lt;script&gt;alert(1)&lt;/script&gt;{{CONFIG}}</title>")
	assert.Equal(t, title, pageConfig(t, body)["title"], "the title reaches the script intact")
}

func TestPageLeftOut(t *testing.T) {
	x := newExecutor(t)
	rest := toolexec.NewHandler(x)
	h := explorer.Wrap(x, rest, explorer.WithPage(false))
	rec := get(t, h, http.MethodGet, "/")
	assert.Equal(t, http.StatusNotFound, rec.Code)
	assert.Equal(t, "application/json", rec.Header().Get("Content-Type"))
	assert.Equal(t, http.StatusNotFound, get(t, h, http.MethodGet, "/_explorer/tools").Code)
}

func TestRESTPassesThrough(t *testing.T) {
	x := newExecutor(t)
	h := explorer.Wrap(x, toolexec.NewHandler(x))
	rec := get(t, h, http.MethodGet, "/tools")
	require.Equal(t, http.StatusOK, rec.Code)
	assert.JSONEq(t, `[{"name":"text/upper","description":"Returns the text in upper case."}]`, rec.Body.String())
	rec = get(t, h, http.MethodGet, "/tools/text%2Fupper")
	assert.Equal(t, http.StatusOK, rec.Code)
}

func TestMethods(t *testing.T) {
	x := newExecutor(t)
	h := explorer.Wrap(x, toolexec.NewHandler(x))

	head := get(t, h, http.MethodHead, "/")
	assert.Equal(t, http.StatusOK, head.Code)
	assert.Empty(t, head.Body.String())
	assert.NotEmpty(t, head.Header().Get("Content-Length"))
	assert.NotEmpty(t, head.Header().Get("Content-Security-Policy"))

	for _, m := range []string{http.MethodPost, http.MethodPut, http.MethodDelete, http.MethodOptions} {
		rec := get(t, h, m, "/")
		assert.Equal(t, http.StatusMethodNotAllowed, rec.Code, m)
		assert.Equal(t, "GET, HEAD", rec.Header().Get("Allow"), m)
		assert.JSONEq(t, `{"error":"Method not allowed"}`, rec.Body.String(), m)
	}
	assert.Equal(t, http.StatusMethodNotAllowed, get(t, h, http.MethodPost, "/_explorer/tools").Code)
}

func TestToolMeta(t *testing.T) {
	x := newExecutor(t)
	rec := get(t, explorer.Wrap(x, toolexec.NewHandler(x)), http.MethodGet, "/_explorer/tools")
	require.Equal(t, http.StatusOK, rec.Code)
	assert.Equal(t, "application/json", rec.Header().Get("Content-Type"))
	assert.JSONEq(t, `[{"name":"text/upper","title":"Upper case","version":"1.2.0"}]`, rec.Body.String())
}

// TestToolMetaFollowsPerCallerLists: the page's own summary shows a caller
// exactly what the REST list shows it.
func TestToolMetaFollowsPerCallerLists(t *testing.T) {
	hideAll := func(r *http.Request, tools []toolexec.Tool) []toolexec.Tool {
		if r.Header.Get("Authorization") == "Bearer ok" {
			return tools
		}
		return nil
	}
	x := newExecutor(t, toolexec.WithToolFilter(hideAll))
	h := explorer.Wrap(x, toolexec.NewHandler(x))

	rec := get(t, h, http.MethodGet, "/_explorer/tools")
	require.Equal(t, http.StatusOK, rec.Code)
	assert.JSONEq(t, `[]`, rec.Body.String(), "an anonymous caller sees no tool")

	req := httptest.NewRequest(http.MethodGet, "/_explorer/tools", nil)
	req.Header.Set("Authorization", "Bearer ok")
	rec = httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	require.Equal(t, http.StatusOK, rec.Code)
	assert.JSONEq(t, `[{"name":"text/upper","title":"Upper case","version":"1.2.0"}]`, rec.Body.String())
}

func TestUnderAPrefix(t *testing.T) {
	x := newExecutor(t)
	h := explorer.Wrap(x, toolexec.NewHandler(x))

	mux := http.NewServeMux()
	mux.Handle("/api/", http.StripPrefix("/api", h))
	r := chi.NewRouter()
	r.Mount("/tools-ui", h)

	for _, tc := range []struct {
		name    string
		handler http.Handler
		prefix  string
	}{{"ServeMux", mux, "/api"}, {"chi", r, "/tools-ui"}} {
		t.Run(tc.name, func(t *testing.T) {
			srv := httptest.NewServer(tc.handler)
			defer srv.Close()
			paths := map[string]string{
				tc.prefix + "/":                "text/html; charset=utf-8",
				tc.prefix + "/tools":           "application/json",
				tc.prefix + "/_explorer/tools": "application/json",
			}
			if tc.name == "chi" {
				paths[tc.prefix] = "text/html; charset=utf-8" // chi mounts the bare prefix too
			}
			for path, want := range paths {
				res, err := http.Get(srv.URL + path)
				require.NoError(t, err)
				_, _ = io.Copy(io.Discard, res.Body)
				_ = res.Body.Close()
				assert.Equal(t, http.StatusOK, res.StatusCode, path)
				assert.Equal(t, want, res.Header.Get("Content-Type"), path)
			}
		})
	}
}

func TestWrapNilPanics(t *testing.T) {
	x := newExecutor(t)
	assert.Panics(t, func() { explorer.Wrap(nil, toolexec.NewHandler(x)) })
	assert.Panics(t, func() { explorer.Wrap(x, nil) })
}
