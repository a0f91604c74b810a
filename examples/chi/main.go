// Command chi mounts toolexec's REST surface on a chi router, under /api,
// beside the service's own routes and behind chi middleware.
//
// chi's RequestID middleware runs before the tool handler, so the handler
// finds the request id in its context and returns it as the call's trace id
// (_meta._trace_id).
//
//	go run ./examples/chi
//	curl -sS localhost:8080/api/tools
//	curl -sS -X POST -d '{"name":"chi"}' localhost:8080/api/tools/greet/call
//
// PORT sets the port (default 8080).
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"log"
	"net/http"
	"os"
	"time"

	"github.com/go-chi/chi/v5"
	"github.com/go-chi/chi/v5/middleware"

	"github.com/toolexec/toolexec"
)

func main() {
	port := os.Getenv("PORT")
	if port == "" {
		port = "8080"
	}
	srv := &http.Server{
		Addr:              ":" + port,
		Handler:           newRouter(newExecutor()),
		ReadHeaderTimeout: 5 * time.Second,
		ReadTimeout:       30 * time.Second, // the body's; lifted once it is read
		IdleTimeout:       2 * time.Minute,
		// No WriteTimeout: it would cut MCP's SSE streams, whose writes
		// carry deadlines of their own.
	}
	log.Printf("listening on http://localhost:%s (tools under /api)", port)
	log.Fatal(srv.ListenAndServe())
}

// newExecutor serves one tool, greet, with execution enabled.
func newExecutor() *toolexec.Executor {
	reg := toolexec.NewRegistry()
	reg.MustAdd(toolexec.Tool{
		Name:        "greet",
		Description: "Greets someone by name.",
		InputSchema: json.RawMessage(`{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}`),
	}, toolexec.ToolCallHandlerFunc(greet))
	return toolexec.New(reg, reg, toolexec.WithAllowExecute(true))
}

func greet(ctx context.Context, _ string, args map[string]any) ([]toolexec.Content, bool, string, error) {
	name, _ := args["name"].(string)
	if name == "" {
		name = "stranger"
	}
	// chi's middleware ran first: its request id is in ctx.
	return []toolexec.Content{toolexec.Text("Hello, " + name + "!")}, false, middleware.GetReqID(ctx), nil
}

// health answers the service's health check.
func health(w http.ResponseWriter, _ *http.Request) { fmt.Fprintln(w, "ok") }

// newRouter is the service's router: its own routes, chi middleware, and
// the tools mounted under /api. Mount strips the prefix, so the REST
// handler sees /tools/... whatever the prefix is.
func newRouter(x *toolexec.Executor) http.Handler {
	r := chi.NewRouter()
	r.Use(middleware.RequestID)
	r.Use(middleware.Recoverer)
	r.Get("/healthz", health)
	r.Mount("/api", toolexec.NewHandler(x))
	return r
}
