package main

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// asCommand is the environment variable that makes the test binary run as
// the toolexec command (see TestMain), so that tests can start the command
// as a real subprocess, as MCP clients start stdio servers.
const asCommand = "TOOLEXEC_TEST_AS_COMMAND"

func TestMain(m *testing.M) {
	if os.Getenv(asCommand) == "1" {
		ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
		code := run(ctx, os.Args[1:], os.LookupEnv, os.Stdin, os.Stdout, os.Stderr)
		stop()
		os.Exit(code)
	}
	code := m.Run()
	realProvider.Stop()
	os.Exit(code)
}

// syncBuffer collects a subprocess's standard error.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// commandFor is `toolexec ARGS...` as a subprocess, with env added to the
// test's environment and its standard error collected.
func commandFor(t *testing.T, env []string, args ...string) (*exec.Cmd, *syncBuffer) {
	t.Helper()
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(append(os.Environ(), asCommand+"=1"), env...)
	stderr := &syncBuffer{}
	cmd.Stderr = stderr
	return cmd, stderr
}

// stdioFixture writes the end-to-end tools file and its schema to a
// temporary directory and returns the file's path.
func stdioFixture(t *testing.T) string {
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "tools.yaml"), []byte(e2eTools), 0o600))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "schema.sql"), []byte(e2eSchema), 0o600))
	return filepath.Join(dir, "tools.yaml")
}

// The official Go SDK's client starts `toolexec serve --stdio` as MCP
// clients start stdio servers, at each protocol version it can ask for.
func TestServeStdio_GoSDKClientOverCommandTransport(t *testing.T) {
	for _, version := range []string{"", "2025-11-25", "2025-06-18", "2025-03-26"} {
		name := version
		if name == "" {
			name = "client default"
		}
		t.Run(name, func(t *testing.T) {
			path := stdioFixture(t)
			// A token in the environment is not asked for: the client owns
			// the process.
			cmd, stderr := commandFor(t, []string{"TOOLEXEC_TOKEN=tok"}, "serve", "--config", path, "--stdio")
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			client := sdk.NewClient(&sdk.Implementation{Name: "stdio-test", Version: "1"}, nil)
			var opts *sdk.ClientSessionOptions
			if version != "" {
				opts = &sdk.ClientSessionOptions{ProtocolVersion: version}
			}
			session, err := client.Connect(ctx, &sdk.CommandTransport{Command: cmd, TerminateDuration: 20 * time.Second}, opts)
			require.NoError(t, err, stderr.String())
			want := version
			if want == "" {
				want = "2026-07-28" // the SDK's default, with server/discover and _meta as the stdio binding says
			}
			assert.Equal(t, want, session.InitializeResult().ProtocolVersion)
			assert.Equal(t, "toolexec", session.InitializeResult().ServerInfo.Name)

			tools, err := session.ListTools(ctx, nil)
			require.NoError(t, err)
			require.Len(t, tools.Tools, 1)
			assert.Equal(t, "find", tools.Tools[0].Name)

			res, err := session.CallTool(ctx, &sdk.CallToolParams{Name: "find", Arguments: map[string]any{"id": 2}})
			require.NoError(t, err)
			assert.False(t, res.IsError)
			assert.Contains(t, res.Content[0].(*sdk.TextContent).Text, "pear")

			// The same validation as over HTTP.
			res, err = session.CallTool(ctx, &sdk.CallToolParams{Name: "find", Arguments: map[string]any{"id": "2 OR 1=1"}})
			require.NoError(t, err)
			assert.True(t, res.IsError)

			// Closing stdin ends the server cleanly (exit status 0), well
			// before the client would send SIGTERM.
			start := time.Now()
			require.NoError(t, session.Close(), stderr.String())
			assert.Less(t, time.Since(start), 10*time.Second)
			assert.Equal(t, 0, cmd.ProcessState.ExitCode())
			assert.Contains(t, stderr.String(), "serving 1 tools from", "the banner goes to stderr")
		})
	}
}

// A reload reaches a stdio client as notifications/tools/list_changed.
func TestServeStdio_ReloadNotifiesTheClient(t *testing.T) {
	path := stdioFixture(t)
	cmd, stderr := commandFor(t, nil, "serve", "--config", path, "--stdio", "--reload-interval", "20ms")
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	changed := make(chan struct{}, 1)
	client := sdk.NewClient(&sdk.Implementation{Name: "stdio-test", Version: "1"}, &sdk.ClientOptions{
		ToolListChangedHandler: func(context.Context, *sdk.ToolListChangedRequest) {
			select {
			case changed <- struct{}{}:
			default:
			}
		},
	})
	session, err := client.Connect(ctx, &sdk.CommandTransport{Command: cmd}, &sdk.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	require.NoError(t, err, stderr.String())
	defer session.Close()
	require.True(t, session.InitializeResult().Capabilities.Tools.ListChanged)

	updated := strings.Replace(e2eTools, "toolsets:", `  count:
    kind: sqlite-sql
    source: db
    description: How many items.
    statement: SELECT count(*) AS n FROM items
toolsets:`, 1)
	require.NoError(t, os.WriteFile(path, []byte(updated), 0o600))
	select {
	case <-changed:
	case <-ctx.Done():
		t.Fatalf("no notifications/tools/list_changed; server log:\n%s", stderr.String())
	}
	tools, err := session.ListTools(ctx, nil)
	require.NoError(t, err)
	assert.Len(t, tools.Tools, 2)
}

// Standard output carries MCP messages only: a file with problems is
// reported on standard error, and the exit status says so.
func TestServeStdio_ProblemsGoToStderr(t *testing.T) {
	path := filepath.Join(t.TempDir(), "tools.yaml")
	require.NoError(t, os.WriteFile(path, []byte("tools:\n  t: {kind: sqlite-sql}\n"), 0o600))
	cmd, stderr := commandFor(t, nil, "serve", "--config", path, "--stdio")
	var stdout bytes.Buffer
	cmd.Stdout = &stdout
	err := cmd.Run()
	var exit *exec.ExitError
	require.ErrorAs(t, err, &exit)
	assert.Equal(t, 1, exit.ExitCode())
	assert.Empty(t, stdout.String())
	assert.Contains(t, stderr.String(), "tools.yaml:2:")

	// --stdio and OAuth do not go together.
	var out, errOut bytes.Buffer
	code := serve(context.Background(), []string{"--config", path, "--stdio", "--oauth-issuer", "https://issuer.example"}, func(string) (string, bool) { return "", false }, strings.NewReader(""), &out, &errOut, nil)
	assert.Equal(t, 2, code)
	assert.Contains(t, errOut.String(), "exclusive")
}

// In-process: the run ends with its input, and writes nothing but MCP
// messages on its output, console telemetry included.
func TestServeStdio_EndsWithItsInput(t *testing.T) {
	path := stdioFixture(t)
	var out, errOut bytes.Buffer
	in := strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"find","arguments":{"id":1}}}` + "\n")
	env := func(k string) (string, bool) {
		if k == "OTEL_TRACES_EXPORTER" {
			return "console", true
		}
		return "", false
	}
	code := serve(context.Background(), []string{"--config", path, "--stdio"}, env, in, &out, &errOut, nil)
	assert.Equal(t, 0, code, errOut.String())
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	require.Len(t, lines, 1, out.String())
	assert.Contains(t, lines[0], `"apple"`)
	assert.Contains(t, errOut.String(), "OpenTelemetry: traces (console)")
}
