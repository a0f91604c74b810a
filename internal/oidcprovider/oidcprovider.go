// Package oidcprovider runs node's oidc-provider (9.x, pinned by the
// package-lock.json here, on Node.js 22), an OpenID Certified
// authorization server, as a real provider for tests: config.mjs is its
// configuration (docs/auth.md prints it as the standards-following set-up),
// provider.mjs starts it on a free port of 127.0.0.1 and signs every user
// in as alice without a page. npm installs both under the repository's
// .cache/ the first time (see package npmtest).
//
// Its clients (config.mjs): MCPClient, a public client for the
// authorization code flow with PKCE on any loopback redirect port; Agent,
// BriefAgent and OpaqueAgent, confidential clients for the client
// credentials grant (BriefAgent's tokens live 2 seconds, OpaqueAgent's are
// opaque); Introspector, the resource server's client at the introspection
// endpoint. Open dynamic client registration (RFC 7591) is on, and a
// client may register a default_resource for the token requests that name
// none. Every
// access token is for the one resource its request names (RFC 8707), a
// URL on a loopback host, with the scopes tools.call and tools.admin.
package oidcprovider

import (
	"bufio"
	"bytes"
	"context"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/toolexec/toolexec/internal/npmtest"
	"github.com/toolexec/toolexec/internal/testlog"
)

//go:embed package.json package-lock.json provider.mjs config.mjs
var files embed.FS

// The clients of config.mjs, and the secrets of the confidential ones
// (each the client id followed by "-secret").
const (
	MCPClient    = "mcp-client"
	Agent        = "agent"
	BriefAgent   = "brief-agent"
	OpaqueAgent  = "opaque-agent"
	Introspector = "toolexec"
)

// Secret is the client secret of a confidential client of config.mjs.
func Secret(client string) string { return client + "-secret" }

// startTimeout bounds how long Start waits for the provider to listen.
const startTimeout = 30 * time.Second

// Provider is a running oidc-provider.
type Provider struct {
	// Issuer is its issuer URL, http://127.0.0.1:PORT.
	Issuer string

	cmd   *exec.Cmd
	stdin io.WriteCloser
	dir   string
	logs  *testlog.Buffer
	done  chan struct{}
}

// Start installs (once) and starts a provider; Stop stops it. It fails
// with an error wrapping npmtest.ErrNoNPM when npm is not installed.
func Start() (*Provider, error) {
	node, err := npmtest.Node()
	if err != nil {
		return nil, err
	}
	pkg, _ := files.ReadFile("package.json")
	lock, _ := files.ReadFile("package-lock.json")
	installed, err := npmtest.Install("oidc-provider", pkg, lock)
	if err != nil {
		return nil, err
	}
	// The scripts go in a directory of their own inside the installation,
	// where node finds its node_modules.
	dir, err := os.MkdirTemp(installed, "run-")
	if err != nil {
		return nil, err
	}
	for _, f := range []string{"package.json", "provider.mjs", "config.mjs"} {
		b, _ := files.ReadFile(f)
		if err := os.WriteFile(filepath.Join(dir, f), b, 0o644); err != nil {
			_ = os.RemoveAll(dir)
			return nil, err
		}
	}
	cmd := exec.Command(node, "provider.mjs")
	cmd.Dir = dir
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	logs := &testlog.Buffer{}
	cmd.Stderr = logs
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		_ = os.RemoveAll(dir)
		return nil, err
	}
	stdin, err := cmd.StdinPipe()
	if err != nil {
		_ = os.RemoveAll(dir)
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		_ = os.RemoveAll(dir)
		return nil, fmt.Errorf("oidcprovider: starting node: %w", err)
	}
	p := &Provider{cmd: cmd, stdin: stdin, dir: dir, logs: logs, done: make(chan struct{})}
	first := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		if sc.Scan() {
			first <- sc.Text()
		}
		close(first)
		_, _ = io.Copy(io.Discard, stdout)
	}()
	go func() { _ = cmd.Wait(); close(p.done) }()
	select {
	case line, ok := <-first:
		var hello struct{ Issuer string }
		if ok && json.Unmarshal([]byte(line), &hello) == nil && hello.Issuer != "" {
			p.Issuer = hello.Issuer
			return p, nil
		}
	case <-time.After(startTimeout):
	}
	p.Stop()
	return nil, fmt.Errorf("oidcprovider: the provider did not start: %s", logs.String())
}

// Stop stops the provider and removes its scripts.
func (p *Provider) Stop() {
	_ = p.stdin.Close() // provider.mjs exits when its input ends
	select {
	case <-p.done:
	case <-time.After(5 * time.Second):
		_ = syscall.Kill(-p.cmd.Process.Pid, syscall.SIGKILL)
		<-p.done
	}
	_ = os.RemoveAll(p.dir)
}

// Logs is what the provider wrote to its standard error.
func (p *Provider) Logs() string { return p.logs.String() }

