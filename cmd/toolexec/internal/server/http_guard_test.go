package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolexec/toolexec/cmd/toolexec/internal/config"
	"github.com/toolexec/toolexec/cmd/toolexec/internal/httptool"
)

// hit is what a test upstream saw of one request.
type hit struct {
	path, query, auth, apiKey, toolKey, referer string
}

// recordingServer is a loopback upstream that records every request and
// every connection; handle answers it.
type recordingServer struct {
	srv   *httptest.Server
	mu    sync.Mutex
	hits  []hit
	conns atomic.Int32
}

func newRecordingServer(t *testing.T, handle func(w http.ResponseWriter, r *http.Request)) *recordingServer {
	t.Helper()
	rs := &recordingServer{}
	rs.srv = httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rs.mu.Lock()
		rs.hits = append(rs.hits, hit{
			path: r.URL.Path, query: r.URL.RawQuery, auth: r.Header.Get("Authorization"),
			apiKey: r.Header.Get("X-Api-Key"), toolKey: r.Header.Get("X-Tool-Key"), referer: r.Header.Get("Referer"),
		})
		rs.mu.Unlock()
		handle(w, r)
	}))
	rs.srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			rs.conns.Add(1)
		}
	}
	rs.srv.Start()
	t.Cleanup(rs.srv.Close)
	return rs
}

func (rs *recordingServer) seen() []hit {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	return append([]hit(nil), rs.hits...)
}

func (rs *recordingServer) port() string {
	_, p, _ := net.SplitHostPort(rs.srv.Listener.Addr().String())
	return p
}

// served serves set over the command's handler (REST, MCP, OXP) on a
// loopback test server.
func served(t *testing.T, set *Set) *httptest.Server {
	t.Helper()
	h, _ := Handler(NewProvider(set), Options{})
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv
}

// restCall calls tool over REST and returns the status and decoded body.
func restCall(t *testing.T, srv *httptest.Server, tool string, args any) (int, map[string]any) {
	t.Helper()
	b, err := json.Marshal(args)
	require.NoError(t, err)
	resp, err := http.Post(srv.URL+RESTPrefix+"/tools/"+tool+"/call", "application/json", strings.NewReader(string(b)))
	require.NoError(t, err)
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	var m map[string]any
	require.NoError(t, json.Unmarshal(body, &m), string(body))
	return resp.StatusCode, m
}

// mcpCall calls tool over MCP and returns the JSON-RPC result.
func mcpCall(t *testing.T, srv *httptest.Server, tool string, args any) map[string]any {
	t.Helper()
	b, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": map[string]any{"name": tool, "arguments": args}})
	require.NoError(t, err)
	req, err := http.NewRequest(http.MethodPost, srv.URL+MCPPath, strings.NewReader(string(b)))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	var m map[string]any
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&m))
	res, ok := m["result"].(map[string]any)
	require.True(t, ok, "%v", m)
	return res
}

// mcpText is the text of an MCP tool result.
func mcpText(res map[string]any) string {
	var sb strings.Builder
	content, _ := res["content"].([]any)
	for _, c := range content {
		if m, ok := c.(map[string]any); ok {
			s, _ := m["text"].(string)
			sb.WriteString(s)
		}
	}
	return sb.String()
}

// buildFile parses tools (with env) and builds its Set with the http
// source options.
func buildFile(t *testing.T, tools string, env map[string]string, opts ...httptool.SourceOption) (*Set, error) {
	t.Helper()
	cfg, err := config.Parse([]byte(tools), "tools.yaml", t.TempDir(), func(k string) (string, bool) { v, ok := env[k]; return v, ok })
	require.NoError(t, err)
	set, err := buildWith(context.Background(), cfg, nil, opts...)
	if set != nil {
		t.Cleanup(func() { _ = set.Close() })
	}
	return set, err
}

const guardSecret = "s3cr3t-api-key-value"

