package netguard

import (
	"errors"
	"fmt"
)

// NewHosts returns the allow-list of origins with scheme (http or https)
// whose host and port match one of hosts, for a client that has no base
// URL (a script's fetch). An entry without a port allows the scheme's
// default port (443 for https, 80 for http); an entry with one
// ("host:8443") allows that port instead. allowPrivate lets host names
// resolve to private, loopback and other local addresses (see Guard). It
// fails when hosts is empty or an entry is malformed.
func NewHosts(scheme string, hosts []string, allowPrivate bool) (*AllowList, error) {
	var port string
	switch scheme {
	case "https":
		port = "443"
	case "http":
		port = "80"
	default:
		return nil, errors.New("the scheme must be http or https")
	}
	if len(hosts) == 0 {
		return nil, errors.New("no host is allowed")
	}
	a := &AllowList{scheme: scheme, port: port, private: allowPrivate}
	for _, h := range hosts {
		e, err := parseEntry(h)
		if err != nil {
			return nil, fmt.Errorf("allowedHosts entry %q: %w", h, err)
		}
		a.entries = append(a.entries, e)
	}
	return a, nil
}