// Shared is a Provider started on the first Get and shared by the tests
// of a package; the package's TestMain calls Stop after m.Run.
type Shared struct {
	once sync.Once
	p    *Provider
	err  error
}

// Get returns the shared provider, starting it on first use. When it
// cannot be started, t is skipped, saying why (see npmtest.Need).
func (s *Shared) Get(t testing.TB) *Provider {
	t.Helper()
	s.once.Do(func() { s.p, s.err = Start() })
	npmtest.Need(t, s.err, "node's oidc-provider")
	return s.p
}

// Stop stops the provider, when one was started.
func (s *Shared) Stop() {
	if s.p != nil {
		s.p.Stop()
	}
}

// Token is a token endpoint answer.
type Token struct {
	AccessToken  string `json:"access_token"`
	IDToken      string `json:"id_token"`
	RefreshToken string `json:"refresh_token"`
	Scope        string `json:"scope"`
	TokenType    string `json:"token_type"`
	ExpiresIn    int    `json:"expires_in"`
}

// ClientCredentials asks for a token with the client credentials grant
// as client (one of the agents), for scope and resource ("" for none).
func (p *Provider) ClientCredentials(ctx context.Context, client, scope, resource string) (*Token, error) {
	form := url.Values{"grant_type": {"client_credentials"}, "scope": {scope}}
	if resource != "" {
		form.Set("resource", resource)
	}
	var tok Token
	if err := p.post(ctx, "/token", client, form, &tok); err != nil {
		return nil, err
	}
	return &tok, nil
}

// Register registers a client (RFC 7591) with metadata, and returns its
// id and secret ("" for a public client).
func (p *Provider) Register(ctx context.Context, metadata map[string]any) (id, secret string, err error) {
	body, err := json.Marshal(metadata)
	if err != nil {
		return "", "", err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, p.Issuer+"/reg", bytes.NewReader(body))
	if err != nil {
		return "", "", err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return "", "", err
	}
	defer func() { _ = resp.Body.Close() }()
	answer, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return "", "", err
	}
	if resp.StatusCode != http.StatusCreated {
		return "", "", fmt.Errorf("oidcprovider: registration: %s: %s", resp.Status, bytes.TrimSpace(answer))
	}
	var c struct {
		ClientID     string `json:"client_id"`
		ClientSecret string `json:"client_secret"`
	}
	if err := json.Unmarshal(answer, &c); err != nil {
		return "", "", err
	}
	return c.ClientID, c.ClientSecret, nil
}

// Revoke revokes token (RFC 7009) as client, the client it was issued to.
func (p *Provider) Revoke(ctx context.Context, client, token string) error {
	return p.post(ctx, "/token/revocation", client, url.Values{"token": {token}}, nil)
}

// post sends form to the endpoint at path, authenticated as client, and
// decodes a 200 answer into v (when not nil).
func (p *Provider) post(ctx context.Context, path, client string, form url.Values, v any) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, p.Issuer+path, strings.NewReader(form.Encode()))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.SetBasicAuth(client, Secret(client))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer func() { _ = resp.Body.Close() }()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return err
	}
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("oidcprovider: %s: %s: %s", path, resp.Status, bytes.TrimSpace(body))
	}
	if v == nil {
		return nil
	}
	return json.Unmarshal(body, v)
}

// AuthorizationResult is what the provider sent to a redirect URI.
type AuthorizationResult struct {
	Code, State, Issuer string
}

// SignIn plays the user's browser: it follows authURL (an authorization
// request) through the provider's sign-in, which needs no page, up to the
// redirect to redirectURI, and returns that redirect's parameters. An
// error answer of the provider is an error.
func SignIn(ctx context.Context, authURL, redirectURI string) (*AuthorizationResult, error) {
	jar, err := cookiejar.New(nil)
	if err != nil {
		return nil, err
	}
	var landed *url.URL
	client := &http.Client{Jar: jar, Timeout: 30 * time.Second,
		CheckRedirect: func(req *http.Request, via []*http.Request) error {
			if strings.HasPrefix(req.URL.String(), redirectURI) {
				landed = req.URL
				return http.ErrUseLastResponse
			}
			if len(via) > 20 {
				return errors.New("too many redirects")
			}
			return nil
		}}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, authURL, nil)
	if err != nil {
		return nil, err
	}
	resp, err := client.Do(req)
	if err != nil {
		return nil, err
	}
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	_ = resp.Body.Close()
	if landed == nil {
		return nil, fmt.Errorf("oidcprovider: sign-in ended at %s (%s): %s", resp.Request.URL, resp.Status, bytes.TrimSpace(body))
	}
	q := landed.Query()
	if e := q.Get("error"); e != "" {
		return nil, fmt.Errorf("oidcprovider: sign-in refused: %s: %s", e, q.Get("error_description"))
	}
	return &AuthorizationResult{Code: q.Get("code"), State: q.Get("state"), Issuer: q.Get("iss")}, nil
}