// redirectTools is an http source on base with secrets in a header, a
// tool header and a query parameter, and tools that follow the given
// redirects.
func redirectTools(base string, allowed ...string) string {
	hosts := ""
	if len(allowed) > 0 {
		hosts = "    allowedHosts: [" + strings.Join(allowed, ", ") + "]\n"
	}
	return fmt.Sprintf(`
sources:
  api:
    kind: http
    baseUrl: %s
    headers:
      Authorization: Bearer ${KEY}
      X-Api-Key: ${KEY}
    queryParams:
      key: ${KEY}
%s
tools:
  go:
    kind: http
    source: api
    method: GET
    path: /start
    description: follows the upstream's redirect
    headers:
      X-Tool-Key: ${KEY}
  post:
    kind: http
    source: api
    method: POST
    path: /start-307
    description: posts, and is redirected with 307
    bodyParams:
      - {name: v, type: string, description: v}
`, base, hosts)
}

func TestHTTP_RedirectToAnotherPortIsRefused(t *testing.T) {
	other := newRecordingServer(t, func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, "stolen") })
	home := newRecordingServer(t, func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "http://127.0.0.1:"+other.port()+"/grab", http.StatusFound)
	})
	set, err := buildFile(t, redirectTools(home.srv.URL), map[string]string{"KEY": guardSecret})
	require.NoError(t, err)
	srv := served(t, set)

	code, body := restCall(t, srv, "go", map[string]any{})
	assert.Equal(t, http.StatusInternalServerError, code, "REST's status of a tool error")
	assert.Equal(t, true, body["isError"], body)
	assert.Contains(t, fmt.Sprint(body["content"]), "not allowed")

	res := mcpCall(t, srv, "go", map[string]any{})
	assert.Equal(t, true, res["isError"])
	assert.Contains(t, mcpText(res), "host that is not allowed")
	assert.NotContains(t, mcpText(res), guardSecret)

	assert.Empty(t, other.seen(), "the same host on another port is another origin, outside the list")
	assert.Zero(t, other.conns.Load())
}

func TestHTTP_RedirectToAnotherOriginDropsTheSecrets(t *testing.T) {
	var home *recordingServer
	other := newRecordingServer(t, func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/bounce" {
			// Back to the source's origin: the request stays stripped.
			http.Redirect(w, r, home.srv.URL+"/final?key=x&tenant=t", http.StatusFound)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"ok": true}`)
	})
	home = newRecordingServer(t, func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/start":
			// The upstream echoes the query, secret included, into the
			// other origin's URL.
			http.Redirect(w, r, "http://localhost:"+other.port()+"/landing?"+r.URL.RawQuery+"&page=2", http.StatusFound)
		case "/start-307":
			http.Redirect(w, r, "http://localhost:"+other.port()+"/landing", http.StatusTemporaryRedirect)
		case "/loop":
			http.Redirect(w, r, "http://localhost:"+other.port()+"/bounce", http.StatusFound)
		default:
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprint(w, `{"final": true}`)
		}
	})
	tools := redirectTools(home.srv.URL, "127.0.0.1", "localhost:"+other.port()) + `
  loop: {kind: http, source: api, method: GET, path: /loop, description: leaves and comes back}
`
	set, err := buildFile(t, tools, map[string]string{"KEY": guardSecret})
	require.NoError(t, err)
	srv := served(t, set)

	code, body := restCall(t, srv, "go", map[string]any{})
	require.Equal(t, http.StatusOK, code)
	require.NotEqual(t, true, body["isError"], body)
	got := other.seen()
	require.Len(t, got, 1)
	assert.Equal(t, "/landing", got[0].path)
	assert.Empty(t, got[0].auth, "Authorization is dropped")
	assert.Empty(t, got[0].apiKey, "a configured header is dropped")
	assert.Empty(t, got[0].toolKey, "a tool's configured header is dropped")
	assert.Empty(t, got[0].referer, "the Referer (the previous URL, with its query) is dropped")
	assert.Equal(t, "page=2", got[0].query, "the source's query parameter is dropped")
	assert.Equal(t, "Bearer "+guardSecret, home.seen()[0].auth, "the source's origin gets its secrets")

	// Away and back: the last hop, on the source's origin again, carries
	// no secret either (the other origin chose its URL).
	res := mcpCall(t, srv, "loop", map[string]any{})
	require.NotEqual(t, true, res["isError"], mcpText(res))
	hits := home.seen()
	last := hits[len(hits)-1]
	assert.Equal(t, "/final", last.path)
	assert.Empty(t, last.auth)
	assert.Empty(t, last.apiKey)
	assert.Equal(t, "tenant=t", last.query)

	// A 307 to another origin would send the body again: refused.
	before := len(other.seen())
	code, body = restCall(t, srv, "post", map[string]any{"v": "private"})
	assert.Equal(t, http.StatusInternalServerError, code)
	assert.Equal(t, true, body["isError"], body)
	assert.Contains(t, fmt.Sprint(body["content"]), "would resend the request body")
	assert.Len(t, other.seen(), before, "the other origin got nothing")
}

func TestHTTP_RedirectToAnExplicitlyAllowedPortIsFollowed(t *testing.T) {
	other := newRecordingServer(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"moved": true}`)
	})
	home := newRecordingServer(t, func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "http://127.0.0.1:"+other.port()+"/moved", http.StatusFound)
	})
	set, err := buildFile(t, redirectTools(home.srv.URL, "127.0.0.1", "127.0.0.1:"+other.port()), map[string]string{"KEY": guardSecret})
	require.NoError(t, err)
	code, body := restCall(t, served(t, set), "go", map[string]any{})
	require.Equal(t, http.StatusOK, code)
	assert.Equal(t, map[string]any{"moved": true}, body["structuredContent"])
	got := other.seen()
	require.Len(t, got, 1)
	assert.Empty(t, got[0].auth, "another port is another origin: no secrets")
	assert.Empty(t, got[0].apiKey)
}

