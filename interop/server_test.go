// Package interop proves that MCP clients nobody here wrote can use the mcp
// package's handler: the official MCP Go SDK client and mark3labs/mcp-go's
// client each connect over loopback HTTP, list the tools and call them. It is
// its own module so the library's go.mod never depends on those clients.
package interop

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"github.com/toolexec/toolexec"
	"github.com/toolexec/toolexec/mcp"
)

const (
	forecastInput  = `{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}`
	forecastOutput = `{"type":"object","properties":{"city":{"type":"string"},"temperatureC":{"type":"number"}},"required":["city","temperatureC"]}`
)

// forecast is the typed tool: an input and an output schema, and a result
// carrying both structuredContent and the same value as a JSON text block.
//
// The typed-tool constructor is not on main yet, so a per-tool interceptor
// builds that result here. TODO(typed-tools-merge): register it with the
// typed constructor instead and keep the assertions.
func forecast() (toolexec.Tool, toolexec.BasicToolCallHandlerFunc) {
	typed := func(next toolexec.CallFunc) toolexec.CallFunc {
		return func(_ context.Context, call *toolexec.Call) (*toolexec.CallToolResult, error) {
			city, _ := call.Arguments["city"].(string)
			out := map[string]any{"city": city, "temperatureC": 21.5}
			text, _ := json.Marshal(out)
			return &toolexec.CallToolResult{Content: []toolexec.Content{toolexec.Text(string(text))}, StructuredContent: out}, nil
		}
	}
	tool := toolexec.Tool{
		Name:         "forecast",
		Title:        "Weather forecast",
		Description:  "Tomorrow's temperature in a city",
		InputSchema:  json.RawMessage(forecastInput),
		OutputSchema: json.RawMessage(forecastOutput),
		Annotations:  &toolexec.ToolAnnotations{ReadOnlyHint: toolexec.Bool(true)},
		Options:      toolexec.ToolOptions{Interceptors: []toolexec.Interceptor{typed}},
	}
	return tool, func(string, map[string]any) ([]toolexec.Content, bool, string, error) {
		return nil, false, "", errors.New("unreachable: the typed interceptor answers")
	}
}

func registry() *toolexec.Registry {
	reg := toolexec.NewRegistry()
	reg.MustAdd(forecast())
	reg.MustAdd(toolexec.Tool{Name: "fail", Description: "Always fails"},
		func(string, map[string]any) ([]toolexec.Content, bool, string, error) {
			return nil, false, "", errors.New("upstream unavailable")
		})
	reg.MustAdd(toolexec.Tool{Name: "explode", Description: "Always panics"},
		func(string, map[string]any) ([]toolexec.Content, bool, string, error) {
			panic("kaboom")
		})
	return reg
}

// requireCity fails forecast calls without a city the way the pipeline's
// validate stage does.
//
// TODO(validation-merge): drop it; forecastInput's "required" will produce
// the same failure through real schema validation.
func requireCity(next toolexec.CallFunc) toolexec.CallFunc {
	return func(ctx context.Context, call *toolexec.Call) (*toolexec.CallToolResult, error) {
		if _, ok := call.Arguments["city"]; call.Tool.Name == "forecast" && !ok {
			return nil, &toolexec.Error{Stage: toolexec.StageValidate, Code: toolexec.CodeInvalidArguments,
				Message:  "arguments do not match the input schema",
				Failures: []toolexec.ValidationFailure{{Path: "/city", Keyword: "required", Message: "missing property 'city'"}}}
		}
		return next(ctx, call)
	}
}

// server is the handler under test, mounted at /mcp of a loopback server,
// with a log of the requests it answered.
type server struct {
	URL string // the MCP endpoint
	mu  sync.Mutex
	log []exchange
}

// exchange is one HTTP request the server answered.
type exchange struct {
	Method   string // HTTP method
	RPC      string // JSON-RPC method, when the body had one
	Status   int
	Protocol string // MCP-Protocol-Version header
	Session  string // Mcp-Session-Id header
}

func (s *server) exchanges() []exchange {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]exchange(nil), s.log...)
}

// lastCall is the last tools/call exchange.
func lastCall(s *server) exchange {
	var last exchange
	for _, ex := range s.exchanges() {
		if ex.RPC == "tools/call" {
			last = ex
		}
	}
	return last
}

// newServer starts the fixture server; opts are added to the Executor's.
func newServer(t *testing.T, opts ...toolexec.Option) *server {
	t.Helper()
	reg := registry()
	base := []toolexec.Option{
		toolexec.WithAllowExecute(true),
		toolexec.WithLogger(slog.New(slog.NewTextHandler(io.Discard, nil))),
		toolexec.WithInterceptors(requireCity), // TODO(validation-merge)
	}
	x := toolexec.New(reg, reg, append(base, opts...)...)
	s := &server{}
	h := mcp.NewHandler(x, mcp.WithServerInfo("interop-server", "1.2.3"))
	mux := http.NewServeMux()
	mux.Handle("/mcp", s.record(h))
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	s.URL = srv.URL + "/mcp"
	return s
}

// record wraps h to log every exchange.
func (s *server) record(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var rpc string
		if r.Body != nil {
			body, _ := io.ReadAll(r.Body)
			r.Body = io.NopCloser(bytes.NewReader(body))
			var probe struct {
				Method string `json:"method"`
			}
			if json.Unmarshal(body, &probe) == nil {
				rpc = probe.Method
			}
		}
		sw := &statusWriter{ResponseWriter: w, status: http.StatusOK}
		h.ServeHTTP(sw, r)
		s.mu.Lock()
		s.log = append(s.log, exchange{Method: r.Method, RPC: rpc, Status: sw.status,
			Protocol: r.Header.Get("MCP-Protocol-Version"), Session: r.Header.Get("Mcp-Session-Id")})
		s.mu.Unlock()
	})
}

type statusWriter struct {
	http.ResponseWriter
	status int
	wrote  bool
}

func (w *statusWriter) WriteHeader(code int) {
	if !w.wrote {
		w.status, w.wrote = code, true
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Write(p []byte) (int, error) {
	w.wrote = true
	return w.ResponseWriter.Write(p)
}

// bearer is an auth hook accepting "Authorization: Bearer letmein".
func bearer(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer letmein" {
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		next.ServeHTTP(w, r)
	})
}
