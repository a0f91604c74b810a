package oauth_test

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolexec/toolexec"
	"github.com/toolexec/toolexec/mcp"
	"github.com/toolexec/toolexec/oauth"
	"github.com/toolexec/toolexec/oxp"
)

// server mounts REST at /api, MCP at /mcp and OXP at /oxp behind one
// Verifier, with per-caller lists on, and the metadata at the well-known
// paths. Tools: echo (tools.call), secret (tools.admin), ping (no scope).
type server struct {
	mux  *http.ServeMux
	base string
	logs *bytes.Buffer
}

func newServer(t *testing.T, is *testIssuer) *server {
	t.Helper()
	base := "https://tools.example.com"
	logs := &bytes.Buffer{}
	logger := slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	v, err := oauth.NewVerifier(oauth.Config{
		Issuer:          is.srv.URL,
		Resources:       []string{base + "/api", base + "/mcp", base + "/oxp"},
		ScopesSupported: []string{"tools.call", "tools.admin"},
		Logger:          logger,
	})
	require.NoError(t, err)
	reg := &toolexec.Registry{}
	who := func(ctx context.Context, _ string, _ map[string]any) ([]toolexec.Content, bool, string, error) {
		id, _ := oauth.FromContext(ctx)
		return []toolexec.Content{toolexec.Text("hello " + id.Subject)}, false, "", nil
	}
	reg.MustAdd(toolexec.Tool{Name: "echo", Options: toolexec.ToolOptions{Scopes: []string{"tools.call"}}}, toolexec.ToolCallHandlerFunc(who))
	reg.MustAdd(toolexec.Tool{Name: "secret", Options: toolexec.ToolOptions{Scopes: []string{"tools.admin"}}}, toolexec.ToolCallHandlerFunc(who))
	reg.MustAdd(toolexec.Tool{Name: "ping"}, toolexec.ToolCallHandlerFunc(who))
	x := toolexec.New(reg, reg, toolexec.WithAllowExecute(true), toolexec.WithLogger(logger),
		toolexec.WithAuthHook(v.AuthHook), toolexec.WithToolFilter(v.FilterTools))
	mux := http.NewServeMux()
	mux.Handle("/api/", http.StripPrefix("/api", toolexec.NewHandler(x)))
	m := mcp.NewHandler(x)
	mux.Handle("/mcp", m)
	mux.Handle("/mcp/", m) // the HandsAI routes
	mux.Handle("/oxp/", http.StripPrefix("/oxp", oxp.NewHandler(x)))
	mux.Handle("/.well-known/oauth-protected-resource", v.Metadata())
	mux.Handle("/.well-known/oauth-protected-resource/", v.Metadata())
	return &server{mux: mux, base: base, logs: logs}
}

func (s *server) do(method, path, token, body string) *httptest.ResponseRecorder {
	r := httptest.NewRequest(method, s.base+path, strings.NewReader(body))
	r.Header.Set("Content-Type", "application/json")
	if token != "" {
		r.Header.Set("Authorization", "Bearer "+token)
	}
	w := httptest.NewRecorder()
	s.mux.ServeHTTP(w, r)
	return w
}

const mcpCall = `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"%s","arguments":{}}}`