func TestHTTP_CallerCannotReplaceTheSourcesQueryOrHeaders(t *testing.T) {
	up := newRecordingServer(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{}`)
	})
	tools := fmt.Sprintf(`
sources:
  api:
    kind: http
    baseUrl: %s
    headers: {X-Api-Key: '${KEY}'}
    queryParams: {key: '${KEY}'}
tools:
  search:
    kind: http
    source: api
    method: GET
    path: /search
    description: search
    queryParams:
      - {name: q, type: string, description: q}
    headerParams:
      - {name: X-Lang, type: string, description: l, required: false}
`, up.srv.URL)
	cfg, err := config.Parse([]byte(tools), "tools.yaml", t.TempDir(), func(k string) (string, bool) { return guardSecret, k == "KEY" })
	require.NoError(t, err)
	// A file validate would refuse (it reports such parameters): the
	// request still sends the source's values.
	tl := cfg.Tools[0]
	tl.QueryParams = append(tl.QueryParams,
		&config.Param{Name: "key", Type: config.TypeString, Description: "k"},
		&config.Param{Name: "KEY", Type: config.TypeString, Description: "k"})
	tl.HeaderParams = append(tl.HeaderParams, &config.Param{Name: "x-api-key", Type: config.TypeString, Description: "k"})
	set, err := Build(context.Background(), cfg, nil)
	require.NoError(t, err)
	t.Cleanup(func() { _ = set.Close() })
	srv := served(t, set)

	code, body := restCall(t, srv, "search", map[string]any{"q": "x", "key": "mine", "KEY": "mine", "x-api-key": "mine"})
	require.Equal(t, http.StatusOK, code, body)
	res := mcpCall(t, srv, "search", map[string]any{"q": "y", "key": "mine", "KEY": "mine", "x-api-key": "mine"})
	require.NotEqual(t, true, res["isError"], mcpText(res))
	for _, h := range up.seen() {
		assert.NotContains(t, h.query, "mine", "the caller's value is never sent")
		assert.Contains(t, h.query, "key="+guardSecret)
		assert.Equal(t, guardSecret, h.apiKey)
	}
	assert.Len(t, up.seen(), 2)
}

// resolveAs is a lookup that answers every name with addrs and counts
// its calls.
func resolveAs(calls *atomic.Int32, addrs ...string) httptool.SourceOption {
	return httptool.WithLookup(func(context.Context, string) ([]netip.Addr, error) {
		calls.Add(1)
		out := make([]netip.Addr, len(addrs))
		for i, a := range addrs {
			out[i] = netip.MustParseAddr(a)
		}
		return out, nil
	})
}

// loopbackOnlyDial records every address it is given and connects only to
// loopback ones: a test never reaches another address.
func loopbackOnlyDial(dialled *[]string, mu *sync.Mutex) httptool.SourceOption {
	return httptool.WithDial(func(ctx context.Context, network, addr string) (net.Conn, error) {
		mu.Lock()
		*dialled = append(*dialled, addr)
		mu.Unlock()
		host, _, _ := net.SplitHostPort(addr)
		if ip, err := netip.ParseAddr(host); err != nil || !ip.IsLoopback() {
			return nil, errors.New("test: refusing to dial a non-loopback address")
		}
		var d net.Dialer
		return d.DialContext(ctx, network, addr)
	})
}

func nameTools(base, extra string) string {
	return fmt.Sprintf(`
sources:
  api:
    kind: http
    baseUrl: %s
%s
tools:
  get: {kind: http, source: api, method: GET, path: /item, description: an item}
`, base, extra)
}

func TestHTTP_NameResolvingToPrivateAddressIsRefusedBeforeDialling(t *testing.T) {
	var lookups atomic.Int32
	var mu sync.Mutex
	var dialled []string
	set, err := buildFile(t, nameTools("https://api.partner.example", ""), nil,
		resolveAs(&lookups, "10.0.0.1"), loopbackOnlyDial(&dialled, &mu))
	require.NoError(t, err)
	srv := served(t, set)

	code, body := restCall(t, srv, "get", map[string]any{})
	assert.Equal(t, http.StatusInternalServerError, code)
	assert.Equal(t, true, body["isError"], body)
	msg := fmt.Sprint(body["content"])
	assert.Contains(t, msg, "resolves to a private or local network address")
	assert.NotContains(t, msg, "10.0.0.1", "the address is not shown to the caller")

	res := mcpCall(t, srv, "get", map[string]any{})
	assert.Equal(t, true, res["isError"])
	assert.Equal(t, "the upstream request was refused: the upstream host resolves to a private or local network address", mcpText(res))

	assert.Equal(t, int32(2), lookups.Load(), "the name was resolved at each dial")
	mu.Lock()
	assert.Empty(t, dialled, "no connection was attempted")
	mu.Unlock()
}

func TestHTTP_NameResolvingToLoopbackIsRefusedUnlessAllowed(t *testing.T) {
	up := newRecordingServer(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"id": 1}`)
	})
	base := "http://upstream.test:" + up.port()
	var lookups atomic.Int32

	set, err := buildFile(t, nameTools(base, ""), nil, resolveAs(&lookups, "127.0.0.1"))
	require.NoError(t, err)
	srv := served(t, set)
	code, body := restCall(t, srv, "get", map[string]any{})
	assert.Equal(t, http.StatusInternalServerError, code)
	assert.Equal(t, true, body["isError"], body)
	assert.Contains(t, fmt.Sprint(body["content"]), "private or local network address")
	res := mcpCall(t, srv, "get", map[string]any{})
	assert.Equal(t, true, res["isError"])
	assert.Zero(t, up.conns.Load(), "the loopback server listening there was never connected to")
	assert.Positive(t, lookups.Load())

	// The same file with allowPrivateNetworks reaches it: the refusal
	// above was the guard's.
	set, err = buildFile(t, nameTools(base, "    allowPrivateNetworks: true"), nil, resolveAs(&lookups, "127.0.0.1"))
	require.NoError(t, err)
	code, body = restCall(t, served(t, set), "get", map[string]any{})
	require.Equal(t, http.StatusOK, code)
	assert.Equal(t, map[string]any{"id": float64(1)}, body["structuredContent"])
	assert.Equal(t, int32(1), up.conns.Load())
}

