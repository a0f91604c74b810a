// Package interop proves that MCP clients nobody here wrote can use the mcp
// package's handler: the official MCP Go SDK client and mark3labs/mcp-go's
// client each connect over loopback HTTP, list the tools and call them. It is
// its own module so the library's go.mod never depends on those clients.
package interop

import (
	"bytes"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"github.com/toolexec/toolexec"
	"github.com/toolexec/toolexec/interop/fixture"
	"github.com/toolexec/toolexec/mcp"
)

// The schemas toolexec.AddTool infers from fixture.ForecastIn and
// fixture.ForecastOut, as clients must see them in tools/list.
const (
	forecastInputSchema  = `{"type":"object","properties":{"city":{"type":"string","description":"the city to forecast"}},"required":["city"],"additionalProperties":false}`
	forecastOutputSchema = `{"type":"object","properties":{"city":{"type":"string"},"temperatureC":{"type":"number"}},"required":["city","temperatureC"],"additionalProperties":false}`
)

// forecastValidationText is the isError result's text for forecast called
// with {"days": 2}: one line per failure of the real schema validation,
// "/path: message", sorted by path.
const forecastValidationText = "/city: missing property 'city'\n/days: additional properties 'days' not allowed"

// modernVersion is MCP 2026-07-28, the stateless revision: both clients'
// default.
const modernVersion = "2026-07-28"

// clientVersions are the versions every behaviour test runs a client at: its
// default ("", 2026-07-28, stateless) and 2025-11-25 through initialize.
var clientVersions = []string{"", mcp.NewestInitializeVersion}

// forEachVersion runs f as a subtest at each of clientVersions.
func forEachVersion(t *testing.T, f func(t *testing.T, version string)) {
	for _, v := range clientVersions {
		name := v
		if name == "" {
			name = "default " + modernVersion
		}
		t.Run(name, func(t *testing.T) { f(t, v) })
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
	reg := fixture.Registry()
	base := []toolexec.Option{
		toolexec.WithAllowExecute(true),
		toolexec.WithLogger(slog.New(slog.NewTextHandler(io.Discard, nil))),
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