func TestAuthHookChallengesOnEverySurface(t *testing.T) {
	is := newTestIssuer(t)
	k := newRSASigner(t, "k1")
	is.publish(k)
	s := newServer(t, is)
	tokenFor := func(res, scope string) string { return k.sign(t, is.claimsFor(s.base+res, scope)) }
	callers := map[string]struct {
		path string
		body func(tool string) string
	}{
		"/api": {"/api/tools/%s/call", func(string) string { return `{}` }},
		"/mcp": {"/mcp", func(tool string) string { return strings.Replace(mcpCall, "%s", tool, 1) }},
		"/oxp": {"/oxp/tools/call", func(tool string) string { return `{"tool_id":"Tools.` + tool + `"}` }},
	}
	for res, c := range callers {
		t.Run(res, func(t *testing.T) {
			path := func(tool string) string { return strings.Replace(c.path, "%s", tool, 1) }
			meta := `resource_metadata="` + s.base + "/.well-known/oauth-protected-resource" + res + `"`
			// OXP answers missing or refused credentials with 400 and its
			// Server Error Response, as its specification requires; the
			// challenge still tells the client where to authenticate.
			unauthorized := http.StatusUnauthorized
			if res == "/oxp" {
				unauthorized = http.StatusBadRequest
			}

			w := s.do(http.MethodPost, path("echo"), "", c.body("echo"))
			require.Equal(t, unauthorized, w.Code, w.Body.String())
			assert.Equal(t, `Bearer scope="tools.call tools.admin", `+meta, w.Header().Get("WWW-Authenticate"),
				"a 401 names the scopes supported, never the tool's own")
			if res == "/oxp" {
				assert.Contains(t, w.Body.String(), `"message":"Authentication is required"`)
			} else {
				assert.JSONEq(t, `{"error":"Unauthorized"}`, w.Body.String())
			}

			w = s.do(http.MethodPost, path("echo"), tokenFor("/other", "tools.call"), c.body("echo"))
			require.Equal(t, unauthorized, w.Code, "a token for another resource")
			assert.Equal(t, `Bearer error="invalid_token", scope="tools.call tools.admin", `+meta, w.Header().Get("WWW-Authenticate"))

			w = s.do(http.MethodPost, path("secret"), tokenFor(res, "tools.call"), c.body("secret"))
			require.Equal(t, http.StatusForbidden, w.Code, w.Body.String())
			assert.Equal(t, `Bearer error="insufficient_scope", scope="tools.admin tools.call", `+meta, w.Header().Get("WWW-Authenticate"))

			w = s.do(http.MethodPost, path("echo"), tokenFor(res, "tools.call"), c.body("echo"))
			require.Equal(t, http.StatusOK, w.Code, w.Body.String())
			assert.Contains(t, w.Body.String(), "hello alice", "the handler reads the identity")
		})
	}
	assert.NotContains(t, s.logs.String(), tokenFor("/api", "tools.call")[:40], "no token in the logs")
}

func TestAnAnonymousCallerCannotTellAHiddenToolFromAnUnknownOne(t *testing.T) {
	// secret needs tools.admin, so FilterTools hides it from anonymous
	// callers; calling it, or a tool that does not exist, gets the same
	// answer on every surface, with nothing of either tool in it.
	is := newTestIssuer(t)
	k := newRSASigner(t, "k1")
	is.publish(k)
	s := newServer(t, is)
	calls := map[string]func(tool string) (string, string){
		"REST":    func(tool string) (string, string) { return "/api/tools/" + tool + "/call", `{}` },
		"MCP":     func(tool string) (string, string) { return "/mcp", strings.Replace(mcpCall, "%s", tool, 1) },
		"HandsAI": func(tool string) (string, string) { return "/mcp/tools/call", strings.Replace(mcpCall, "%s", tool, 1) },
		"OXP":     func(tool string) (string, string) { return "/oxp/tools/call", `{"tool_id":"Tools.` + tool + `"}` },
	}
	for name, call := range calls {
		t.Run(name, func(t *testing.T) {
			path, body := call("secret")
			hidden := s.do(http.MethodPost, path, "", body)
			path, body = call("no-such-tool")
			unknown := s.do(http.MethodPost, path, "", body)
			assert.Equal(t, hidden.Code, unknown.Code)
			assert.Contains(t, []int{http.StatusUnauthorized, http.StatusBadRequest}, hidden.Code)
			assert.Equal(t, hidden.Header().Get("WWW-Authenticate"), unknown.Header().Get("WWW-Authenticate"))
			assert.NotContains(t, hidden.Header().Get("WWW-Authenticate"), "tools.admin tools.call", "not the tool's own scopes")
			assert.Equal(t, hidden.Body.String(), unknown.Body.String())
			assert.NotContains(t, unknown.Body.String(), "no-such-tool")

			// With a token, the unknown tool is unknown and the hidden one
			// asks for the scope it needs.
			token := k.sign(t, is.claimsFor(s.base+map[string]string{"REST": "/api", "MCP": "/mcp", "HandsAI": "/mcp", "OXP": "/oxp"}[name], "tools.call"))
			path, body = call("secret")
			assert.Equal(t, http.StatusForbidden, s.do(http.MethodPost, path, token, body).Code)
			path, body = call("no-such-tool")
			w := s.do(http.MethodPost, path, token, body)
			assert.NotEqual(t, http.StatusForbidden, w.Code)
			assert.NotEqual(t, http.StatusUnauthorized, w.Code)
		})
	}
}

