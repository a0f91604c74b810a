package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"image/png"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolexec/toolexec"
)

const testToken = "test-token"

// newTestServer serves the example's mux on loopback, as run does, with a
// known token and a silent logger.
func newTestServer(t *testing.T, extra ...toolexec.Option) *httptest.Server {
	t.Helper()
	swatch, err := makeSwatch()
	require.NoError(t, err)
	logger := slog.New(slog.DiscardHandler)
	srv := httptest.NewServer(newMux(newExecutor(newRegistry(swatch), testToken, logger, extra...)))
	t.Cleanup(srv.Close)
	return srv
}

// do sends a request and returns the status and the body.
func do(t *testing.T, ctx context.Context, method, url, token, body string, header ...string) (int, []byte) {
	t.Helper()
	req, err := http.NewRequestWithContext(ctx, method, url, strings.NewReader(body))
	require.NoError(t, err)
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	assert.Equal(t, "application/json", resp.Header.Get("Content-Type"))
	return resp.StatusCode, data
}

// call posts args to a tool with the test token and decodes the result.
func call(t *testing.T, srv *httptest.Server, path, args string) (int, toolexec.CallToolResult) {
	t.Helper()
	status, body := do(t, t.Context(), http.MethodPost, srv.URL+"/api/tools/"+path+"/call", testToken, args)
	var res toolexec.CallToolResult
	require.NoError(t, json.Unmarshal(body, &res), "body: %s", body)
	return status, res
}

func TestListShowsEveryDemoToolWithoutAToken(t *testing.T) {
	srv := newTestServer(t)
	status, body := do(t, t.Context(), http.MethodGet, srv.URL+"/api/tools", "", "")
	require.Equal(t, http.StatusOK, status)
	var list []struct {
		Name string `json:"name"`
	}
	require.NoError(t, json.Unmarshal(body, &list))
	var names []string
	for _, tool := range list {
		names = append(names, tool.Name)
	}
	assert.Equal(t, []string{"echo", "text_upper", "stats", "image_swatch", "divide", "fail", "sleep", "whoami", "math_add", "countdown", "greet"}, names)
}

func TestCallWithTokenRunsTheToolAndReturnsTheTraceID(t *testing.T) {
	srv := newTestServer(t)
	status, body := do(t, t.Context(), http.MethodPost, srv.URL+"/api/tools/echo/call", testToken, `{"text":"hello"}`, "X-Request-Id", "req-42")
	require.Equal(t, http.StatusOK, status)
	assert.JSONEq(t, `{"content":[{"type":"text","text":"hello"}],"isError":false,"_meta":{"_trace_id":"req-42"}}`, string(body))
}

func TestCallWithoutAValidTokenIsUnauthorized(t *testing.T) {
	srv := newTestServer(t)
	for _, tc := range []struct {
		name   string
		header string
	}{
		{"no header", ""},
		{"wrong token", "Bearer not-the-token"},
		{"wrong scheme", "Basic " + testToken},
		{"scheme only", "Bearer"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			status, body := do(t, t.Context(), http.MethodPost, srv.URL+"/api/tools/echo/call", "", `{"text":"hello"}`, "Authorization", tc.header)
			assert.Equal(t, http.StatusUnauthorized, status)
			assert.JSONEq(t, `{"error":"Unauthorized"}`, string(body))
		})
	}
}

func TestBearerSchemeIsCaseInsensitive(t *testing.T) {
	srv := newTestServer(t)
	status, _ := do(t, t.Context(), http.MethodPost, srv.URL+"/api/tools/echo/call", "", `{"text":"hi"}`, "Authorization", "bearer "+testToken)
	assert.Equal(t, http.StatusOK, status)
}

func TestUpperCase(t *testing.T) {
	srv := newTestServer(t)
	status, res := call(t, srv, "text_upper", `{"text":"quiet"}`)
	assert.Equal(t, http.StatusOK, status)
	assert.Equal(t, "QUIET", res.Text())
}

// Every tool of the example server has a name that MCP recommends and that
// models' function-calling APIs accept as it is (OpenAI's rule, the
// strictest: ^[a-zA-Z0-9_-]{1,64}$), so agent frameworks hand it to a
// model unchanged.
func TestEveryToolNameIsOneModelsAccept(t *testing.T) {
	swatch, err := makeSwatch()
	require.NoError(t, err)
	reg := newRegistry(swatch)
	functionName := regexp.MustCompile(`^[a-zA-Z0-9_-]{1,64}$`)
	require.NotEmpty(t, reg.Tools())
	for _, tool := range reg.Tools() {
		assert.Regexp(t, functionName, tool.Name)
	}
}

