package mcp_test

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolexec/toolexec/mcp"
)

// loopbackStatus sends a ping to a real loopback server running h, with the
// given Host and Origin ("" leaves Origin out), and returns the status.
func loopbackStatus(t *testing.T, h http.Handler, host, origin string) int {
	t.Helper()
	srv := httptest.NewServer(h) // listens on 127.0.0.1
	defer srv.Close()
	req, err := http.NewRequest(http.MethodPost, srv.URL, strings.NewReader(pingBody))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if host != "" {
		req.Host = host
	}
	if origin != "" {
		req.Header.Set("Origin", origin)
	}
	res, err := srv.Client().Do(req)
	require.NoError(t, err)
	defer res.Body.Close()
	return res.StatusCode
}

func TestOnLoopbackOnlyLoopbackHostsAreServedByDefault(t *testing.T) {
	h := newHandler(t, nil)
	for host, want := range map[string]int{
		"":                      http.StatusOK, // the listener's own 127.0.0.1:port
		"localhost:8080":        http.StatusOK,
		"LOCALHOST":             http.StatusOK,
		"localhost.:8080":       http.StatusOK,
		"app.localhost:3000":    http.StatusOK,
		"127.0.0.2":             http.StatusOK,
		"[::1]:9":               http.StatusOK,
		"evil.example.com":      http.StatusForbidden,
		"evil.example.com:8080": http.StatusForbidden,
		"localhost.evil.com":    http.StatusForbidden,
		"192.168.1.10":          http.StatusForbidden,
	} {
		assert.Equal(t, want, loopbackStatus(t, h, host, ""), "host %q", host)
	}
}

func TestTheDNSRebindingScenarioIsRefused(t *testing.T) {
	// What the conformance suite's dns-rebinding-protection sends: a Host
	// and a matching Origin that name the attacker's domain, rebound to
	// 127.0.0.1.
	h := newHandler(t, nil)
	assert.Equal(t, http.StatusForbidden, loopbackStatus(t, h, "evil.example.com", "http://evil.example.com"))
	srv := httptest.NewServer(h)
	defer srv.Close()
	host := strings.TrimPrefix(srv.URL, "http://")
	assert.Equal(t, http.StatusOK, loopbackStatus(t, h, host, "http://"+host))
}

func TestAllowListsAdmitWhatTheDefaultsRefuse(t *testing.T) {
	h := newHandler(t, nil, mcp.WithAllowedHosts("api.example.com"), mcp.WithAllowedOrigins("https://app.example.com"))
	assert.Equal(t, http.StatusOK, loopbackStatus(t, h, "api.example.com", ""))
	assert.Equal(t, http.StatusOK, loopbackStatus(t, h, "api.example.com", "https://app.example.com"))
	assert.Equal(t, http.StatusForbidden, loopbackStatus(t, h, "localhost", ""), "a list replaces the loopback default")

	off := newHandler(t, nil, mcp.WithoutRebindingProtection())
	assert.Equal(t, http.StatusOK, loopbackStatus(t, off, "evil.example.com", "http://evil.example.com"))
}

func TestAnOriginEntryWithoutAPortMatchesAnyPort(t *testing.T) {
	h := newHandler(t, nil, mcp.WithAllowedOrigins("http://localhost", "http://[::1]"))
	for origin, want := range map[string]int{
		"http://localhost":       http.StatusOK,
		"http://localhost:8080":  http.StatusOK,
		"http://[::1]:5173":      http.StatusOK,
		"https://localhost:8080": http.StatusForbidden, // the scheme still counts
		"http://localhost.evil":  http.StatusForbidden,
	} {
		assert.Equal(t, want, post(t, h, pingBody, "Origin", origin).Code, "origin %q", origin)
	}
}

// Requests that did not arrive on a loopback address (behind a proxy, say)
// are not held to loopback Host names.
func TestOffLoopbackAnyHostIsServedByDefault(t *testing.T) {
	h := newHandler(t, nil)
	req := httptest.NewRequest(http.MethodPost, "/", strings.NewReader(pingBody))
	req.Host = "api.example.com"
	req = req.WithContext(contextWithLocalAddr(req, &net.TCPAddr{IP: net.ParseIP("10.0.0.5"), Port: 443}))
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	assert.Equal(t, http.StatusOK, rec.Code)
}

func contextWithLocalAddr(r *http.Request, addr net.Addr) context.Context {
	return context.WithValue(r.Context(), http.LocalAddrContextKey, addr)
}
