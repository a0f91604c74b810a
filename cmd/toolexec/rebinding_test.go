package main

import (
	"errors"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// rebindingRequest sends method path with the given Host and Origin to
// base, and returns the status and body. A body goes as text/plain, what a
// cross-site form can send without a preflight, when the request is one
// that must be refused (hostile), and as JSON otherwise.
func rebindingRequest(t *testing.T, base, method, path, body, host, origin string, hostile bool) (int, string) {
	t.Helper()
	req, err := http.NewRequest(method, base+path, strings.NewReader(body))
	require.NoError(t, err)
	switch {
	case body != "" && hostile:
		req.Header.Set("Content-Type", "text/plain")
	case body != "":
		req.Header.Set("Content-Type", "application/json")
	}
	if host != "" {
		req.Host = host
	}
	if origin != "" {
		req.Header.Set("Origin", origin)
	}
	res, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer res.Body.Close()
	got, err := io.ReadAll(res.Body)
	require.NoError(t, err)
	return res.StatusCode, string(got)
}

// Every route the command serves, as a rebinding page or a cross-site form
// would aim at it.
var servedRoutes = []struct{ method, path, body string }{
	{http.MethodGet, "/api/tools", ""},
	{http.MethodPost, "/api/tools/find/call", `{"id":1}`},
	{http.MethodGet, "/api/", ""},
	{http.MethodGet, "/api/_explorer/tools", ""},
	{http.MethodGet, "/oxp/tools", ""},
	{http.MethodPost, "/oxp/tools/call", `{"tool_id":"Tools.find","input":{"id":1}}`},
	{http.MethodPost, "/mcp", `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`},
	{http.MethodGet, "/mcp/tools/list", ""},
	{http.MethodPost, "/mcp/tools/call", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"find","arguments":{"id":1}}}`},
	{http.MethodGet, "/toolsets/public/api/tools", ""},
	{http.MethodPost, "/toolsets/public/api/tools/find/call", `{"id":1}`},
	{http.MethodGet, "/toolsets/public/oxp/tools", ""},
	{http.MethodPost, "/toolsets/public/mcp", `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`},
}

func TestServe_OnLoopbackWithoutATokenEveryRouteRefusesRebindingAndCrossSite(t *testing.T) {
	base, _ := startServerWith(t, t.TempDir(), e2eTools, nil)
	own := strings.TrimPrefix(base, "http://")
	for _, rt := range servedRoutes {
		status, body := rebindingRequest(t, base, rt.method, rt.path, rt.body, "evil.example", "http://evil.example", true)
		assert.Equal(t, http.StatusForbidden, status, "rebinding %s %s: %s", rt.method, rt.path, body)
		assert.NotContains(t, body, "apple", "%s %s", rt.method, rt.path)
		status, body = rebindingRequest(t, base, rt.method, rt.path, rt.body, "", "http://evil.example", true)
		assert.Equal(t, http.StatusForbidden, status, "cross-site %s %s: %s", rt.method, rt.path, body)
		status, body = rebindingRequest(t, base, rt.method, rt.path, rt.body, "localhost", "", false)
		assert.Less(t, status, 300, "localhost %s %s: %s", rt.method, rt.path, body)
		status, body = rebindingRequest(t, base, rt.method, rt.path, rt.body, own, "http://"+own, false)
		assert.Less(t, status, 300, "same origin %s %s: %s", rt.method, rt.path, body)
	}
}

func TestServe_AllowFlagsAdmitAProxyNameAndAnOrigin(t *testing.T) {
	base, _ := startServerWith(t, t.TempDir(), e2eTools, nil,
		"--allow-host", "tools.example.com", "--allow-origin", "http://localhost:3000,https://app.example.com")
	for _, rt := range servedRoutes {
		status, body := rebindingRequest(t, base, rt.method, rt.path, rt.body, "tools.example.com", "https://app.example.com", false)
		assert.Less(t, status, 300, "%s %s: %s", rt.method, rt.path, body)
		status, _ = rebindingRequest(t, base, rt.method, rt.path, rt.body, "tools.example.com", "http://evil.example", true)
		assert.Equal(t, http.StatusForbidden, status, "%s %s", rt.method, rt.path)
	}
}

func TestServe_ASlowBodyIsCut(t *testing.T) {
	base, _ := startServerWith(t, t.TempDir(), e2eTools, map[string]string{"TOOLEXEC_TOKEN": "tok"}, "--read-timeout", "200ms")
	// A body announced but never sent: the server gives up on it and
	// closes the connection.
	conn, err := net.Dial("tcp", strings.TrimPrefix(base, "http://"))
	require.NoError(t, err)
	defer conn.Close()
	_, err = io.WriteString(conn, "POST /api/tools/find/call HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer tok\r\nContent-Length: 100\r\n\r\n{")
	require.NoError(t, err)
	require.NoError(t, conn.SetReadDeadline(time.Now().Add(30*time.Second)))
	got, err := io.ReadAll(conn) // until the server closes the connection
	var ne net.Error
	require.False(t, errors.As(err, &ne) && ne.Timeout(), "a body that never arrives held the connection open")
	t.Logf("answer: %q", got)
	// A whole body is read in time, and the call is answered.
	status, body := post(t, base+"/api/tools/find/call", `{"id":1}`, "Authorization", "Bearer tok")
	assert.Equal(t, http.StatusOK, status, body)
}

func TestServe_ARefusedCallSaysAStaticTokenIsExpected(t *testing.T) {
	base := startServer(t)
	req, err := http.NewRequest(http.MethodPost, base+"/mcp", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"find","arguments":{"id":1}}}`))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/json")
	res, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	res.Body.Close()
	assert.Equal(t, http.StatusUnauthorized, res.StatusCode)
	assert.Contains(t, res.Header.Get("WWW-Authenticate"), "static bearer token (no OAuth)")
}
