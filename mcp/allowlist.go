package mcp

import (
	"net"
	"net/http"
	"net/netip"
	"strings"
)

// normalizeOrigin lower-cases an origin and drops a trailing slash, the two
// ways a correct origin written by hand differs from what browsers send.
func normalizeOrigin(o string) string {
	return strings.TrimSuffix(strings.ToLower(strings.TrimSpace(o)), "/")
}

// requestAllowed applies the DNS-rebinding defense to r (see
// WithAllowedHosts and WithAllowedOrigins).
func (h *handler) requestAllowed(r *http.Request) bool {
	return h.hostAllowed(r) && h.originAllowed(r)
}

// originAllowed reports whether a request's Origin header passes the check:
// no Origin (not a browser), an allowed origin, or, unless the defense is
// off, the request's own origin (its Host).
func (h *handler) originAllowed(r *http.Request) bool {
	origin := header(r.Header, "Origin")
	if origin == "" {
		return true
	}
	o := normalizeOrigin(origin)
	if h.origins[o] {
		return true
	}
	scheme, hostport, ok := strings.Cut(o, "://")
	if ok && h.origins != nil {
		// An entry without a port admits that scheme and host on any port.
		if name, _, err := net.SplitHostPort(hostport); err == nil {
			if strings.Contains(name, ":") {
				name = "[" + name + "]"
			}
			if h.origins[scheme+"://"+name] {
				return true
			}
		}
	}
	if h.noRebindingDefense {
		return h.origins == nil
	}
	return ok && (scheme == "http" || scheme == "https") && hostport != "" && strings.EqualFold(hostport, r.Host)
}

// hostAllowed reports whether a request's Host header passes the check: an
// allowed host when WithAllowedHosts gave a list, and otherwise, unless the
// defense is off, a loopback name for a request that arrived on a loopback
// address.
func (h *handler) hostAllowed(r *http.Request) bool {
	if h.hosts == nil && (h.noRebindingDefense || !arrivedOnLoopback(r)) {
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
	if h.hosts != nil {
		return h.hosts[host] || h.hosts[name]
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
