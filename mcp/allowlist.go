package mcp

import "net/http"

// requestAllowed applies the DNS-rebinding defense to r (see
// WithAllowedHosts, WithAllowedOrigins and WithoutRebindingProtection).
func (h *handler) requestAllowed(r *http.Request) bool {
	return h.guard.Allowed(r)
}
