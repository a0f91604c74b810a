package netguard

import (
	"context"
	"errors"
	"net"
	"net/netip"
	"net/url"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func mustURL(t *testing.T, s string) *url.URL {
	t.Helper()
	u, err := url.Parse(s)
	require.NoError(t, err)
	return u
}

func TestAllowList_SchemeHostAndPort(t *testing.T) {
	cases := []struct {
		base  string
		hosts []string
		url   string
		want  bool
	}{
		{"https://api.example.com", nil, "https://api.example.com/x", true},
		{"https://api.example.com", nil, "https://API.example.com.:443/x", true},
		{"https://api.example.com", nil, "https://api.example.com:8443/x", false},
		{"https://api.example.com", nil, "http://api.example.com/x", false},
		{"https://api.example.com", nil, "https://evil.com/x", false},
		{"http://127.0.0.1:8080", nil, "http://127.0.0.1:8080/x", true},
		{"http://127.0.0.1:8080", nil, "http://127.0.0.1:6379/x", false},
		{"http://127.0.0.1:8080", nil, "http://127.0.0.1/x", false},
		{"http://127.0.0.1:8080", []string{"127.0.0.1", "127.0.0.1:9090"}, "http://127.0.0.1:9090/x", true},
		{"http://127.0.0.1:8080", []string{"127.0.0.1", "127.0.0.1:9090"}, "http://127.0.0.1:9091/x", false},
		{"https://api.example.com", []string{"api.example.com", "*.cdn.example.com"}, "https://a.cdn.example.com/x", true},
		{"https://api.example.com", []string{"api.example.com", "*.cdn.example.com"}, "https://cdn.example.com/x", false},
		{"https://api.example.com", []string{"api.example.com", "*.cdn.example.com:444"}, "https://a.cdn.example.com:444/x", true},
		{"https://api.example.com", []string{"api.example.com", "*.cdn.example.com:444"}, "https://a.cdn.example.com/x", false},
		{"https://api.example.com", []string{"api.example.com", "*.0.0.1"}, "https://127.0.0.1/x", false},
		{"http://[::1]:8080", nil, "http://[::1]:8080/x", true},
		{"http://[::1]:8080", []string{"::1", "[::1]:9000"}, "http://[::1]:9000/x", true},
		{"http://[::1]:8080", nil, "http://[::1]:9000/x", false},
	}
	for _, c := range cases {
		a, err := New(mustURL(t, c.base), c.hosts, false)
		require.NoError(t, err, c.base)
		assert.Equal(t, c.want, a.Allows(mustURL(t, c.url)), "%s %v %s", c.base, c.hosts, c.url)
	}
}

func TestAllowList_BadEntriesAndBase(t *testing.T) {
	base := mustURL(t, "https://api.example.com")
	for _, e := range []string{"api.example.com:0", "api.example.com:99999", "api.example.com:x", "https://api.example.com", "*.", "*.10.0.0.1", "a.*.com", "[api.example.com]:1", ""} {
		_, err := New(base, []string{"api.example.com", e}, false)
		assert.Error(t, err, e)
		assert.Error(t, CheckEntry(e), e)
	}
	_, err := New(base, []string{"api.example.com:8443"}, false)
	assert.ErrorContains(t, err, "baseUrl", "the base URL's own port must be allowed")
	_, err = New(mustURL(t, "ftp://x"), nil, false)
	assert.Error(t, err)
}

func TestSameOrigin(t *testing.T) {
	assert.True(t, SameOrigin(mustURL(t, "https://a.com/x"), mustURL(t, "https://A.com:443/y?z")))
	assert.False(t, SameOrigin(mustURL(t, "https://a.com"), mustURL(t, "http://a.com")))
	assert.False(t, SameOrigin(mustURL(t, "https://a.com"), mustURL(t, "https://b.a.com")))
	assert.False(t, SameOrigin(mustURL(t, "http://a.com"), mustURL(t, "http://a.com:8080")))
}

func TestIsLocal(t *testing.T) {
	for s, want := range map[string]bool{
		"127.0.0.1": true, "127.9.9.9": true, "10.0.0.1": true, "172.16.5.4": true, "172.32.0.1": false,
		"192.168.1.1": true, "169.254.169.254": true, "100.64.0.1": true, "100.128.0.1": false,
		"0.0.0.0": true, "0.1.2.3": true, "224.0.0.1": true, "255.255.255.255": true, "240.0.0.1": true,
		"198.18.0.1": true, "192.0.0.8": true,
		"::1": true, "::": true, "::ffff:10.0.0.1": true, "::ffff:127.0.0.1": true, "::ffff:8.8.8.8": false,
		"fc00::1": true, "fd12:3456::1": true, "fe80::1": true, "fe80::1%eth0": true, "fec0::1": true,
		"ff02::1": true, "64:ff9b::a00:1": true, "64:ff9b::808:808": false, "2002:a00:1::": true,
		"2002:808:808::": false, "2001:db8::1": true, "::10.0.0.1": true,
		"8.8.8.8": false, "1.1.1.1": false, "2606:4700:4700::1111": false,
	} {
		assert.Equal(t, want, IsLocal(netip.MustParseAddr(s)), s)
	}
	assert.True(t, IsLocal(netip.Addr{}), "an invalid address is never public")
}

// recorder is a DialFunc that records every address it is asked for and
// connects to loopback only: a test never reaches another address.
type recorder struct {
	mu    sync.Mutex
	addrs []string
}

func (r *recorder) dial(ctx context.Context, network, addr string) (net.Conn, error) {
	r.mu.Lock()
	r.addrs = append(r.addrs, addr)
	r.mu.Unlock()
	host, _, _ := net.SplitHostPort(addr)
	if ip, err := netip.ParseAddr(host); err != nil || !ip.IsLoopback() {
		return nil, errors.New("test dialer: refusing a non-loopback address")
	}
	var d net.Dialer
	return d.DialContext(ctx, network, addr)
}

func (r *recorder) dialled() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.addrs...)
}

