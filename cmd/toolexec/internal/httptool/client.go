// Package httptool runs declared HTTP-API tools (mcp-toolbox's http kind):
// a request built from a source's base URL and a tool's method, path,
// query, header and body parameters, with an allow-list of upstream hosts
// enforced on the first request and on every redirect, a per-tool timeout
// and a cap on the response read.
package httptool

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"slices"
	"strings"
	"time"
)

// MaxRedirects is how many redirects a call follows, each checked against
// the allow-list.
const MaxRedirects = 5

// errHostNotAllowed is returned (wrapped) when a request or a redirect
// targets a host outside the source's allow-list.
var errHostNotAllowed = errors.New("host not allowed")

// hostAllowed reports whether host (no port) is in allowed. Entries match
// the whole host name, case-insensitively; an entry "*.example.com"
// matches any subdomain of example.com (not example.com itself).
func hostAllowed(host string, allowed []string) bool {
	host = strings.ToLower(strings.TrimSuffix(host, "."))
	for _, a := range allowed {
		a = strings.ToLower(a)
		if suffix, ok := strings.CutPrefix(a, "*."); ok {
			if strings.HasSuffix(host, "."+suffix) {
				return true
			}
			continue
		}
		if host == a {
			return true
		}
	}
	return false
}

// newClient returns the client of one source: no proxy from the
// environment (a proxy would be a host outside the list), redirects
// followed only to allowed hosts, and a dialer that refuses any address
// whose host name is not allowed, so no path through the transport (a
// redirect, a retried connection) reaches another host.
func newClient(allowed []string) *http.Client {
	allowed = slices.Clone(allowed)
	dialer := &net.Dialer{Timeout: 10 * time.Second, KeepAlive: 30 * time.Second}
	transport := &http.Transport{
		Proxy: nil,
		DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
			host, _, err := net.SplitHostPort(addr)
			if err != nil {
				return nil, err
			}
			if !hostAllowed(host, allowed) {
				return nil, fmt.Errorf("dial %s: %w", host, errHostNotAllowed)
			}
			return dialer.DialContext(ctx, network, addr)
		},
		ForceAttemptHTTP2:     true,
		MaxIdleConns:          100,
		MaxIdleConnsPerHost:   10,
		IdleConnTimeout:       90 * time.Second,
		TLSHandshakeTimeout:   10 * time.Second,
		ResponseHeaderTimeout: 0, // the call's timeout bounds it
	}
	return &http.Client{
		Transport: transport,
		CheckRedirect: func(req *http.Request, via []*http.Request) error {
			if len(via) > MaxRedirects {
				return fmt.Errorf("more than %d redirects", MaxRedirects)
			}
			if req.URL.Scheme != "http" && req.URL.Scheme != "https" {
				return fmt.Errorf("redirect to scheme %q: %w", req.URL.Scheme, errHostNotAllowed)
			}
			if !hostAllowed(req.URL.Hostname(), allowed) {
				return fmt.Errorf("redirect to %s: %w", req.URL.Hostname(), errHostNotAllowed)
			}
			return nil
		},
	}
}
