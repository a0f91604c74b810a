package oauth_test

import (
	"context"
	"encoding/json"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolexec/toolexec"
	"github.com/toolexec/toolexec/oauth"
)

// dexResource is the resource URI testdata/dex.yaml (docs/auth.md's Dex
// set-up) names as a static client trusting the MCP client.
const dexResource = "http://127.0.0.1:8080/mcp"

// dexIssuer and dexListen are where testdata/dex.yaml has Dex serve; the
// test moves it to a free port.
const (
	dexIssuer = "http://127.0.0.1:5556/dex"
	dexListen = "http: 127.0.0.1:5556"
)

// startDex runs the Dex binary named by TOOLEXEC_DEX (built from
// github.com/dexidp/dex: go build ./cmd/dex) with testdata/dex.yaml, moved
// to a free loopback port, and returns its issuer URL. The test is
// skipped without it.
func startDex(t *testing.T) string {
	t.Helper()
	bin := os.Getenv("TOOLEXEC_DEX")
	if bin == "" {
		t.Skip("set TOOLEXEC_DEX to a dex binary to run the tests against a real Dex")
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := ln.Addr().String()
	require.NoError(t, ln.Close())
	issuer := "http://" + addr + "/dex"
	doc, err := os.ReadFile(filepath.Join("testdata", "dex.yaml"))
	require.NoError(t, err)
	require.Contains(t, string(doc), "issuer: "+dexIssuer+"\n")
	require.Contains(t, string(doc), dexListen+"\n")
	doc = []byte(strings.NewReplacer("issuer: "+dexIssuer+"\n", "issuer: "+issuer+"\n", dexListen+"\n", "http: "+addr+"\n").Replace(string(doc)))
	cfg := filepath.Join(t.TempDir(), "dex.yaml")
	require.NoError(t, os.WriteFile(cfg, doc, 0o600))
	ctx, cancel := context.WithCancel(context.Background())
	cmd := exec.CommandContext(ctx, bin, "serve", cfg)
	logs := &strings.Builder{}
	cmd.Stdout, cmd.Stderr = logs, logs
	require.NoError(t, cmd.Start())
	t.Cleanup(func() {
		cancel()
		_ = cmd.Wait()
		if t.Failed() {
			t.Log(logs.String())
		}
	})
	require.Eventually(t, func() bool {
		resp, err := http.Get(issuer + "/.well-known/openid-configuration")
		if err != nil {
			return false
		}
		resp.Body.Close()
		return resp.StatusCode == http.StatusOK
	}, 30*time.Second, 50*time.Millisecond, "dex starts")
	return issuer
}

// dexToken asks Dex's token endpoint as the MCP client, and returns the
// decoded answer (access_token, id_token; or error) and its status.
func dexToken(t *testing.T, issuer string, form url.Values) (map[string]string, int) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, issuer+"/token", strings.NewReader(form.Encode()))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.SetBasicAuth("mcp-client", "mcp-client-secret")
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	var out map[string]any
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&out))
	got := map[string]string{}
	for k, v := range out {
		if s, ok := v.(string); ok {
			got[k] = s
		}
	}
	return got, resp.StatusCode
}

