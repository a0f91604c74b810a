// Package httptool runs declared HTTP-API tools (mcp-toolbox's http kind):
// a request built from a source's base URL and a tool's method, path,
// query, header and body parameters, sent only to the origins (scheme,
// host and port) the source allows, on the first request, on every
// redirect and at every dial, with a per-tool timeout and a cap on the
// response read.
package httptool

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/toolexec/toolexec/cmd/toolexec/internal/netguard"
)

// MaxRedirects is how many redirects a call follows, each checked against
// the allow-list.
const MaxRedirects = 5

// errRedirectBody is returned (wrapped) when a redirect to another origin
// would send the request body again.
var errRedirectBody = errors.New("a redirect to another origin would resend the request body")

// SourceOption configures NewSource.
type SourceOption func(*sourceOptions)

type sourceOptions struct {
	lookup  netguard.LookupFunc
	dial    netguard.DialFunc
	secrets []string
}

// WithSecrets names the values the tools file took from the environment
// (config.Config.EnvValues): each configured header or query value that
// holds one is a secret, redacted from what the upstream answers.
func WithSecrets(values ...string) SourceOption {
	return func(o *sourceOptions) { o.secrets = append(o.secrets, values...) }
}

// WithLookup makes the source resolve host names with lookup instead of
// the system resolver. The addresses it returns are checked as the
// system's would be.
func WithLookup(lookup netguard.LookupFunc) SourceOption {
	return func(o *sourceOptions) { o.lookup = lookup }
}

// WithDial makes the source open its connections with dial, which is
// given the IP address and port the guard approved.
func WithDial(dial netguard.DialFunc) SourceOption {
	return func(o *sourceOptions) { o.dial = dial }
}

// newClient returns the client of one source: no proxy from the
// environment (a proxy would be a host outside the list), a dialer that
// connects only to allowed hosts and ports and only to addresses that
// pass the guard, and redirects followed only within the allow-list. A
// redirect that leaves the first request's origin (scheme, host or port)
// drops every header but Accept and User-Agent and the source's query
// parameters (the configured secrets), and is refused when it would send
// the body again; the request stays stripped on every later hop, even
// one back to the origin.
func newClient(list *netguard.AllowList, guard *netguard.Guard, secretQuery []string) *http.Client {
	transport := &http.Transport{
		Proxy:                 nil,
		DialContext:           guard.DialContext,
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
			if !list.Allows(req.URL) {
				return fmt.Errorf("redirect to %s://%s: %w", req.URL.Scheme, req.URL.Host, netguard.ErrNotAllowed)
			}
			// The Referer would carry the previous URL, query secrets
			// included.
			req.Header.Del("Referer")
			if !leftOrigin(req, via) {
				return nil
			}
			if req.GetBody != nil {
				return errRedirectBody
			}
			for k := range req.Header {
				switch http.CanonicalHeaderKey(k) {
				case "Accept", "User-Agent":
					// Set by the tool itself: never a secret.
				default:
					delete(req.Header, k)
				}
			}
			req.URL.RawQuery = withoutParams(req.URL.RawQuery, secretQuery)
			return nil
		},
	}
}

// leftOrigin reports whether req, or any hop before it, is on another
// origin than the first request.
func leftOrigin(req *http.Request, via []*http.Request) bool {
	first := via[0].URL
	if !netguard.SameOrigin(first, req.URL) {
		return true
	}
	for _, r := range via[1:] {
		if !netguard.SameOrigin(first, r.URL) {
			return true
		}
	}
	return false
}

// withoutParams is rawQuery without the parameters named in names
// (compared case-insensitively); the others keep their order and
// encoding.
func withoutParams(rawQuery string, names []string) string {
	if rawQuery == "" || len(names) == 0 {
		return rawQuery
	}
	parts := strings.Split(rawQuery, "&")
	kept := parts[:0]
	for _, part := range parts {
		key, _, _ := strings.Cut(part, "=")
		if k, err := url.QueryUnescape(key); err == nil {
			key = k
		}
		drop := false
		for _, n := range names {
			drop = drop || strings.EqualFold(key, n)
		}
		if !drop {
			kept = append(kept, part)
		}
	}
	return strings.Join(kept, "&")
}
