package explorer_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"

	"github.com/toolexec/toolexec"
	"github.com/toolexec/toolexec/explorer"
	"github.com/toolexec/toolexec/mcp"
)

// The explorer with a title and a link of the host's, calls enabled (over
// MCP too), mounted with the REST routes; calls go through the auth hook,
// while the page itself is public.
func ExampleWithProjectLink() {
	reg := toolexec.NewRegistry()
	auth := func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Header.Get("X-Api-Key") != "k" {
				w.WriteHeader(http.StatusUnauthorized)
				return
			}
			next.ServeHTTP(w, r)
		})
	}
	mux := http.NewServeMux()

	x := toolexec.New(reg, reg, toolexec.WithAllowExecute(true), toolexec.WithAuthHook(auth))
	api := explorer.Wrap(x, toolexec.NewHandler(x),
		explorer.WithTitle("Acme tools"),
		explorer.WithProjectLink("Acme on GitHub", "https://github.com/acme/tools"),
		explorer.WithExecute(true),
		explorer.WithMCP("/mcp"), // optional: calls over MCP
	)
	mux.Handle("/api/", http.StripPrefix("/api", api)) // or chi: r.Mount("/api", api)
	mux.Handle("/mcp", mcp.NewHandler(x))              // the endpoint WithMCP names

	rec := httptest.NewRecorder()
	mux.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/api/", nil))
	page := rec.Body.String()
	fmt.Println(rec.Code, strings.Contains(page, "Acme tools"), strings.Contains(page, "https://github.com/acme/tools"))
	// Output:
	// 200 true true
}
