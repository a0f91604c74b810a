package toolexec_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolexec/toolexec"
	"github.com/toolexec/toolexec/explorer"
	"github.com/toolexec/toolexec/mcp"
	"github.com/toolexec/toolexec/oxp"
)

// rebindingServer serves every surface of an Executor built with opts on a
// loopback server (the explorer wrapping REST at /api), with one tool that
// counts its runs.
func rebindingServer(t *testing.T, runs *atomic.Int32, opts ...toolexec.Option) *httptest.Server {
	t.Helper()
	reg := toolexec.NewRegistry()
	reg.MustAdd(toolexec.Tool{Name: "echo", Description: "echoes"},
		func(context.Context, string, map[string]any) ([]toolexec.Content, bool, string, error) {
			runs.Add(1)
			return []toolexec.Content{toolexec.Text("ran")}, false, "", nil
		})
	x := toolexec.New(reg, reg, append([]toolexec.Option{toolexec.WithAllowExecute(true)}, opts...)...)
	mux := http.NewServeMux()
	mux.Handle("/api/", http.StripPrefix("/api", explorer.Wrap(x, toolexec.NewHandler(x), explorer.WithExecute(true))))
	m := mcp.NewHandler(x)
	mux.Handle("/mcp", m)
	mux.Handle("/mcp/", m)
	mux.Handle("/oxp/", http.StripPrefix("/oxp", oxp.NewHandler(x)))
	srv := httptest.NewServer(mux) // listens on 127.0.0.1
	t.Cleanup(srv.Close)
	return srv
}

// rebindingRoute is one route a rebinding page would aim at.
type rebindingRoute struct {
	name, method, path, contentType, body string
	runs                                  bool // a request that passes runs the tool
}

var rebindingRoutes = []rebindingRoute{
	{"REST list", http.MethodGet, "/api/tools", "", "", false},
	{"REST call", http.MethodPost, "/api/tools/echo/call", "text/plain", `{}`, true},
	{"REST validate", http.MethodPost, "/api/tools/echo/validate", "text/plain", `{}`, false},
	{"explorer page", http.MethodGet, "/api/", "", "", false},
	{"explorer tools", http.MethodGet, "/api/_explorer/tools", "", "", false},
	{"OXP list", http.MethodGet, "/oxp/tools", "", "", false},
	{"OXP call", http.MethodPost, "/oxp/tools/call", "text/plain", `{"tool_id":"Tools.echo"}`, true},
	{"OXP health", http.MethodGet, "/oxp/health", "", "", false},
	{"MCP", http.MethodPost, "/mcp", "application/json", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{}}}`, true},
	{"HandsAI list", http.MethodGet, "/mcp/tools/list", "", "", false},
	{"HandsAI call", http.MethodPost, "/mcp/tools/call", "application/json", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{}}}`, true},
}

// send sends rt to srv with the given Host ("" keeps the listener's) and
// Origin ("" sends none), and returns the status and body.
func (rt rebindingRoute) send(t *testing.T, srv *httptest.Server, host, origin string) (int, string) {
	t.Helper()
	req, err := http.NewRequest(rt.method, srv.URL+rt.path, strings.NewReader(rt.body))
	require.NoError(t, err)
	if rt.contentType != "" {
		req.Header.Set("Content-Type", rt.contentType)
	}
	if host != "" {
		req.Host = host
	}
	if origin != "" {
		req.Header.Set("Origin", origin)
	}
	res, err := srv.Client().Do(req)
	require.NoError(t, err)
	defer res.Body.Close()
	body, err := io.ReadAll(res.Body)
	require.NoError(t, err)
	return res.StatusCode, string(body)
}

func TestRebindingProtectionGuardsEverySurface(t *testing.T) {
	var runs atomic.Int32
	srv := rebindingServer(t, &runs, toolexec.WithRebindingProtection(toolexec.RebindingProtection{}))
	own := strings.TrimPrefix(srv.URL, "http://")
	for _, rt := range rebindingRoutes {
		t.Run(rt.name, func(t *testing.T) {
			before := runs.Load()
			// A rebinding page: its own name, resolved to 127.0.0.1, in
			// Host and in Origin.
			status, body := rt.send(t, srv, "evil.example:80", "http://evil.example")
			assert.Equal(t, http.StatusForbidden, status, body)
			assert.Contains(t, body, "Forbidden")
			assert.NotContains(t, body, "echo", "nothing about the tools is answered")
			// A cross-site simple request to the right Host: text/plain,
			// from another origin.
			status, body = rt.send(t, srv, "", "http://evil.example")
			assert.Equal(t, http.StatusForbidden, status, body)
			assert.Equal(t, before, runs.Load(), "a refused request runs nothing")

			// The machine's own clients are served.
			for _, ok := range []struct{ host, origin string }{{"", ""}, {"localhost:1234", ""}, {own, "http://" + own}} {
				status, body = rt.send(t, srv, ok.host, ok.origin)
				assert.Less(t, status, 300, "host %q origin %q: %s", ok.host, ok.origin, body)
			}
			if rt.runs {
				assert.Equal(t, before+3, runs.Load())
			}
		})
	}
}

func TestRebindingProtectionListsAdmitAProxyNameAndAnOrigin(t *testing.T) {
	var runs atomic.Int32
	srv := rebindingServer(t, &runs, toolexec.WithRebindingProtection(toolexec.RebindingProtection{
		AllowedHosts:   []string{"tools.example.com"},
		AllowedOrigins: []string{"https://app.example.com"},
	}))
	for _, rt := range rebindingRoutes {
		t.Run(rt.name, func(t *testing.T) {
			status, body := rt.send(t, srv, "tools.example.com", "https://app.example.com")
			assert.Less(t, status, 300, body)
			status, _ = rt.send(t, srv, "localhost", "")
			assert.Equal(t, http.StatusForbidden, status, "a host list replaces the loopback default")
			status, _ = rt.send(t, srv, "tools.example.com", "https://other.example.com")
			assert.Equal(t, http.StatusForbidden, status)
		})
	}
}

func TestWithoutRebindingProtectionRESTAndOXPAnswerAnyHost(t *testing.T) {
	// The default of REST, OXP and the explorer (documented): a public API
	// called cross-origin keeps working; MCP keeps its own default defense.
	var runs atomic.Int32
	srv := rebindingServer(t, &runs)
	for _, rt := range rebindingRoutes {
		status, body := rt.send(t, srv, "evil.example", "http://evil.example")
		if strings.HasPrefix(rt.name, "MCP") || strings.HasPrefix(rt.name, "HandsAI") {
			assert.Equal(t, http.StatusForbidden, status, rt.name)
			continue
		}
		assert.Less(t, status, 300, "%s: %s", rt.name, body)
	}
}

func TestSurfaceKitReportsTheRebindingProtection(t *testing.T) {
	reg := toolexec.NewRegistry()
	_, on := toolexec.New(reg, reg).SurfaceKit().RebindingProtection()
	assert.False(t, on)
	hosts := []string{"a.example"}
	x := toolexec.New(reg, reg, toolexec.WithRebindingProtection(toolexec.RebindingProtection{AllowedHosts: hosts}))
	hosts[0] = "changed"
	p, on := x.SurfaceKit().RebindingProtection()
	require.True(t, on)
	assert.Equal(t, []string{"a.example"}, p.AllowedHosts, "the option keeps its own copy")
}