func TestAuthHookForbiddenBodies(t *testing.T) {
	is := newTestIssuer(t)
	k := newRSASigner(t, "k1")
	is.publish(k)
	s := newServer(t, is)
	w := s.do(http.MethodPost, "/api/tools/secret/call", k.sign(t, is.claimsFor(s.base+"/api", "tools.call")), `{}`)
	assert.JSONEq(t, `{"error":"Forbidden"}`, w.Body.String())
	w = s.do(http.MethodPost, "/mcp", k.sign(t, is.claimsFor(s.base+"/mcp", "tools.call")), strings.Replace(mcpCall, "%s", "secret", 1))
	assert.JSONEq(t, `{"jsonrpc":"2.0","id":1,"error":{"code":-32012,"message":"Forbidden"}}`, w.Body.String())
	w = s.do(http.MethodPost, "/oxp/tools/call", k.sign(t, is.claimsFor(s.base+"/oxp", "tools.call")), `{"tool_id":"Tools.secret"}`)
	var body struct{ Message string }
	require.NoError(t, json.Unmarshal(w.Body.Bytes(), &body))
	assert.Equal(t, "Forbidden", body.Message)
}

func TestFilterToolsShowsOnlyCallableTools(t *testing.T) {
	is := newTestIssuer(t)
	k := newRSASigner(t, "k1")
	is.publish(k)
	s := newServer(t, is)
	names := func(w *httptest.ResponseRecorder, pick func([]byte) []string) []string { return pick(w.Body.Bytes()) }
	rest := func(b []byte) []string {
		var l []struct{ Name string }
		_ = json.Unmarshal(b, &l)
		out := []string{}
		for _, t := range l {
			out = append(out, t.Name)
		}
		return out
	}
	mcpNames := func(b []byte) []string {
		var l struct {
			Result struct{ Tools []struct{ Name string } }
		}
		_ = json.Unmarshal(b, &l)
		out := []string{}
		for _, t := range l.Result.Tools {
			out = append(out, t.Name)
		}
		return out
	}
	oxpNames := func(b []byte) []string {
		var l struct{ Items []struct{ Name string } }
		_ = json.Unmarshal(b, &l)
		out := []string{}
		for _, t := range l.Items {
			out = append(out, t.Name)
		}
		return out
	}
	list := `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`
	for _, c := range []struct {
		who, scope string
		want       []string
	}{
		{"anonymous", "", []string{"ping"}},
		{"caller", "tools.call", []string{"echo", "ping"}},
		{"admin", "tools.call tools.admin", []string{"echo", "secret", "ping"}},
	} {
		tok := func(res string) string {
			if c.who == "anonymous" {
				return ""
			}
			return k.sign(t, is.claimsFor(s.base+res, c.scope))
		}
		assert.Equal(t, c.want, names(s.do(http.MethodGet, "/api/tools", tok("/api"), ""), rest), c.who)
		assert.Equal(t, c.want, names(s.do(http.MethodPost, "/mcp", tok("/mcp"), list), mcpNames), c.who)
		want := []string{}
		for _, n := range c.want {
			want = append(want, "Tools_"+n)
		}
		assert.Equal(t, want, names(s.do(http.MethodGet, "/oxp/tools", tok("/oxp"), ""), oxpNames), c.who)
	}
	assert.Equal(t, http.StatusNotFound, s.do(http.MethodGet, "/api/tools/secret", "", "").Code, "a hidden tool is unknown")
	bad := k.sign(t, is.claimsFor("https://elsewhere.example.com", "tools.admin"))
	assert.Equal(t, []string{"ping"}, names(s.do(http.MethodGet, "/api/tools", bad, ""), rest), "a refused token lists as anonymous")
}

