package oxp

import (
	"net/http"

	"github.com/go-chi/chi/v5"

	"github.com/toolexec/toolexec/internal/httpjson"
)

// ServeHTTP serves POST /tools/call, the request that matters for speed,
// itself, behind the same guards as every route (the OXP headers, the
// recoverer, the OXP-Version check), and every other request through the
// router. It routes on the path the router would (routePath), so each
// request gets the answer the router would give it; the call is spared the
// router's request copy, its route context and the middleware's frames.
func (h *handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if h.guard != nil && !h.guard.Allowed(r) {
		h.refuseRebinding(w, r)
		return
	}
	if r.Method != http.MethodPost || routePath(r) != "/tools/call" {
		h.mux.ServeHTTP(w, r)
		return
	}
	setHeaders(w.Header())
	tw := &httpjson.TrackingWriter{ResponseWriter: w}
	defer h.recoverCall(tw, r)
	if vs := r.Header[versionKey]; len(vs) > 0 && refuseVersion(tw, vs) {
		return
	}
	h.call(tw, r)
}

// recoverCall is deferred by ServeHTTP while it serves a call: it recovers
// a panic, logs it with its stack, and answers 500 when nothing has been
// written yet, as the router's recoverer does.
func (h *handler) recoverCall(tw *httpjson.TrackingWriter, r *http.Request) {
	if p := recover(); p != nil {
		httpjson.LogPanic(r.Context(), h.x.SurfaceKit().Logger(), recoverWhat, p)
		if !tw.Started() {
			writeInternalError(tw.ResponseWriter)
		}
	}
}

// routePath is the path chi routes on: what a chi router that mounted this
// handler left of it, else the escaped path when the request has one, else
// the path.
func routePath(r *http.Request) string {
	if rctx := chi.RouteContext(r.Context()); rctx != nil && rctx.RoutePath != "" {
		return rctx.RoutePath
	}
	if r.URL.RawPath != "" {
		return r.URL.RawPath
	}
	if r.URL.Path == "" {
		return "/"
	}
	return r.URL.Path
}
