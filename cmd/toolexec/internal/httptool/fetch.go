package httptool

import (
	"fmt"
	"net"
	"net/http"
	"net/url"
	"time"

	"github.com/toolexec/toolexec/cmd/toolexec/internal/netguard"
)

// Fetcher sends the requests of a script's fetch: only to the hosts its
// list names (each "HOST", "*.DOMAIN" or either with ":PORT"; an entry
// without a port allows 443 over https and 80 over http), through the
// same guard as an http source's requests: checked on the first request,
// on every redirect (at most MaxRedirects, never from https to http) and
// at every dial, host names that resolve to private or local addresses
// refused unless private networks are allowed, no proxy from the
// environment, and nothing of the request but Accept and User-Agent sent
// on past a redirect to another origin. A Fetcher is safe for concurrent
// use.
type Fetcher struct {
	clients map[string]*http.Client        // by scheme
	lists   map[string]*netguard.AllowList // by scheme
}

// NewFetcher returns the Fetcher of hosts. allowPrivate lets host names
// resolve to private networks. opts are those of NewSource (WithLookup
// and WithDial; WithSecrets does not apply). It fails when hosts is empty
// or an entry is malformed.
func NewFetcher(hosts []string, allowPrivate bool, opts ...SourceOption) (*Fetcher, error) {
	var o sourceOptions
	for _, opt := range opts {
		opt(&o)
	}
	if o.dial == nil {
		d := &net.Dialer{Timeout: dialTimeout, KeepAlive: 30 * time.Second}
		o.dial = d.DialContext
	}
	f := &Fetcher{clients: map[string]*http.Client{}, lists: map[string]*netguard.AllowList{}}
	for _, scheme := range []string{"http", "https"} {
		list, err := netguard.NewHosts(scheme, hosts, allowPrivate)
		if err != nil {
			return nil, err
		}
		f.lists[scheme] = list
		f.clients[scheme] = newClient(list, netguard.NewGuard(list, o.lookup, o.dial), nil)
	}
	return f, nil
}

// Do sends req, an http or https request, with the client of its scheme;
// a URL outside the list is refused before any connection, with an error
// matching netguard.ErrNotAllowed.
func (f *Fetcher) Do(req *http.Request) (*http.Response, error) {
	if !f.Allows(req.URL) {
		return nil, fmt.Errorf("fetch %s://%s: %w", req.URL.Scheme, req.URL.Host, netguard.ErrNotAllowed)
	}
	return f.clients[req.URL.Scheme].Do(req)
}

// Allows reports whether u's origin (an http or https one) is one the
// Fetcher may reach.
func (f *Fetcher) Allows(u *url.URL) bool {
	list, ok := f.lists[u.Scheme]
	return ok && list.Allows(u)
}

// Close releases the idle connections of the Fetcher's clients.
func (f *Fetcher) Close() error {
	for _, c := range f.clients {
		c.CloseIdleConnections()
	}
	return nil
}
