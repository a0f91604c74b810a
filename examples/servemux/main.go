// Command servemux mounts toolexec's REST surface on the standard library's
// http.ServeMux, under /api. http.StripPrefix removes the prefix (from the
// path and its escaped form alike), so the handler sees /tools/... and
// percent-encoded tool names keep working.
//
//	go run ./examples/servemux
//	curl -sS localhost:8080/api/tools
//	curl -sS -X POST -d '{"a":2,"b":3}' localhost:8080/api/tools/math_add/call
//
// PORT sets the port (default 8080).
package main

import (
	"encoding/json"
	"fmt"
	"log"
	"net/http"
	"os"
	"strconv"
	"time"

	"github.com/toolexec/toolexec"
)

func main() {
	port := os.Getenv("PORT")
	if port == "" {
		port = "8080"
	}
	srv := &http.Server{
		Addr:              ":" + port,
		Handler:           newMux(newExecutor()),
		ReadHeaderTimeout: 5 * time.Second,
		ReadTimeout:       30 * time.Second, // the body's; lifted once it is read
		IdleTimeout:       2 * time.Minute,
		// No WriteTimeout: it would cut MCP's SSE streams, whose writes
		// carry deadlines of their own.
	}
	log.Printf("listening on http://localhost:%s (tools under /api)", port)
	log.Fatal(srv.ListenAndServe())
}

// newExecutor serves one tool, math_add, with execution enabled.
// Its handler is the basic form: it needs neither context nor request.
func newExecutor() *toolexec.Executor {
	reg := toolexec.NewRegistry()
	reg.MustAdd(toolexec.Tool{
		Name:        "math_add",
		Description: "Adds two numbers.",
		InputSchema: json.RawMessage(`{"type":"object","properties":{"a":{"type":"number"},"b":{"type":"number"}},"required":["a","b"]}`),
	}, toolexec.BasicToolCallHandlerFunc(func(_ string, args map[string]any) ([]toolexec.Content, bool, string, error) {
		a, okA := args["a"].(float64)
		b, okB := args["b"].(float64)
		if !okA || !okB {
			return []toolexec.Content{toolexec.Text(`"a" and "b" must be numbers`)}, true, "", nil
		}
		return []toolexec.Content{toolexec.Text(strconv.FormatFloat(a+b, 'g', -1, 64))}, false, "", nil
	}))
	return toolexec.New(reg, reg, toolexec.WithAllowExecute(true))
}

// newMux is the service's mux: its own routes and the tools under /api.
func newMux(x *toolexec.Executor) *http.ServeMux {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, _ *http.Request) {
		fmt.Fprintln(w, "ok")
	})
	mux.Handle("/api/", http.StripPrefix("/api", toolexec.NewHandler(x)))
	return mux
}
