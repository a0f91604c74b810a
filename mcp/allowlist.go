package mcp

import (
	"net"
	"strings"
)

// normalizeOrigin lower-cases an origin and drops a trailing slash, the two
// ways a correct origin written by hand differs from what browsers send.
func normalizeOrigin(o string) string {
	return strings.TrimSuffix(strings.ToLower(strings.TrimSpace(o)), "/")
}

// originAllowed reports whether a request's Origin header passes the check.
func (h *handler) originAllowed(origin string) bool {
	if h.origins == nil || origin == "" {
		return true
	}
	return h.origins[normalizeOrigin(origin)]
}

// hostAllowed reports whether a request's Host header passes the check.
func (h *handler) hostAllowed(host string) bool {
	if h.hosts == nil {
		return true
	}
	host = strings.ToLower(host)
	if h.hosts[host] {
		return true
	}
	name, _, err := net.SplitHostPort(host)
	if err != nil {
		return false
	}
	if strings.Contains(name, ":") { // an IPv6 literal: entries write it bracketed
		name = "[" + name + "]"
	}
	return h.hosts[name]
}
