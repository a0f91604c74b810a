package hostguard

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/assert"
)

// onLoopback is a request with the given Host and Origin that arrived on
// 127.0.0.1, as net/http records it.
func onLoopback(host, origin string) *http.Request {
	r := httptest.NewRequest(http.MethodPost, "/", nil)
	r.Host = host
	if origin != "" {
		r.Header.Set("Origin", origin)
	}
	addr := &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 8080}
	return r.WithContext(context.WithValue(r.Context(), http.LocalAddrContextKey, addr))
}

func TestTheZeroGuardIsTheDefaultDefense(t *testing.T) {
	var g Guard
	assert.True(t, g.Allowed(onLoopback("localhost:8080", "")))
	assert.True(t, g.Allowed(onLoopback("localhost:8080", "http://localhost:8080")))
	assert.False(t, g.Allowed(onLoopback("evil.example", "")))
	assert.False(t, g.Allowed(onLoopback("localhost:8080", "http://evil.example")))
	assert.False(t, g.Allowed(onLoopback("localhost:8080", "null")), "a sandboxed page's opaque origin")

	offLoopback := httptest.NewRequest(http.MethodGet, "/", nil)
	offLoopback.Host = "api.example.com"
	assert.True(t, g.Allowed(offLoopback), "the Host default applies to loopback arrivals only")
}

func TestEmptyListsChangeNothing(t *testing.T) {
	g := New(nil, nil)
	assert.True(t, g.Allowed(onLoopback("localhost", "")))
	g.AllowHosts()
	g.AllowOrigins()
	assert.True(t, g.Allowed(onLoopback("localhost", "")))
	assert.False(t, g.Allowed(onLoopback("evil.example", "")))
}

func TestDisableKeepsTheLists(t *testing.T) {
	g := New(nil, []string{"https://app.example.com"})
	g.Disable()
	assert.True(t, g.Allowed(onLoopback("evil.example", "")), "no Host default")
	assert.True(t, g.Allowed(onLoopback("evil.example", "https://app.example.com")))
	assert.False(t, g.Allowed(onLoopback("evil.example", "https://other.example.com")), "the origin list still applies")
}
