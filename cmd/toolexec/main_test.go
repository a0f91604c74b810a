package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolexec/toolexec"
)

const e2eTools = `
sources:
  db:
    kind: sqlite
    database: shop.db
    init: schema.sql
tools:
  find:
    kind: sqlite-sql
    source: db
    description: Find an item by id.
    parameters:
      - {name: id, type: integer, description: The id.}
    statement: SELECT id, name FROM items WHERE id = ?
toolsets:
  public: [find]
`

const e2eSchema = `CREATE TABLE items (id INTEGER PRIMARY KEY, name TEXT);
INSERT INTO items VALUES (1, 'apple'), (2, 'pear');`

// startServer runs `toolexec serve` on a free port with a token and
// returns its base URL; the server stops at the end of the test.
func startServer(t *testing.T) string {
	base, _ := startServerIn(t, t.TempDir())
	return base
}

// startServerIn is startServer with the files in dir; it also returns the
// tools file's path.
func startServerIn(t *testing.T, dir string) (string, string) {
	return startServerWith(t, dir, e2eTools, map[string]string{"TOOLEXEC_TOKEN": "tok"})
}

// startServerWith runs `toolexec serve` on tools (a tools file) in dir,
// with env as its environment and extra flags.
func startServerWith(t *testing.T, dir, tools string, env map[string]string, flags ...string) (string, string) {
	require.NoError(t, os.WriteFile(filepath.Join(dir, "tools.yaml"), []byte(tools), 0o600))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "schema.sql"), []byte(e2eSchema), 0o600))
	ctx, cancel := context.WithCancel(context.Background())
	ready := make(chan net.Addr, 1)
	done := make(chan int, 1)
	getenv := func(k string) (string, bool) {
		v, ok := env[k]
		return v, ok
	}
	var out, errOut bytes.Buffer
	args := append([]string{"--config", filepath.Join(dir, "tools.yaml"), "--addr", "127.0.0.1:0", "--reload-interval", "20ms"}, flags...)
	go func() {
		done <- serve(ctx, args, getenv, nil, &out, &errOut, ready)
	}()
	var addr net.Addr
	select {
	case addr = <-ready:
	case code := <-done:
		t.Fatalf("serve exited %d: %s", code, errOut.String())
	}
	t.Cleanup(func() {
		cancel()
		assert.Equal(t, 0, <-done)
		if t.Failed() {
			t.Logf("server log:\n%s", errOut.String())
		}
	})
	return "http://" + addr.String(), filepath.Join(dir, "tools.yaml")
}

func post(t *testing.T, url, body string, headers ...string) (int, map[string]any) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	var m map[string]any
	require.NoError(t, json.Unmarshal(b, &m), string(b))
	return resp.StatusCode, m
}

