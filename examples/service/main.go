// Command service is a host service as a Go team writes one: two typed
// tools, one auth hook, and every surface mounted on one chi router beside
// the service's own routes:
//
//	/api/   REST, with the explorer page at /api/ (calling over MCP)
//	/mcp    MCP (and the HandsAI routes under /mcp/)
//	/oxp/   OXP 1.0
//
// Calls need "X-Api-Key: demo-key" (discovery needs nothing). Its tests
// (main_test.go) show how to test tools that report progress and ask for
// input: in process with toolexectest.Peer, and over HTTP with the
// official MCP Go SDK's client against an httptest server. See
// docs/hosting.md.
//
//	go run ./service          (from the examples module; PORT sets the port)
//	curl -sS localhost:8080/api/tools
package main

import (
	"context"
	"crypto/subtle"
	"fmt"
	"log"
	"net"
	"net/http"
	"os"
	"time"

	"github.com/go-chi/chi/v5"
	"github.com/go-chi/chi/v5/middleware"

	"github.com/toolexec/toolexec"
	"github.com/toolexec/toolexec/explorer"
	"github.com/toolexec/toolexec/mcp"
	"github.com/toolexec/toolexec/oxp"
)

func main() {
	port := os.Getenv("PORT")
	if port == "" {
		port = "8080"
	}
	srv := &http.Server{
		Addr:              net.JoinHostPort("127.0.0.1", port),
		Handler:           newRouter(newExecutor("demo-key")),
		ReadHeaderTimeout: 5 * time.Second,
		ReadTimeout:       30 * time.Second, // the body's; lifted once it is read
		IdleTimeout:       2 * time.Minute,
		// No WriteTimeout: MCP's SSE writes carry deadlines of their own,
		// and WithTimeout ends calls.
	}
	log.Printf("listening on http://%s (REST and the explorer at /api/, MCP at /mcp, OXP at /oxp)", srv.Addr)
	log.Fatal(srv.ListenAndServe())
}

// CountIn is count's input.
type CountIn struct {
	To int `json:"to" jsonschema:"the number to count to, 1 to 20"`
}

// CountOut is count's output.
type CountOut struct {
	Counted int `json:"counted"`
}

// ConfirmIn is confirm's input.
type ConfirmIn struct {
	Action string `json:"action" jsonschema:"what to do once the user agrees"`
}

// ConfirmOut is confirm's output.
type ConfirmOut struct {
	Done bool `json:"done"`
}

// newExecutor serves count and confirm. Every call needs the API key;
// the auth hook names the caller with ContextWithIdentity.
func newExecutor(key string) *toolexec.Executor {
	reg := toolexec.NewRegistry()
	toolexec.MustAddTool(reg, toolexec.Tool{Name: "count", Description: "Counts to a number, reporting progress."}, count)
	toolexec.MustAddTool(reg, toolexec.Tool{Name: "confirm", Description: "Asks the user to confirm an action, then does it."}, confirm)

	x := toolexec.New(reg, reg,
		toolexec.WithAllowExecute(true),                                  // execution is off until you say so
		toolexec.WithAuthHook(apiKeyAuth(key)),                           // one hook for every surface
		toolexec.WithTimeout(time.Minute),                                // every call ends
		toolexec.WithRebindingProtection(toolexec.RebindingProtection{}), // REST, OXP, explorer: Host/Origin checks
	)
	return x
}

func count(ctx context.Context, in CountIn) (CountOut, error) {
	if in.To < 1 || in.To > 20 {
		return CountOut{}, fmt.Errorf("to must be between 1 and 20, not %d", in.To)
	}
	for i := 1; i <= in.To; i++ {
		if err := ctx.Err(); err != nil {
			return CountOut{}, err
		}
		_ = toolexec.ReportProgress(ctx, toolexec.Progress{Progress: float64(i), Total: float64(in.To), Message: fmt.Sprintf("%d of %d", i, in.To)})
	}
	return CountOut{Counted: in.To}, nil
}

func confirm(ctx context.Context, in ConfirmIn) (ConfirmOut, error) {
	res, err := toolexec.Elicit(ctx, "confirm", toolexec.ElicitRequest{
		Message: "Go ahead and " + in.Action + "?",
		RequestedSchema: map[string]any{"type": "object",
			"properties": map[string]any{"ok": map[string]any{"type": "boolean"}}, "required": []string{"ok"}},
	})
	if err != nil {
		return ConfirmOut{}, err // ErrInputRequired on MCP 2026-07-28: return it as is
	}
	ok, _ := res.Content["ok"].(bool)
	return ConfirmOut{Done: res.Action == "accept" && ok}, nil
}

// apiKeyAuth is the auth hook: plain net/http middleware admitting a call
// with the right X-Api-Key, and naming the caller for the cache and for
// input requests (toolexec.ContextWithIdentity).
func apiKeyAuth(key string) toolexec.AuthHook {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if subtle.ConstantTimeCompare([]byte(r.Header.Get("X-Api-Key")), []byte(key)) != 1 {
				toolexec.WriteChallenge(w, http.StatusUnauthorized, `ApiKey error="invalid_key", error_description="send X-Api-Key"`)
				return
			}
			next.ServeHTTP(w, r.WithContext(toolexec.ContextWithIdentity(r.Context(), "demo-user")))
		})
	}
}

// health answers the service's health check.
func health(w http.ResponseWriter, _ *http.Request) { fmt.Fprintln(w, "ok") }

// newRouter mounts every surface of x on one chi router, beside the
// service's own routes. chi's Mount strips the prefix.
func newRouter(x *toolexec.Executor) http.Handler {
	r := chi.NewRouter()
	r.Use(middleware.RequestID)
	r.Get("/healthz", health) // the service's own routes, beside the tools
	r.Mount("/api", explorer.Wrap(x, toolexec.NewHandler(x), explorer.WithExecute(true), explorer.WithMCP("/mcp")))
	m := mcp.NewHandler(x)
	r.Handle("/mcp", m) // MCP
	r.Mount("/mcp/", m) // the HandsAI routes, /mcp/tools/list and /mcp/tools/call
	r.Mount("/oxp", oxp.NewHandler(x))
	return r
}
