// Package hostguard is the DNS-rebinding and cross-site request defense
// every surface shares: a check of a request's Host and Origin headers made
// before anything else is looked at.
//
// A server listening on a loopback address can be reached from any web page
// its user opens, through DNS rebinding (the page's own name is made to
// resolve to 127.0.0.1), and a page on another origin can send it "simple"
// cross-site requests. The defense refuses a request whose Host (for one
// that arrived on a loopback address) or Origin is not one the server
// expects.
package hostguard

import (
	"net"
	"net/http"
	"net/netip"
	"strings"
)

// Guard decides which requests pass the Host and Origin checks. Its zero
// value is the default defense:
//
//   - Host: a request that arrived on a loopback address is served only
//     when its Host is a loopback name (localhost, a name under
//     .localhost, a loopback address); requests on other addresses pass.
//   - Origin: a request without an Origin header (every non-browser
//     client) passes; one with an Origin passes only when that origin is
//     the request's own (scheme http or https, host and port those of the
//     Host header).
//
// AllowHosts replaces the loopback default with a list; AllowOrigins adds
// origins; Disable turns the defaults off (the lists, when given, still
// apply). A Guard is configured once, then only read, so it is safe for
// concurrent use.
type Guard struct {
	hosts   map[string]bool // nil: the loopback default
	origins map[string]bool // nil: none besides the request's own
	off     bool
}

// New returns a Guard with the default defense and the given lists (see
// AllowHosts and AllowOrigins).
func New(hosts, origins []string) *Guard {
	g := &Guard{}
	g.AllowHosts(hosts...)
	g.AllowOrigins(origins...)
	return g
}

// AllowHosts adds hosts to the Host headers served; the first host given
// replaces the loopback default, and no hosts at all changes nothing. An
// entry without a port ("localhost", "127.0.0.1", "[::1]",
// "api.example.com") matches that host on any port; one with a port
// ("localhost:8080") only that port. Case is ignored.
func (g *Guard) AllowHosts(hosts ...string) {
	if len(hosts) == 0 {
		return
	}
	if g.hosts == nil {
		g.hosts = make(map[string]bool, len(hosts))
	}
	for _, h := range hosts {
		g.hosts[strings.ToLower(strings.TrimSpace(h))] = true
	}
}

// AllowOrigins adds origins a browser may call from. Origins are compared
// case-insensitively, scheme included: "http://localhost:3000" admits
// exactly that origin, "http://localhost" that scheme and host on any port.
// No origins at all changes nothing.
func (g *Guard) AllowOrigins(origins ...string) {
	if len(origins) == 0 {
		return
	}
	if g.origins == nil {
		g.origins = make(map[string]bool, len(origins))
	}
	for _, o := range origins {
		g.origins[normalizeOrigin(o)] = true
	}
}

// Disable turns off the loopback Host default and the same-origin Origin
// default; lists given with AllowHosts and AllowOrigins still apply.
func (g *Guard) Disable() { g.off = true }

// Allowed reports whether r passes both checks.
func (g *Guard) Allowed(r *http.Request) bool {
	return g.hostAllowed(r) && g.originAllowed(r)
}

// normalizeOrigin lower-cases an origin and drops a trailing slash, the two
// ways a correct origin written by hand differs from what browsers send.
func normalizeOrigin(o string) string {
	return strings.TrimSuffix(strings.ToLower(strings.TrimSpace(o)), "/")
}

// originAllowed reports whether a request's Origin header passes: no
// Origin, an allowed origin, or, unless the defense is off, the request's
// own origin.
func (g *Guard) originAllowed(r *http.Request) bool {
	origin := firstHeader(r.Header, "Origin")
	if origin == "" {
		return true
	}
	o := normalizeOrigin(origin)
	if g.origins[o] {
		return true
	}
	scheme, hostport, ok := strings.Cut(o, "://")
	if ok && g.origins != nil {
		// An entry without a port admits that scheme and host on any port.
		if name, _, err := net.SplitHostPort(hostport); err == nil {
			if strings.Contains(name, ":") {
				name = "[" + name + "]"
			}
			if g.origins[scheme+"://"+name] {
				return true
			}
		}
	}
	if g.off {
		return g.origins == nil
	}
	return ok && (scheme == "http" || scheme == "https") && hostport != "" && strings.EqualFold(hostport, r.Host)
}

// hostAllowed reports whether a request's Host header passes: an allowed
// host when a list was given, and otherwise, unless the defense is off, a
// loopback name for a request that arrived on a loopback address.
func (g *Guard) hostAllowed(r *http.Request) bool {
	if g.hosts == nil && (g.off || !arrivedOnLoopback(r)) {
		return true // the usual case, decided without allocating
	}
	host := strings.ToLower(r.Host)
	name := host
	if n, _, err := net.SplitHostPort(host); err == nil {
		name = n
		if strings.Contains(name, ":") { // an IPv6 literal: entries write it bracketed
			name = "[" + name + "]"
		}
	}
	if g.hosts != nil {
		return g.hosts[host] || g.hosts[name]
	}
	return loopbackName(name)
}

// arrivedOnLoopback reports whether r came in on a loopback address of this
// machine, as net/http records it.
func arrivedOnLoopback(r *http.Request) bool {
	switch addr := r.Context().Value(http.LocalAddrContextKey).(type) {
	case *net.TCPAddr:
		return addr.IP.IsLoopback()
	case net.Addr:
		ap, err := netip.ParseAddrPort(addr.String())
		return err == nil && ap.Addr().Unmap().IsLoopback()
	}
	return false
}

// loopbackName reports whether a Host name (lower case, port removed, IPv6
// bracketed) can only mean this machine: localhost, a name under
// .localhost, or a loopback address.
func loopbackName(name string) bool {
	name = strings.TrimSuffix(name, ".") // the fully qualified form, "localhost."
	if name == "localhost" || strings.HasSuffix(name, ".localhost") {
		return true
	}
	ip, err := netip.ParseAddr(strings.TrimSuffix(strings.TrimPrefix(name, "["), "]"))
	return err == nil && ip.Unmap().IsLoopback()
}

// firstHeader returns the first value of a header read by its canonical key,
// without the allocation of http.Header.Get's canonicalization.
func firstHeader(h http.Header, key string) string {
	if v := h[key]; len(v) > 0 {
		return v[0]
	}
	return ""
}