func TestServe_EndToEndOverEverySurface(t *testing.T) {
	base := startServer(t)
	auth := []string{"Authorization", "Bearer tok"}

	// REST
	resp, err := http.Get(base + "/api/tools/find")
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, http.StatusOK, resp.StatusCode, "discovery needs no token")
	code, body := post(t, base+"/api/tools/find/call", `{"id": 2}`)
	assert.Equal(t, http.StatusUnauthorized, code)
	assert.Equal(t, map[string]any{"error": "Unauthorized"}, body)
	code, body = post(t, base+"/api/tools/find/call", `{"id": 2}`, auth...)
	require.Equal(t, http.StatusOK, code, body)
	assert.Equal(t, []any{map[string]any{"id": float64(2), "name": "pear"}}, body["structuredContent"].(map[string]any)["rows"])
	code, _ = post(t, base+"/api/tools/find/call", `{"id": "2 OR 1=1"}`, auth...)
	assert.Equal(t, http.StatusUnprocessableEntity, code, "wrong types are refused before SQL")

	// MCP (JSON-RPC)
	_, body = post(t, base+"/mcp", `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)
	tools := body["result"].(map[string]any)["tools"].([]any)
	require.Len(t, tools, 1)
	assert.Equal(t, "find", tools[0].(map[string]any)["name"])
	_, body = post(t, base+"/mcp", `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"find","arguments":{"id":1}}}`, auth...)
	result := body["result"].(map[string]any)
	assert.Equal(t, false, result["isError"])
	assert.Equal(t, "apple", result["structuredContent"].(map[string]any)["rows"].([]any)[0].(map[string]any)["name"])
	// HandsAI route of the same handler.
	_, body = post(t, base+"/mcp/tools/call", `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"find","arguments":{"id":1}}}`, auth...)
	assert.NotNil(t, body["result"], body)

	// OXP
	code, body = post(t, base+"/oxp/tools/call", `{"tool_id":"Tools.find","input":{"id":1}}`, auth...)
	require.Equal(t, http.StatusOK, code, body)
	assert.Equal(t, true, body["success"])
	assert.Equal(t, "apple", body["value"].(map[string]any)["rows"].([]any)[0].(map[string]any)["name"])

	// A toolset has its own surfaces.
	code, body = post(t, base+"/toolsets/public/api/tools/find/call", `{"id": 1}`, auth...)
	assert.Equal(t, http.StatusOK, code, body)
	resp, err = http.Get(base + "/toolsets/nope/api/tools")
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, http.StatusNotFound, resp.StatusCode)
}

func TestServe_RefusesPublicAddressWithoutToken(t *testing.T) {
	var out, errOut bytes.Buffer
	code := serve(context.Background(), []string{"--config", "x.yaml", "--addr", "0.0.0.0:0"}, func(string) (string, bool) { return "", false }, nil, &out, &errOut, nil)
	assert.Equal(t, 2, code)
	assert.Contains(t, errOut.String(), "without a token")
}

func TestValidate_ReportsLinesAndExitCode(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "tools.yaml")
	require.NoError(t, os.WriteFile(path, []byte("sources:\n  db:\n    kind: sqlite\n    database: x.db\ntools:\n  t:\n    kind: sqlite-sql\n    source: db\n    statement: SELECT 1\n    maxRows: lots\n"), 0o600))
	var out, errOut bytes.Buffer
	code := run(context.Background(), []string{"validate", "--config", path}, func(string) (string, bool) { return "", false }, nil, &out, &errOut)
	assert.Equal(t, 1, code)
	assert.Contains(t, errOut.String(), path+":6:3: tool \"t\" needs a description")
	assert.Contains(t, errOut.String(), path+":10:14: tool \"t\" maxRows must be a non-negative integer")

	require.NoError(t, os.WriteFile(path, []byte(e2eTools), 0o600))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "schema.sql"), []byte(e2eSchema), 0o600))
	out.Reset()
	errOut.Reset()
	code = run(context.Background(), []string{"validate", "--config", path}, nil, nil, &out, &errOut)
	assert.Equal(t, 0, code, errOut.String())
	assert.Contains(t, out.String(), "ok (1 sources, 1 tools, 1 toolsets)")
}

func TestServe_ExampleFileIsValid(t *testing.T) {
	var out, errOut bytes.Buffer
	code := run(context.Background(), []string{"validate", "--config", "../../examples/declarative/tools.yaml"}, func(string) (string, bool) { return "", false }, nil, &out, &errOut)
	assert.Equal(t, 0, code, errOut.String())
}

func TestTelemetry_ConsoleSpansWhenAsked(t *testing.T) {
	var out bytes.Buffer
	env := func(k string) (string, bool) {
		if k == "OTEL_TRACES_EXPORTER" {
			return "console", true
		}
		return "", false
	}
	opts, desc, shutdown, err := telemetry(context.Background(), env, &out)
	require.NoError(t, err)
	require.Len(t, opts, 1, "one observer")
	assert.Contains(t, desc, "traces (console)")
	reg := toolexec.NewRegistry()
	reg.MustAdd(toolexec.Tool{Name: "hello"}, func(string, map[string]any) ([]toolexec.Content, bool, string, error) {
		return []toolexec.Content{toolexec.Text("hi")}, false, "", nil
	})
	x := toolexec.New(reg, reg, append(opts, toolexec.WithAllowExecute(true))...)
	_, err = x.Call(context.Background(), toolexec.CallRequest{Name: "hello"})
	require.NoError(t, err)
	require.NoError(t, shutdown(context.Background()))
	assert.Contains(t, out.String(), `"Name":"execute_tool hello"`, "the call's span reaches the console exporter")

	opts, desc, _, err = telemetry(context.Background(), func(string) (string, bool) { return "", false }, &out)
	require.NoError(t, err)
	assert.Empty(t, opts, "off unless asked")
	assert.Empty(t, desc)

	_, _, _, err = telemetry(context.Background(), func(k string) (string, bool) { return "zipkin", k == "OTEL_METRICS_EXPORTER" }, &out)
	assert.Error(t, err)
}

func TestServe_ReloadsTheFile(t *testing.T) {
	base, path := startServerIn(t, t.TempDir())
	updated := strings.Replace(e2eTools, "  find:\n", "  lookup:\n", 1)
	updated = strings.Replace(updated, "public: [find]", "public: [lookup]", 1)
	require.NoError(t, os.WriteFile(path, []byte(updated), 0o600))
	require.Eventually(t, func() bool {
		code, _ := post(t, base+"/api/tools/lookup/call", `{"id": 1}`, "Authorization", "Bearer tok")
		return code == http.StatusOK
	}, 10*time.Second, 20*time.Millisecond, "the renamed tool is served")
	resp, err := http.Get(base + "/api/tools/find")
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, http.StatusNotFound, resp.StatusCode, "the old one is gone")

	// A broken file is ignored: the tools keep serving.
	require.NoError(t, os.WriteFile(path, []byte("tools: [\n"), 0o600))
	time.Sleep(100 * time.Millisecond)
	code, _ := post(t, base+"/api/tools/lookup/call", `{"id": 1}`, "Authorization", "Bearer tok")
	assert.Equal(t, http.StatusOK, code)
}

func get(t *testing.T, url string) (*http.Response, string) {
	t.Helper()
	resp, err := http.Get(url)
	require.NoError(t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return resp, string(b)
}

func TestServe_ExplorerPageAtTheRESTRoot(t *testing.T) {
	base := startServer(t)
	resp, body := get(t, base+"/api/")
	require.Equal(t, http.StatusOK, resp.StatusCode)
	assert.Contains(t, resp.Header.Get("Content-Type"), "text/html")
	assert.Contains(t, resp.Header.Get("Content-Security-Policy"), "default-src 'none'")
	assert.Contains(t, body, "toolexec tools", "the page is titled after the server")

	base, _ = startServerWith(t, t.TempDir(), e2eTools, map[string]string{"TOOLEXEC_TOKEN": "tok"}, "--no-explorer")
	resp, _ = get(t, base+"/api/")
	assert.NotEqual(t, http.StatusOK, resp.StatusCode, "--no-explorer leaves the page out")
	resp, _ = get(t, base+"/api/tools")
	assert.Equal(t, http.StatusOK, resp.StatusCode, "the REST API stays")
}

var oauthTools = strings.Replace(e2eTools, "toolsets:", `  admin:
    kind: sqlite-sql
    source: db
    description: Counts the items.
    statement: SELECT count(*) AS n FROM items
    scopes: [tools.admin]
