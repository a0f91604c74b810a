// Package netguard decides where the command's HTTP tools may connect:
// the origins (scheme, host and port) a source's allow-list names, and the
// IP addresses a host name may resolve to before it is dialled.
package netguard

import (
	"errors"
	"fmt"
	"net"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
)

// AllowList is the set of origins one HTTP source may reach: the origin of
// its base URL, and the hosts its allowedHosts entries name. Every origin
// has the base URL's scheme. An entry without a port allows the base URL's
// port (the scheme's default when the URL names none); an entry with one
// ("host:8443") allows that port instead. An AllowList is immutable and
// safe for concurrent use.
type AllowList struct {
	scheme  string
	port    string
	entries []entry
	private bool
}

type entry struct {
	host     string // lower case, no trailing dot, no brackets
	wildcard bool   // host is a suffix: "*.example.com" holds "example.com"
	port     string
}

// New returns the allow-list of a source whose base URL is baseURL (an
// absolute http or https URL) and whose allowedHosts are hosts (none: the
// base URL's host alone). allowPrivate lets host names resolve to private,
// loopback and other local addresses (see Guard). It fails when an entry is
// malformed or when the base URL's own origin is outside the list.
func New(baseURL *url.URL, hosts []string, allowPrivate bool) (*AllowList, error) {
	if baseURL == nil || (baseURL.Scheme != "http" && baseURL.Scheme != "https") || baseURL.Hostname() == "" {
		return nil, errors.New("baseUrl must be an absolute http or https URL")
	}
	a := &AllowList{scheme: baseURL.Scheme, port: EffectivePort(baseURL), private: allowPrivate}
	if len(hosts) == 0 {
		hosts = []string{baseURL.Hostname()}
	}
	for _, h := range hosts {
		e, err := parseEntry(h)
		if err != nil {
			return nil, fmt.Errorf("allowedHosts entry %q: %w", h, err)
		}
		a.entries = append(a.entries, e)
	}
	if !a.Allows(baseURL) {
		return nil, errors.New("the host and port of baseUrl are not in allowedHosts")
	}
	return a, nil
}

// CheckEntry reports whether s is a well-formed allowedHosts entry: a host
// name, an IP address, or "*." followed by a domain, each optionally with
// ":PORT" (an IPv6 address with a port in brackets, "[::1]:8080"). The
// error says what is wrong without quoting s.
func CheckEntry(s string) error {
	_, err := parseEntry(s)
	return err
}

func parseEntry(s string) (entry, error) {
	var e entry
	if strings.ContainsAny(s, "/@?#") {
		return e, errors.New("it is a host name, not a URL")
	}
	host := s
	switch {
	case strings.HasPrefix(s, "["):
		if h, p, err := net.SplitHostPort(s); err == nil {
			host, e.port = h, p
		} else if strings.HasSuffix(s, "]") {
			host = s[1 : len(s)-1]
		} else {
			return e, errors.New("it is not HOST or HOST:PORT")
		}
		if _, err := netip.ParseAddr(host); err != nil {
			return e, errors.New("only an IPv6 address goes in brackets")
		}
	case strings.Count(s, ":") == 1:
		h, p, err := net.SplitHostPort(s)
		if err != nil {
			return e, errors.New("it is not HOST or HOST:PORT")
		}
		host, e.port = h, p
	case strings.Count(s, ":") > 1:
		if _, err := netip.ParseAddr(s); err != nil {
			return e, errors.New("it is not HOST or HOST:PORT (an IPv6 address with a port goes in brackets)")
		}
	}
	if e.port != "" {
		n, err := strconv.Atoi(e.port)
		if err != nil || n < 1 || n > 65535 {
			return e, errors.New("the port must be a number from 1 to 65535")
		}
		e.port = strconv.Itoa(n)
	}
	if suffix, ok := strings.CutPrefix(host, "*."); ok {
		e.wildcard, host = true, suffix
		if _, err := netip.ParseAddr(host); err == nil || host == "" || strings.Contains(host, "*") {
			return e, errors.New(`a wildcard entry needs a domain after "*."`)
		}
	}
	if host == "" || strings.Contains(host, "*") {
		return e, errors.New("it is not a host name")
	}
	e.host = canonicalHost(host)
	return e, nil
}

// canonicalHost is a host as allow-lists compare it: lower case, without a
// trailing dot, an IP address in its canonical form.
func canonicalHost(h string) string {
	h = strings.ToLower(strings.TrimSuffix(h, "."))
	if ip, err := netip.ParseAddr(h); err == nil {
		return ip.Unmap().String()
	}
	return h
}

// EffectivePort is u's port: the one it names, else its scheme's default
// (80 for http, 443 for https).
func EffectivePort(u *url.URL) string {
	if p := u.Port(); p != "" {
		if n, err := strconv.Atoi(p); err == nil {
			return strconv.Itoa(n)
		}
		return p
	}
	if u.Scheme == "https" {
		return "443"
	}
	return "80"
}

// Allows reports whether u's origin is in the list: its scheme is the base
// URL's and its host and port match an entry.
func (a *AllowList) Allows(u *url.URL) bool {
	if u.Scheme != a.scheme || u.Hostname() == "" {
		return false
	}
	return a.allowsHostPort(u.Hostname(), EffectivePort(u))
}

// allowsHostPort reports whether host and port match an entry. A wildcard
// entry matches host names only, never an IP address.
func (a *AllowList) allowsHostPort(host, port string) bool {
	host = canonicalHost(host)
	_, ipErr := netip.ParseAddr(host)
	for _, e := range a.entries {
		want := e.port
		if want == "" {
			want = a.port
		}
		if port != want {
			continue
		}
		if e.wildcard {
			if ipErr != nil && strings.HasSuffix(host, "."+e.host) {
				return true
			}
			continue
		}
		if host == e.host {
			return true
		}
	}
	return false
}

// SameOrigin reports whether a and b have the same scheme, host and port.
func SameOrigin(a, b *url.URL) bool {
	return a.Scheme == b.Scheme && canonicalHost(a.Hostname()) == canonicalHost(b.Hostname()) && EffectivePort(a) == EffectivePort(b)
}
