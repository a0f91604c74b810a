package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolexec/toolexec/internal/npmtest"
	"github.com/toolexec/toolexec/internal/testserver"
)

// mcpRemote installs the pinned mcp-remote (testdata/mcpremote) under
// .cache/ and returns node and mcp-remote's proxy script, skipping the
// test when npm cannot install them (failing it when CI is set).
func mcpRemote(t *testing.T) (node, proxy string) {
	t.Helper()
	node, err := npmtest.Node()
	npmtest.Need(t, err, "Node.js "+npmtest.NodeMajor)
	pkg, err := os.ReadFile(filepath.Join("testdata", "mcpremote", "package.json"))
	require.NoError(t, err)
	lock, err := os.ReadFile(filepath.Join("testdata", "mcpremote", "package-lock.json"))
	require.NoError(t, err)
	dir, err := npmtest.Install("mcp-remote", pkg, lock)
	npmtest.Need(t, err, "mcp-remote")
	return node, filepath.Join(dir, "node_modules", "mcp-remote", "dist", "proxy.js")
}

// headlessBrowser writes a script that opens its one argument, a URL, in
// a headless Chromium of its own, runs the page's scripts and follows its
// redirects, then quits; mcp-remote runs it as $BROWSER. The test skips
// without Chromium (Debian's chromium), unless CI is set.
func headlessBrowser(t *testing.T) string {
	t.Helper()
	bin := "/usr/bin/chromium"
	if _, err := os.Stat(bin); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("chromium not found, and CI is set: .ci/deps must install it")
		}
		t.Skip("chromium not found (install the Debian package chromium); set CI to make this a failure")
	}
	// Chromium's helper processes can outlive the page by a moment and
	// write to the profile: the cleanup ends them, then removes the
	// directory (t.TempDir's own cleanup would fail on a late write).
	dir, err := os.MkdirTemp("", "browser-")
	require.NoError(t, err)
	t.Cleanup(func() {
		_ = exec.Command("pkill", "-KILL", "-f", "--user-data-dir="+dir).Run()
		for range 50 {
			if os.RemoveAll(dir) == nil {
				return
			}
			time.Sleep(100 * time.Millisecond)
		}
		t.Errorf("browser profile %s not removed", dir)
	})
	script := filepath.Join(dir, "browser")
	body := fmt.Sprintf(`#!/bin/sh
exec %s --headless --no-sandbox --disable-gpu --disable-dev-shm-usage --disable-background-networking \
  --disable-extensions --no-first-run --no-default-browser-check --user-data-dir=%s/profile-$$ \
  --virtual-time-budget=15000 --dump-dom "$1" >>%s/browser.log 2>&1
`, bin, dir, dir)
	require.NoError(t, os.WriteFile(script, []byte(body), 0o755))
	return script
}

// lines collects a process's standard error and hands each line to watch.
type lines struct {
	mu    sync.Mutex
	all   strings.Builder
	watch func(string)
}

func (l *lines) read(r io.Reader) {
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		l.mu.Lock()
		l.all.WriteString(sc.Text() + "\n")
		watch := l.watch
		l.mu.Unlock()
		if watch != nil {
			watch(sc.Text())
		}
	}
}

func (l *lines) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.all.String()
}

// verificationURI is the line mcp-remote prints for the device grant.
var verificationURI = regexp.MustCompile(`(http://\S+/oauth/device\?user_code=\S+)`)

// TestMCPRemoteSignsInEveryWayItOffers runs mcp-remote (the TypeScript
// SDK's OAuth client, as desktop hosts use it) as an MCP client's stdio
// server against the demo's MCP URL, and through it initializes, lists
// and calls echo, in each of its ways to sign in: registering itself
// (RFC 7591) and signing alice in in a browser (headless Chromium); the
// same as the preregistered client; the same with a Client ID Metadata
// Document; the device grant, approved in the browser; the client
// credentials grant.
func TestMCPRemoteSignsInEveryWayItOffers(t *testing.T) {
	node, proxy := mcpRemote(t)
	browser := headlessBrowser(t)
	var docs *httptest.Server
	docs = httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		writeJSON(w, http.StatusOK, map[string]any{"client_id": docs.URL + req.URL.Path, "client_name": "mcp-remote (CIMD)",
			"redirect_uris": []string{"http://localhost/oauth/callback"}, "token_endpoint_auth_method": "none",
			"grant_types": []string{"authorization_code", "refresh_token"}})
	}))
	t.Cleanup(docs.Close)
	r := startWith(t, docs.Client())
	static := `{"client_id":"demo","client_secret":"demo-secret"}`
	for _, sc := range []struct {
		name    string
		args    []string
		subject string // whom echo names
		device  bool
	}{
		{"registered, browser", nil, "alice", false},
		{"preregistered, browser", []string{"--static-oauth-client-info", static}, "alice", false},
		{"client ID metadata document, browser", []string{"--client-metadata-url", docs.URL + "/mcp-remote.json"}, "alice", false},
		{"device grant", []string{"--device-code"}, "alice", true},
		{"client credentials", []string{"--client-credentials", "--static-oauth-client-info", static}, "demo", false},
	} {
		t.Run(sc.name, func(t *testing.T) {
			t.Parallel()
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			port, err := testserver.FreePort()
			require.NoError(t, err)
			args := append([]string{proxy, r.base + "/mcp", strconv.Itoa(port), "--auth-timeout", "90"}, sc.args...)
			cmd := exec.CommandContext(ctx, node, args...)
			cmd.Env = append(os.Environ(), "MCP_REMOTE_CONFIG_DIR="+t.TempDir(), "BROWSER="+browser,
				"DISPLAY=", "WAYLAND_DISPLAY=", "XDG_CURRENT_DESKTOP=", "DESKTOP_SESSION=")
			stderr, err := cmd.StderrPipe()
			require.NoError(t, err)
			logs := &lines{}
			if sc.device {
				var once sync.Once
				logs.watch = func(line string) {
					if m := verificationURI.FindStringSubmatch(line); m != nil {
						once.Do(func() {
							go func() { _ = exec.CommandContext(ctx, browser, m[1]).Run() }()
						})
					}
				}
			}
			go logs.read(stderr)
			defer func() {
				if t.Failed() {
					t.Logf("mcp-remote:\n%s", logs)
				}
			}()

			client := mcp.NewClient(&mcp.Implementation{Name: "host", Version: "1"}, nil)
			session, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
			require.NoError(t, err)
			defer session.Close()
			tools, err := session.ListTools(ctx, nil)
			require.NoError(t, err)
			require.Len(t, tools.Tools, 1, "the sign-in asked for tools.call")
			assert.Equal(t, "echo", tools.Tools[0].Name)
			res, err := session.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"text": "remote"}})
			require.NoError(t, err)
			require.False(t, res.IsError, "%+v", res)
			assert.Equal(t, sc.subject+" says: remote", res.Content[0].(*mcp.TextContent).Text)
		})
	}
}