func TestStatsReturnsAJSONTextBlock(t *testing.T) {
	srv := newTestServer(t)
	status, res := call(t, srv, "stats", `{"numbers":[1,2,3,6]}`)
	require.Equal(t, http.StatusOK, status)
	assert.JSONEq(t, `{"count":4,"sum":12,"mean":3,"min":1,"max":6}`, res.Text())
}

func TestImageToolReturnsAPNG(t *testing.T) {
	srv := newTestServer(t)
	status, res := call(t, srv, "image_swatch", `{}`)
	require.Equal(t, http.StatusOK, status)
	require.Len(t, res.Content, 1)
	img, ok := res.Content[0].(*toolexec.ImageContent)
	require.True(t, ok, "content is %T", res.Content[0])
	assert.Equal(t, "image/png", img.MIMEType)
	decoded, err := png.Decode(bytes.NewReader(img.Data))
	require.NoError(t, err)
	assert.Equal(t, 16, decoded.Bounds().Dx())
}

func TestToolErrorAndFailedCallAnswer500WithIsError(t *testing.T) {
	srv := newTestServer(t)
	for _, tc := range []struct {
		path, args, text string
	}{
		{"divide", `{"a":1,"b":0}`, "cannot divide by zero"},
		{"fail", `{}`, "fail always fails: this is how a handler error is answered"},
	} {
		status, res := call(t, srv, tc.path, tc.args)
		assert.Equal(t, http.StatusInternalServerError, status, tc.path)
		assert.True(t, res.IsError, tc.path)
		assert.Equal(t, tc.text, res.Text(), tc.path)
	}
	status, res := call(t, srv, "divide", `{"a":1,"b":4}`)
	assert.Equal(t, http.StatusOK, status)
	assert.Equal(t, "0.25", res.Text())
}

func TestWhoamiSeesTheIdentityTheAuthHookFound(t *testing.T) {
	srv := newTestServer(t)
	status, res := call(t, srv, "whoami", `{}`)
	require.Equal(t, http.StatusOK, status)
	assert.Equal(t, "you are demo-user", res.Text())
}

func TestSleepIsCanceledWhenTheClientGoesAway(t *testing.T) {
	started := make(chan struct{})
	finished := make(chan error, 1)
	observe := func(next toolexec.CallFunc) toolexec.CallFunc {
		return func(ctx context.Context, c *toolexec.Call) (*toolexec.CallToolResult, error) {
			close(started)
			res, err := next(ctx, c)
			finished <- err
			return res, err
		}
	}
	srv := newTestServer(t, toolexec.WithInterceptors(observe))

	ctx, cancel := context.WithCancel(t.Context())
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, srv.URL+"/api/tools/sleep/call", strings.NewReader(`{"seconds":30}`))
	require.NoError(t, err)
	req.Header.Set("Authorization", "Bearer "+testToken)
	clientErr := make(chan error, 1)
	go func() {
		resp, err := http.DefaultClient.Do(req)
		if err == nil {
			resp.Body.Close()
		}
		clientErr <- err
	}()

	<-started
	cancel()
	require.ErrorIs(t, <-clientErr, context.Canceled)
	select {
	case err := <-finished:
		// The handler returned because its context ended, not because
		// 30 seconds passed.
		require.Error(t, err)
		assert.ErrorIs(t, err, context.Canceled)
	case <-time.After(10 * time.Second):
		t.Fatal("the sleep tool was still running after its client went away")
	}
}

