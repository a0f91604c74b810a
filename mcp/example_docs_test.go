package mcp_test

import (
	"context"
	"fmt"
	"io"
	"log"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/go-chi/chi/v5"

	"github.com/toolexec/toolexec"
	"github.com/toolexec/toolexec/mcp"
)

// postMCP sends one JSON-RPC message to the MCP endpoint at url, with the
// Host header host, and prints the answer's status and body.
func postMCP(h http.Handler, url, host, body string) {
	req := httptest.NewRequest(http.MethodPost, url, strings.NewReader(body))
	req.Host = host
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	b, _ := io.ReadAll(rec.Body)
	fmt.Print(rec.Code, " ", string(b))
}

// The server's name, version and instructions are what initialize answers;
// the handler mounts on chi or net/http alike.
func ExampleWithInstructions() {
	reg := toolexec.NewRegistry()
	// reg.MustAdd(...)
	x := toolexec.New(reg, reg, toolexec.WithAllowExecute(true))

	h := mcp.NewHandler(x,
		mcp.WithServerInfo("weather-service", "2.3.1"),
		mcp.WithInstructions("Use forecast for anything about tomorrow."),
	)

	// chi
	r := chi.NewRouter()
	r.Mount("/mcp", h)

	// or net/http
	mux := http.NewServeMux()
	mux.Handle("/mcp", h)  // the MCP endpoint
	mux.Handle("/mcp/", h) // the HandsAI routes below it

	postMCP(mux, "/mcp", "localhost", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`)
	// Output:
	// 200 {"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-06-18","capabilities":{"tools":{"listChanged":false},"logging":{}},"serverInfo":{"name":"weather-service","version":"2.3.1"},"instructions":"Use forecast for anything about tomorrow."}}
}

// Behind a reverse proxy, the handler admits the proxy's public name
// instead of loopback names; a browser UI elsewhere is an allowed origin.
func ExampleWithAllowedHosts() {
	reg := toolexec.NewRegistry()
	x := toolexec.New(reg, reg)
	h := mcp.NewHandler(x,
		mcp.WithAllowedHosts("mcp.example.com"),    // the proxy's public name, any port; replaces the loopback rule
		mcp.WithAllowedOrigins("http://localhost"), // a local browser UI, any port
	)

	for _, host := range []string{"mcp.example.com:443", "localhost"} {
		postMCP(h, "/mcp", host, `{"jsonrpc":"2.0","id":1,"method":"ping"}`)
	}
	// Output:
	// 200 {"jsonrpc":"2.0","id":1,"result":{}}
	// 403 {"jsonrpc":"2.0","id":null,"error":{"code":-32000,"message":"Forbidden: origin or host not allowed"}}
}

// Cache hints tell clients of MCP 2026-07-28 how long they may keep what
// the server lists, and whether they may share it.
func ExampleWithCacheHints() {
	reg := toolexec.NewRegistry()
	x := toolexec.New(reg, reg)
	h := mcp.NewHandler(x, mcp.WithCacheHints(5*time.Minute, mcp.CachePublic))
	mux := http.NewServeMux()
	mux.Handle("/mcp", h)
	log.Fatal(http.ListenAndServe("localhost:8080", mux))
}

// A command that serves its tools over stdio ends on SIGINT or SIGTERM,
// and logs to stderr: stdout carries the protocol.
func ExampleServeStdio_signals() {
	reg := toolexec.NewRegistry()
	x := toolexec.New(reg, reg, toolexec.WithAllowExecute(true),
		toolexec.WithLogger(slog.New(slog.NewTextHandler(os.Stderr, nil))))
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := mcp.ServeStdio(ctx, x, os.Stdin, os.Stdout, mcp.WithServerInfo("my-tools", "1.0.0")); err != nil {
		log.Fatal(err)
	}
}