toolsets:`, 1)

// TestServe_OAuthProtectsEveryEndpoint: with --oauth-issuer and
// --oauth-public-list, a call without a token is challenged with where to
// get one, the protected resource metadata names the issuer for each
// endpoint, and an anonymous caller's lists hold only the tools that need
// no scope. (Tokens are tested in oauth_test.go, and against real tokens in
// package oauth and examples/oauth.)
func TestServe_OAuthProtectsEveryEndpoint(t *testing.T) {
	const issuer = "http://127.0.0.1:1/issuer" // never asked: no token reaches the verifier
	base, _ := startServerWith(t, t.TempDir(), oauthTools, nil,
		"--oauth-issuer", issuer, "--oauth-resource", "https://tools.example.com/", "--oauth-scopes", "tools.call, tools.admin",
		"--oauth-public-list")

	code, body := post(t, base+"/api/tools/find/call", `{"id":1}`)
	assert.Equal(t, http.StatusUnauthorized, code, body)
	req, err := http.NewRequest(http.MethodPost, base+"/mcp", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"find","arguments":{"id":1}}}`))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, http.StatusUnauthorized, resp.StatusCode)
	assert.Contains(t, resp.Header.Get("WWW-Authenticate"),
		`resource_metadata="https://tools.example.com/.well-known/oauth-protected-resource/mcp"`)

	resp, meta := get(t, base+"/.well-known/oauth-protected-resource/mcp")
	require.Equal(t, http.StatusOK, resp.StatusCode, meta)
	var doc struct {
		Resource             string   `json:"resource"`
		AuthorizationServers []string `json:"authorization_servers"`
		ScopesSupported      []string `json:"scopes_supported"`
	}
	require.NoError(t, json.Unmarshal([]byte(meta), &doc))
	assert.Equal(t, "https://tools.example.com/mcp", doc.Resource)
	assert.Equal(t, []string{issuer}, doc.AuthorizationServers)
	assert.Equal(t, []string{"tools.call", "tools.admin"}, doc.ScopesSupported)

	_, list := get(t, base+"/api/tools")
	assert.Contains(t, list, `"find"`)
	assert.NotContains(t, list, `"admin"`, "an anonymous caller does not see a tool that needs a scope")
}