func TestRunPrintsCurlLinesThatWorkAndShutsDownGracefully(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	env := map[string]string{"PORT": "0"}
	stdout, stdoutW := io.Pipe()
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, func(k string) string { return env[k] }, stdoutW, io.Discard)
		stdoutW.Close()
	}()

	// Read the whole banner.
	var banner []string
	sc := bufio.NewScanner(stdout)
	for sc.Scan() {
		banner = append(banner, sc.Text())
		if strings.Contains(sc.Text(), "Press Ctrl-C") {
			break
		}
	}
	go func() { _, _ = io.Copy(io.Discard, stdout) }()
	text := strings.Join(banner, "\n")

	token := regexp.MustCompile(`demo token: (\S+)`).FindStringSubmatch(text)
	require.NotNil(t, token, text)

	// Every curl line that posts a call works as printed: REST, OXP and MCP.
	callLine := regexp.MustCompile(`^\s+curl -sS -X POST -H 'Authorization: Bearer ([^']+)' -H 'Content-Type: application/json' (?:-H '(Accept: [^']+)' )?-d '([^']*)' (http://localhost:\d+\S+)$`)
	want := map[string]func(body []byte){
		"/api/tools/echo/call": func(body []byte) {
			assert.JSONEq(t, `{"content":[{"type":"text","text":"hello"}],"isError":false}`, string(body))
		},
		"/oxp/tools/call": func(body []byte) {
			var res map[string]any
			require.NoError(t, json.Unmarshal(body, &res))
			assert.Equal(t, true, res["success"])
			assert.Equal(t, "hello", res["value"])
		},
		"/mcp": func(body []byte) {
			assert.JSONEq(t, `{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"hello"}],"isError":false}}`, string(body))
		},
	}
	seen := 0
	for _, line := range banner {
		m := callLine.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		seen++
		assert.Equal(t, token[1], m[1], "the curl line carries the printed token")
		path := m[4][strings.Index(m[4][len("http://"):], "/")+len("http://"):]
		check, ok := want[path]
		require.True(t, ok, "unexpected curl target %q", path)
		headers := []string{"Content-Type", "application/json"}
		if m[2] != "" {
			headers = append(headers, "Accept", strings.TrimPrefix(m[2], "Accept: "))
		}
		status, body := do(t, t.Context(), http.MethodPost, m[4], m[1], m[3], headers...)
		assert.Equal(t, http.StatusOK, status, line)
		check(body)

		// When curl is installed, paste the line into a shell as a user would.
		if _, err := exec.LookPath("curl"); err == nil {
			out, err := exec.CommandContext(t.Context(), "sh", "-c", strings.TrimSpace(line)).Output()
			require.NoError(t, err)
			check(out)
		}
	}
	assert.Equal(t, len(want), seen, "one curl line per surface:\n%s", text)

	cancel()
	require.NoError(t, <-done, "run returns nil after a graceful shutdown")
}

func TestOXPSurfaceServesTheSameTools(t *testing.T) {
	srv := newTestServer(t)
	status, body := do(t, t.Context(), http.MethodPost, srv.URL+"/oxp/tools/call", testToken,
		`{"call_id":"c-1","tool_id":"Tools.echo","input":{"text":"over oxp"}}`)
	require.Equal(t, http.StatusOK, status, "body: %s", body)
	var res struct {
		CallID  string `json:"call_id"`
		Success bool   `json:"success"`
		Value   string `json:"value"`
	}
	require.NoError(t, json.Unmarshal(body, &res))
	assert.Equal(t, "c-1", res.CallID)
	assert.True(t, res.Success)
	assert.Equal(t, "over oxp", res.Value)

	status, body = do(t, t.Context(), http.MethodPost, srv.URL+"/oxp/tools/call", "", `{"tool_id":"Tools.echo","input":{"text":"x"}}`)
	assert.Equal(t, http.StatusBadRequest, status, "the same auth hook guards OXP calls; OXP answers a Server Error")
	assert.Contains(t, string(body), `"message":"Authentication is required"`)
}

func TestARefusedCallSaysAStaticTokenIsExpected(t *testing.T) {
	// MCP clients that get a bare "Bearer" challenge look for an OAuth
	// server; the challenge says what this one wants instead.
	srv := newTestServer(t)
	for _, c := range []struct{ path, body, auth, wantError string }{
		{"/api/tools/echo/call", `{"text":"hi"}`, "", ""},
		{"/api/tools/echo/call", `{"text":"hi"}`, "Bearer wrong", `error="invalid_token"`},
		{"/mcp", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hi"}}}`, "", ""},
	} {
		req, err := http.NewRequest(http.MethodPost, srv.URL+c.path, strings.NewReader(c.body))
		require.NoError(t, err)
		req.Header.Set("Content-Type", "application/json")
		if c.auth != "" {
			req.Header.Set("Authorization", c.auth)
		}
		res, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		res.Body.Close()
		require.Equal(t, http.StatusUnauthorized, res.StatusCode, c.path)
		challenge := res.Header.Get("WWW-Authenticate")
		assert.Contains(t, challenge, `error_description="this server takes a static bearer token (no OAuth)`, c.path)
		if c.wantError != "" {
			assert.Contains(t, challenge, c.wantError)
		} else {
			assert.NotContains(t, challenge, "error=", "no error code when no token was sent (RFC 6750)")
		}
	}
}
