package toolexec

import (
	"net/http"
	"slices"

	"github.com/toolexec/toolexec/internal/hostguard"
)

// RebindingProtection is the DNS-rebinding and cross-site request defense
// of WithRebindingProtection: what it admits besides its defaults. The zero
// value is the defense with its defaults alone.
type RebindingProtection struct {
	// AllowedHosts are the Host headers served. Empty, the default, serves a
	// request that arrived on a loopback address only when its Host is a
	// loopback name (localhost, a name under .localhost, a loopback
	// address), since a page that rebinds its own name to this machine
	// still sends that name; requests on other addresses are not checked.
	// A list replaces that default: a reverse proxy on the same machine
	// that forwards its public name lists that name. An entry without a
	// port ("api.example.com", "[::1]") matches that host on any port, one
	// with a port ("localhost:8080") only that port; case is ignored.
	AllowedHosts []string
	// AllowedOrigins are the browser origins, besides the request's own,
	// that may call. A request with an Origin header (every request a
	// browser sends cross-origin, and every POST) is served only when that
	// origin is the request's own or listed; requests without one (every
	// client that is not a browser) are not affected. "http://localhost:3000"
	// admits exactly that origin, "http://localhost" that scheme and host on
	// any port; case is ignored.
	AllowedOrigins []string
}

// WithRebindingProtection turns on the DNS-rebinding and cross-site request
// defense for the REST handler (NewHandler), the OXP handler and the
// explorer built on the Executor, as the MCP handler has it by default: a
// request whose Host or Origin header fails the checks of p is refused with
// 403 Forbidden, in the surface's error shape, before anything else is
// looked at (no tool is listed, looked up or run). The MCP handler adds p's
// lists to its own.
//
// Turn it on for every server that listens on a loopback address: without
// it, a web page the machine's user opens can rebind its own name to
// 127.0.0.1 and call the REST and OXP routes, or post to them cross-site.
// The defense costs a few comparisons per request. It is off by default on
// REST and OXP because a public API called from browsers on other origins
// (with CORS) would be refused by its Origin check; such a host lists those
// origins in p.AllowedOrigins.
func WithRebindingProtection(p RebindingProtection) Option {
	p.AllowedHosts = slices.Clone(p.AllowedHosts)
	p.AllowedOrigins = slices.Clone(p.AllowedOrigins)
	return func(x *Executor) { x.rebinding = &p }
}

// RebindingProtection returns the setting of WithRebindingProtection, and
// whether it is on, for a surface that applies the same defense.
func (k SurfaceKit) RebindingProtection() (RebindingProtection, bool) {
	if k.x.rebinding == nil {
		return RebindingProtection{}, false
	}
	p := *k.x.rebinding
	p.AllowedHosts = slices.Clone(p.AllowedHosts)
	p.AllowedOrigins = slices.Clone(p.AllowedOrigins)
	return p, true
}

// rebindingGuard returns the guard of the Executor's rebinding protection,
// or nil when it is off.
func (x *Executor) rebindingGuard() *hostguard.Guard {
	if x.rebinding == nil {
		return nil
	}
	return hostguard.New(x.rebinding.AllowedHosts, x.rebinding.AllowedOrigins)
}

// refuseRebinding answers a REST request the rebinding protection refused.
func (h *restHandler) refuseRebinding(w http.ResponseWriter, r *http.Request) {
	h.x.logger.WarnContext(r.Context(), "toolexec: request refused by the host/origin check",
		"host", r.Host, "origin", r.Header.Get("Origin"))
	writeError(w, http.StatusForbidden, "Forbidden: origin or host not allowed")
}
