package oxp

import (
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/go-chi/chi/v5"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolexec/toolexec"
)

// TestCallsAreRoutedAsTheRouterRoutesThem: every request gets from
// ServeHTTP, which sends calls past the router, the answer the router
// alone gives it, mounted as it is or under a prefix.
func TestCallsAreRoutedAsTheRouterRoutesThem(t *testing.T) {
	reg := &toolexec.Registry{}
	reg.MustAdd(toolexec.Tool{Name: "Kit.Echo"}, func(string, map[string]any) ([]toolexec.Content, bool, string, error) {
		return []toolexec.Content{toolexec.Text("ok")}, false, "", nil
	})
	h := NewHandler(toolexec.New(reg, reg, toolexec.WithAllowExecute(true),
		toolexec.WithLogger(slog.New(slog.NewTextHandler(io.Discard, nil))))).(*handler)
	const body = `{"tool_id": "Kit.Echo", "call_id": "c"}`

	answer := func(root http.Handler, method, target string) (int, http.Header, string) {
		r := httptest.NewRequest(method, target, strings.NewReader(body))
		w := httptest.NewRecorder()
		root.ServeHTTP(w, r)
		out := w.Body.String()
		var m map[string]any
		if json.Unmarshal(w.Body.Bytes(), &m) == nil {
			delete(m, "duration")
			b, _ := json.Marshal(m)
			out = string(b)
		}
		return w.Code, w.Header(), out
	}
	mounted := func(inner http.Handler) http.Handler {
		r := chi.NewRouter()
		r.Mount("/oxp", inner)
		return r
	}
	targets := []string{"/tools/call", "/tools/call/", "/tools//call", "/Tools/call", "/tools/%63all", "/tools/call?x=1",
		"/tools", "/health", "/", "/nowhere"}
	methods := []string{http.MethodPost, http.MethodGet, http.MethodPut, http.MethodHead, "BREW"}
	for _, method := range methods {
		for _, target := range targets {
			for _, setup := range []struct {
				name        string
				fast, plain http.Handler
				prefix      string
			}{
				{"as is", h, h.mux, ""},
				{"mounted", mounted(h), mounted(h.mux), "/oxp"},
				{"stripped", http.StripPrefix("/api", h), http.StripPrefix("/api", h.mux), "/api"},
			} {
				code, header, got := answer(setup.fast, method, setup.prefix+target)
				wantCode, wantHeader, want := answer(setup.plain, method, setup.prefix+target)
				require.Equal(t, wantCode, code, "%s %s %s", setup.name, method, target)
				assert.Equal(t, wantHeader, header, "%s %s %s", setup.name, method, target)
				assert.Equal(t, want, got, "%s %s %s", setup.name, method, target)
			}
		}
	}
	code, _, got := answer(h, http.MethodPost, "/tools/call")
	require.Equal(t, http.StatusOK, code)
	assert.JSONEq(t, `{"call_id": "c", "success": true, "value": "ok"}`, got, "the matrix did call the tool")
}