func resolveTo(addrs ...string) LookupFunc {
	return func(context.Context, string) ([]netip.Addr, error) {
		var out []netip.Addr
		for _, a := range addrs {
			out = append(out, netip.MustParseAddr(a))
		}
		return out, nil
	}
}

func TestGuard_NameResolvingToLocalAddressIsRefusedBeforeDialling(t *testing.T) {
	list, err := New(mustURL(t, "https://api.example.com"), nil, false)
	require.NoError(t, err)
	for _, addrs := range [][]string{{"10.0.0.1"}, {"169.254.169.254"}, {"::ffff:10.0.0.1"}, {"93.184.216.34", "10.0.0.1"}, {"127.0.0.1"}, {"fd00::1"}} {
		rec := &recorder{}
		g := NewGuard(list, resolveTo(addrs...), rec.dial)
		_, err := g.DialContext(context.Background(), "tcp", "api.example.com:443")
		require.ErrorIs(t, err, ErrLocalAddress, addrs)
		assert.Empty(t, rec.dialled(), "nothing was dialled for %v", addrs)
	}
}

func TestGuard_AllowPrivateNetworksDialsTheResolvedAddress(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer ln.Close()
	_, port, _ := net.SplitHostPort(ln.Addr().String())
	list, err := New(mustURL(t, "http://internal.example:"+port), nil, true)
	require.NoError(t, err)
	rec := &recorder{}
	g := NewGuard(list, resolveTo("127.0.0.1"), rec.dial)
	conn, err := g.DialContext(context.Background(), "tcp", "internal.example:"+port)
	require.NoError(t, err)
	conn.Close()
	assert.Equal(t, []string{"127.0.0.1:" + port}, rec.dialled(), "the checked address is the one dialled")
}

func TestGuard_LiteralsAreTheAuthorsChoice(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer ln.Close()
	_, port, _ := net.SplitHostPort(ln.Addr().String())

	list, err := New(mustURL(t, "http://127.0.0.1:"+port), nil, false)
	require.NoError(t, err)
	rec := &recorder{}
	lookups := 0
	g := NewGuard(list, func(context.Context, string) ([]netip.Addr, error) { lookups++; return nil, errors.New("no") }, rec.dial)
	conn, err := g.DialContext(context.Background(), "tcp", "127.0.0.1:"+port)
	require.NoError(t, err, "an IP literal the author wrote is dialled")
	conn.Close()
	assert.Zero(t, lookups)

	list, err = New(mustURL(t, "http://localhost:"+port), nil, false)
	require.NoError(t, err)
	g = NewGuard(list, resolveTo("127.0.0.1"), rec.dial)
	conn, err = g.DialContext(context.Background(), "tcp", "localhost:"+port)
	require.NoError(t, err, "localhost resolving to loopback is dialled")
	conn.Close()

	rec = &recorder{}
	g = NewGuard(list, resolveTo("10.0.0.1"), rec.dial)
	_, err = g.DialContext(context.Background(), "tcp", "localhost:"+port)
	require.ErrorIs(t, err, ErrLocalAddress, "localhost resolving to a private address is refused")
	assert.Empty(t, rec.dialled())
}

func TestGuard_HostOrPortOutsideTheListIsNeverResolved(t *testing.T) {
	list, err := New(mustURL(t, "http://127.0.0.1:8080"), nil, false)
	require.NoError(t, err)
	rec := &recorder{}
	g := NewGuard(list, resolveTo("127.0.0.1"), rec.dial)
	for _, addr := range []string{"127.0.0.1:22", "localhost:8080", "evil.example:8080"} {
		_, err := g.DialContext(context.Background(), "tcp", addr)
		require.ErrorIs(t, err, ErrNotAllowed, addr)
	}
	assert.Empty(t, rec.dialled())
}

func TestNewHosts_EachSchemeItsDefaultPort(t *testing.T) {
	cases := []struct {
		scheme string
		hosts  []string
		url    string
		want   bool
	}{
		{"https", []string{"api.example.com"}, "https://api.example.com/x", true},
		{"https", []string{"api.example.com"}, "https://api.example.com:443/x", true},
		{"https", []string{"api.example.com"}, "https://api.example.com:8443/x", false},
		{"https", []string{"api.example.com"}, "http://api.example.com/x", false},
		{"http", []string{"api.example.com"}, "http://api.example.com/x", true},
		{"http", []string{"api.example.com"}, "http://api.example.com:443/x", false},
		{"http", []string{"127.0.0.1:8080"}, "http://127.0.0.1:8080/x", true},
		{"http", []string{"127.0.0.1:8080"}, "http://127.0.0.1/x", false},
		{"https", []string{"*.example.com"}, "https://a.example.com/x", true},
		{"https", []string{"*.example.com"}, "https://example.com/x", false},
	}
	for _, c := range cases {
		a, err := NewHosts(c.scheme, c.hosts, false)
		require.NoError(t, err)
		assert.Equal(t, c.want, a.Allows(mustURL(t, c.url)), "%s %v %s", c.scheme, c.hosts, c.url)
	}
	_, err := NewHosts("https", nil, false)
	assert.Error(t, err, "an empty list allows nothing, and is refused")
	_, err = NewHosts("ftp", []string{"a.example.com"}, false)
	assert.Error(t, err)
	_, err = NewHosts("https", []string{"https://a.example.com"}, false)
	assert.Error(t, err, "an entry is a host, not a URL")
}