func TestMetadataServesEveryResource(t *testing.T) {
	is := newTestIssuer(t)
	s := newServer(t, is)
	for _, res := range []string{"/api", "/mcp", "/oxp"} {
		w := s.do(http.MethodGet, "/.well-known/oauth-protected-resource"+res, "", "")
		require.Equal(t, http.StatusOK, w.Code)
		assert.JSONEq(t, `{"resource":"`+s.base+res+`","authorization_servers":["`+is.srv.URL+`"],
			"scopes_supported":["tools.call","tools.admin"],"bearer_methods_supported":["header"]}`, w.Body.String())
		assert.Equal(t, "*", w.Header().Get("Access-Control-Allow-Origin"))
	}
	assert.Equal(t, http.StatusNotFound, s.do(http.MethodGet, "/.well-known/oauth-protected-resource", "", "").Code,
		"no resource at the origin")
	assert.Equal(t, http.StatusNotFound, s.do(http.MethodGet, "/.well-known/oauth-protected-resource/nope", "", "").Code)
	assert.Equal(t, http.StatusMethodNotAllowed, s.do(http.MethodPost, "/.well-known/oauth-protected-resource/mcp", "", "").Code)
}

// TestCachedResultsStayWithTheirCaller: the read-through cache keys on the
// verified caller, so a result cached for one subject is never served to
// another, even for the same tool and arguments.
func TestCachedResultsStayWithTheirCaller(t *testing.T) {
	is := newTestIssuer(t)
	k := newRSASigner(t, "k1")
	is.publish(k)
	v, err := oauth.NewVerifier(oauth.Config{Issuer: is.srv.URL, Resources: []string{"https://tools.example.com/api"}})
	require.NoError(t, err)
	runs := 0
	reg := &toolexec.Registry{}
	reg.MustAdd(toolexec.Tool{Name: "whoami", Options: toolexec.ToolOptions{Cache: true}},
		toolexec.ToolCallHandlerFunc(func(ctx context.Context, _ string, _ map[string]any) ([]toolexec.Content, bool, string, error) {
			runs++
			id, _ := oauth.FromContext(ctx)
			return []toolexec.Content{toolexec.Text(id.Subject)}, false, "", nil
		}))
	x := toolexec.New(reg, reg, toolexec.WithAllowExecute(true), toolexec.WithAuthHook(v.AuthHook),
		toolexec.WithCache(toolexec.NewMemoryCache(16)))
	h := toolexec.NewHandler(x)
	call := func(sub string) string {
		claims := is.claimsFor("https://tools.example.com/api", "tools.call")
		claims["sub"] = sub
		r := httptest.NewRequest(http.MethodPost, "https://tools.example.com/api/tools/whoami/call", strings.NewReader(`{}`))
		r.URL.Path = "/tools/whoami/call"
		r.Header.Set("Authorization", "Bearer "+k.sign(t, claims))
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		require.Equal(t, http.StatusOK, w.Code, w.Body.String())
		var res struct{ Content []struct{ Text string } }
		require.NoError(t, json.Unmarshal(w.Body.Bytes(), &res))
		require.Len(t, res.Content, 1)
		return res.Content[0].Text
	}
	assert.Equal(t, "alice", call("alice"))
	assert.Equal(t, "alice", call("alice"))
	assert.Equal(t, 1, runs, "the same caller is served from the cache")
	assert.Equal(t, "bob", call("bob"), "another caller never gets alice's result")
	assert.Equal(t, 2, runs)
}