func TestOAuthFlagsCheck(t *testing.T) {
	cases := []struct {
		name  string
		args  []string
		token string
		err   string
	}{
		{"off", nil, "", ""},
		{"on", []string{"--oauth-issuer", "https://id.example.com", "--oauth-resource", "https://tools.example.com"}, "", ""},
		{"resource without issuer", []string{"--oauth-resource", "https://tools.example.com"}, "", "--oauth-resource: need --oauth-issuer"},
		{"scope claim without issuer", []string{"--oauth-scope-claim", "groups"}, "", "--oauth-scope-claim: need --oauth-issuer"},
		{"issuer without resource", []string{"--oauth-issuer", "https://id.example.com"}, "", "needs --oauth-resource"},
		{"issuer and a static token", []string{"--oauth-issuer", "https://id.example.com", "--oauth-resource", "https://tools.example.com"}, "tok", "exclusive"},
		{"audience without client", []string{"--oauth-issuer", "https://id.example.com", "--oauth-resource", "https://tools.example.com",
			"--oauth-audience", "api-app"}, "", "--oauth-audience needs --oauth-client"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			fs := flag.NewFlagSet("serve", flag.ContinueOnError)
			var o oauthFlags
			o.register(fs)
			require.NoError(t, fs.Parse(c.args))
			err := o.check(c.token)
			if c.err != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), c.err)
				return
			}
			require.NoError(t, err)
		})
	}
}

// TestServe_ReloadNotifiesMCPListeners: an MCP client listening for tool
// changes (2026-07-28's subscriptions/listen) is told when the tools file
// changes.
func TestServe_ReloadNotifiesMCPListeners(t *testing.T) {
	base, path := startServerIn(t, t.TempDir())
	const meta = `{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}`
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, base+"/mcp", strings.NewReader(
		`{"jsonrpc":"2.0","id":"l1","method":"subscriptions/listen","params":{"notifications":{"toolsListChanged":true},"_meta":`+meta+`}}`))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("MCP-Protocol-Version", "2026-07-28")
	req.Header.Set("Mcp-Method", "subscriptions/listen")
	req.Header.Set("Authorization", "Bearer tok") // a listen stream needs what a call needs
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode)
	require.Contains(t, resp.Header.Get("Content-Type"), "text/event-stream")

	lines := make(chan string, 16)
	go func() {
		defer close(lines)
		buf := make([]byte, 4096)
		var pending string
		for {
			n, err := resp.Body.Read(buf)
			pending += string(buf[:n])
			for {
				i := strings.Index(pending, "\n")
				if i < 0 {
					break
				}
				lines <- pending[:i]
				pending = pending[i+1:]
			}
			if err != nil {
				return
			}
		}
	}()
	next := func() string {
		for l := range lines {
			if v, ok := strings.CutPrefix(l, "data: "); ok {
				return v
			}
		}
		t.Fatal("the stream ended")
		return ""
	}
	assert.Contains(t, next(), "notifications/subscriptions/acknowledged")

	updated := strings.Replace(e2eTools, "  find:\n", "  lookup:\n", 1)
	updated = strings.Replace(updated, "public: [find]", "public: [lookup]", 1)
	require.NoError(t, os.WriteFile(path, []byte(updated), 0o600))
	assert.Contains(t, next(), "notifications/tools/list_changed", "the reload reaches the listener")
}