// TestAgainstDex: with docs/auth.md's Dex set-up and settings, the scopes
// a 401 asks for get a token from a real Dex that is accepted, whose groups
// grant the tools' scopes; Dex's tokens for the client itself, and its ID
// token from them, are refused under every audience setting.
func TestAgainstDex(t *testing.T) {
	issuer := startDex(t)
	settings := func(c *oauth.Config) {
		c.Issuer = issuer
		c.Resources = []string{dexResource}
		c.ScopeClaims = []string{"groups"}
		c.ScopesSupported = []string{"openid", "groups", "audience:server:client_id:{resource}"}
	}
	cfg := oauth.Config{}
	settings(&cfg)
	v, err := oauth.NewVerifier(cfg)
	require.NoError(t, err)

	reg := &toolexec.Registry{}
	ok := func(context.Context, string, map[string]any) ([]toolexec.Content, bool, string, error) {
		return []toolexec.Content{toolexec.Text("ok")}, false, "", nil
	}
	reg.MustAdd(toolexec.Tool{Name: "deploy", Options: toolexec.ToolOptions{Scopes: []string{"admins"}}}, toolexec.ToolCallHandlerFunc(ok))
	reg.MustAdd(toolexec.Tool{Name: "audit", Options: toolexec.ToolOptions{Scopes: []string{"auditors"}}}, toolexec.ToolCallHandlerFunc(ok))
	reg.MustAdd(toolexec.Tool{Name: "ping"}, toolexec.ToolCallHandlerFunc(ok))
	h := toolexec.NewHandler(toolexec.New(reg, reg, toolexec.WithAllowExecute(true), toolexec.WithAuthHook(v.AuthHook)))
	call := func(tool, token string) (int, string) {
		w := serve(h, newRequest(http.MethodPost, dexResource+"/tools/"+tool+"/call", "/tools/"+tool+"/call", token))
		return w.Code, w.Header().Get("WWW-Authenticate")
	}

	// A client without a token is told which scopes to ask Dex for.
	code, chal := call("deploy", "")
	require.Equal(t, http.StatusUnauthorized, code)
	wantScope := "openid groups audience:server:client_id:" + dexResource
	require.Contains(t, chal, `scope="`+wantScope+`"`)

	// Those scopes, asked for by a user, give a token the tools accept.
	user, status := dexToken(t, issuer, url.Values{"grant_type": {"password"}, "username": {"alice@example.com"},
		"password": {"password"}, "scope": {wantScope}})
	require.Equal(t, http.StatusOK, status, user)
	id, err := v.Verify(context.Background(), user["access_token"], "")
	require.NoError(t, err)
	assert.Equal(t, []string{"admins", "devs"}, id.Scopes, "groups as scopes")
	assert.Equal(t, "mcp-client", id.ClientID)
	code, _ = call("deploy", user["access_token"])
	assert.Equal(t, http.StatusOK, code, "alice is in admins")
	code, chal = call("audit", user["access_token"])
	assert.Equal(t, http.StatusForbidden, code, "alice is not in auditors")
	assert.Equal(t, map[string]string{"error": "insufficient_scope", "error_description": claimValue("auditors"),
		"resource_metadata": "https://tools.example.com/.well-known/oauth-protected-resource/mcp"}, challengeParams(t, chal),
		"auditors is a group: a client cannot ask Dex for it")

	// Client credentials: the client itself, in no group.
	app, status := dexToken(t, issuer, url.Values{"grant_type": {"client_credentials"}, "scope": {wantScope}})
	require.Equal(t, http.StatusOK, status, app)
	code, _ = call("ping", app["access_token"])
	assert.Equal(t, http.StatusOK, code)
	code, _ = call("deploy", app["access_token"])
	assert.Equal(t, http.StatusForbidden, code)

	// Dex refuses a scope it does not know, which is why the groups the
	// tools need are never in ScopesSupported, and 401 challenges name
	// nothing else.
	bad, status := dexToken(t, issuer, url.Values{"grant_type": {"password"}, "username": {"alice@example.com"},
		"password": {"password"}, "scope": {"openid admins"}})
	assert.Equal(t, http.StatusBadRequest, status)
	assert.Contains(t, bad["error_description"], "Unrecognized scope")

	// Without the audience scope, Dex's tokens name the client alone.
	own, status := dexToken(t, issuer, url.Values{"grant_type": {"password"}, "username": {"alice@example.com"},
		"password": {"password"}, "scope": {"openid groups"}})
	require.Equal(t, http.StatusOK, status, own)
	for name, c := range map[string]func(*oauth.Config){
		"as documented": settings,
		"the client id as an extra audience": func(c *oauth.Config) {
			settings(c)
			c.Audiences = []string{"mcp-client"}
			c.AuthorizedParties = []string{"mcp-client"}
		},
	} {
		cfg := oauth.Config{}
		c(&cfg)
		v, err := oauth.NewVerifier(cfg)
		require.NoError(t, err)
		for _, tok := range []string{"access_token", "id_token"} {
			_, err := v.Verify(context.Background(), own[tok], "")
			assert.ErrorIs(t, err, oauth.ErrInvalidToken, "%s, %s", tok, name)
		}
	}
}
