package oxp

import (
	"net/http"

	"github.com/toolexec/toolexec"
	"github.com/toolexec/toolexec/internal/hostguard"
	"github.com/toolexec/toolexec/internal/httpjson"
)

// rebindingGuard returns the guard of x's rebinding protection
// (toolexec.WithRebindingProtection), or nil when it is off.
func rebindingGuard(x *toolexec.Executor) *hostguard.Guard {
	p, ok := x.SurfaceKit().RebindingProtection()
	if !ok {
		return nil
	}
	return hostguard.New(p.AllowedHosts, p.AllowedOrigins)
}

// refuseRebinding answers a request the rebinding protection refused: 403,
// with the OXP headers, before anything else is looked at.
func (h *handler) refuseRebinding(w http.ResponseWriter, r *http.Request) {
	setHeaders(w.Header())
	h.x.SurfaceKit().Logger().WarnContext(r.Context(), "oxp: request refused by the host/origin check",
		"host", r.Host, "origin", r.Header.Get("Origin"))
	httpjson.Write(w, http.StatusForbidden, serverError{
		Message:          "Forbidden",
		DeveloperMessage: "the request's Host or Origin header is not one this server answers (DNS-rebinding and cross-site request defense)",
	})
}