func TestHTTP_LiteralAddressesAreTheAuthorsChoice(t *testing.T) {
	up := newRecordingServer(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"id": 2}`)
	})
	var lookups atomic.Int32
	for _, base := range []string{up.srv.URL, "http://localhost:" + up.port()} {
		set, err := buildFile(t, nameTools(base, ""), nil, resolveAs(&lookups, "127.0.0.1"))
		require.NoError(t, err)
		code, body := restCall(t, served(t, set), "get", map[string]any{})
		require.Equal(t, http.StatusOK, code, base)
		assert.Equal(t, map[string]any{"id": float64(2)}, body["structuredContent"], base)
	}
}

func TestBuild_ReadOnlySQLiteToolThatWritesFilesIsRefused(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "created-by-caller.db")
	cfg, err := config.Parse([]byte(`
sources:
  db: {kind: sqlite, database: ":memory:"}
tools:
  ok: {kind: sqlite-sql, source: db, description: d, statement: "SELECT 1 AS one"}
`), "tools.yaml", dir, nil)
	require.NoError(t, err)
	for _, stmt := range []string{"ATTACH DATABASE ? AS x", "VACUUM INTO ?", "SELECT 1; ATTACH ? AS y"} {
		// What validate refuses (config's tests) is refused by Build too.
		cfg.Tools = []*config.Tool{{Name: "grab", Kind: config.KindSQLiteSQL, Source: "db", Description: "d", ReadOnly: true, Statement: stmt,
			Parameters: []*config.Param{{Name: "path", Type: config.TypeString, Description: "p", Required: true}}}}
		set, err := Build(context.Background(), cfg, nil)
		if set != nil {
			// Today's code builds it: show what a caller could do.
			_, _ = call(t, executor(set, Options{}), "grab", map[string]any{"path": target})
			_ = set.Close()
		}
		require.Error(t, err, stmt)
		assert.Contains(t, err.Error(), "the statement is refused", stmt)
		_, statErr := os.Stat(target)
		assert.True(t, errors.Is(statErr, os.ErrNotExist), "no file was created at the caller's path")
	}
}

func TestBuild_ErrorsAndLogsNameEnvironmentVariables(t *testing.T) {
	const leaked = "pw-SECRET-9999"
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	_, closedPort, _ := net.SplitHostPort(ln.Addr().String())
	ln.Close() // nothing listens there now

	// A driver's error names the user: Build's error names the variable.
	_, err = buildFile(t, fmt.Sprintf(`
sources:
  pg: {kind: postgres, host: 127.0.0.1, port: "%s", database: d, user: '${U}', queryParams: {sslmode: disable, connect_timeout: "2"}}
tools:
  q: {kind: postgres-sql, source: pg, description: d, statement: SELECT 1}
`, closedPort), map[string]string{"U": leaked})
	require.Error(t, err)
	assert.NotContains(t, err.Error(), leaked)
	assert.Contains(t, err.Error(), "${U}", err.Error())

	// A tool's log names the variable its host came from.
	var logs strings.Builder
	var mu sync.Mutex
	logger := slog.New(slog.NewTextHandler(writerFunc(func(b []byte) (int, error) {
		mu.Lock()
		defer mu.Unlock()
		return logs.Write(b)
	}), nil))
	cfg, err := config.Parse([]byte(nameTools("http://${H}:"+closedPort, "")), "tools.yaml", t.TempDir(),
		func(k string) (string, bool) { return "svc-" + leaked + ".test", k == "H" })
	require.NoError(t, err)
	var lookups atomic.Int32
	set, err := buildWith(context.Background(), cfg, logger, resolveAs(&lookups, "127.0.0.1"))
	require.NoError(t, err)
	t.Cleanup(func() { _ = set.Close() })
	res := mcpCall(t, served(t, set), "get", map[string]any{})
	assert.Equal(t, true, res["isError"])
	mu.Lock()
	defer mu.Unlock()
	assert.Contains(t, logs.String(), "${H} resolves to 127.0.0.1", logs.String())
	assert.NotContains(t, logs.String(), leaked)
}

type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(b []byte) (int, error) { return f(b) }
