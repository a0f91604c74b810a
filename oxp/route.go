package oxp

import (
	"net/http"

	"github.com/go-chi/chi/v5"
)

// ServeHTTP sends POST /tools/call, the request that matters for speed,
// straight to its handler, behind the same middleware as every route, and
// every other request through the router. It routes on the path the
// router would (routePath), so each request gets the answer the router
// would give it; the call is spared the router's request copy and its
// route context.
func (h *handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method == http.MethodPost && routePath(r) == "/tools/call" {
		h.callRoute.ServeHTTP(w, r)
		return
	}
	h.mux.ServeHTTP(w, r)
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
