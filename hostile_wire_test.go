package toolexec_test

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolexec/toolexec"
	"github.com/toolexec/toolexec/mcp"
	"github.com/toolexec/toolexec/oxp"
)

// This file holds what docs/security.md promises about the bytes on the
// wire: valid UTF-8 JSON whatever a tool returns, a fixed message when a
// result cannot be encoded, and no panic value before the auth hook (nor,
// by default, after it), on every surface.

// serveAll mounts every surface of x on a loopback server: /api (REST),
// /mcp (MCP and HandsAI), /oxp (OXP).
func serveAll(t *testing.T, x *toolexec.Executor) *httptest.Server {
	t.Helper()
	mux := http.NewServeMux()
	mux.Handle("/api/", http.StripPrefix("/api", toolexec.NewHandler(x)))
	m := mcp.NewHandler(x)
	mux.Handle("/mcp", m)
	mux.Handle("/mcp/", m)
	mux.Handle("/oxp/", http.StripPrefix("/oxp", oxp.NewHandler(x)))
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv
}

// surfaceCall is one call of tool "ns/t" (OXP id ns.t) on one surface.
type surfaceCall struct{ name, method, path, body string }

func surfaceCalls(args string) []surfaceCall {
	return []surfaceCall{
		{"rest call", http.MethodPost, "/api/tools/ns/t/call", args},
		{"rest validate", http.MethodPost, "/api/tools/ns/t/validate", args},
		{"rest describe", http.MethodGet, "/api/tools/ns/t", ""},
		{"rest list", http.MethodGet, "/api/tools", ""},
		{"mcp", http.MethodPost, "/mcp", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"ns/t","arguments":` + args + `}}`},
		{"mcp list", http.MethodPost, "/mcp", `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`},
		{"handsai list", http.MethodGet, "/mcp/tools/list", ""},
		{"handsai", http.MethodPost, "/mcp/tools/call", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"ns/t","arguments":` + args + `}}`},
		{"oxp", http.MethodPost, "/oxp/tools/call", `{"tool_id":"ns.t","input":` + args + `}`},
		{"oxp list", http.MethodGet, "/oxp/tools", ""},
	}
}

func (c surfaceCall) do(t *testing.T, srv *httptest.Server) (int, string) {
	t.Helper()
	var body io.Reader
	if c.body != "" {
		body = strings.NewReader(c.body)
	}
	req, err := http.NewRequestWithContext(t.Context(), c.method, srv.URL+c.path, body)
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Authorization", "Bearer good")
	resp, err := srv.Client().Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return resp.StatusCode, string(data)
}

func quiet() *slog.Logger { return slog.New(slog.DiscardHandler) }

func TestEveryBodyIsValidUTF8(t *testing.T) {
	reg := toolexec.NewRegistry()
	reg.MustAdd(toolexec.Tool{Name: "ns/t"}, toolexec.ToolCallHandlerFunc(func(context.Context, string, map[string]any) ([]toolexec.Content, bool, string, error) {
		return nil, false, "", nil
	}))
	raw := func(next toolexec.CallFunc) toolexec.CallFunc {
		return func(ctx context.Context, call *toolexec.Call) (*toolexec.CallToolResult, error) {
			return &toolexec.CallToolResult{
				Content:           []toolexec.Content{toolexec.Text("bad \xff text")},
				StructuredContent: json.RawMessage("{\"s\":\"bad \xff\xfe raw\"}"),
			}, nil
		}
	}
	srv := serveAll(t, toolexec.New(reg, reg, toolexec.WithAllowExecute(true), toolexec.WithInterceptors(raw), toolexec.WithLogger(quiet())))
	for _, c := range surfaceCalls(`{}`) {
		t.Run(c.name, func(t *testing.T) {
			status, body := c.do(t, srv)
			assert.Less(t, status, 500, body)
			assert.True(t, utf8.ValidString(body), "%q", body)
			assert.True(t, json.Valid([]byte(body)), "%q", body)
		})
	}
	t.Run("the raw bytes become U+FFFD, one each", func(t *testing.T) {
		_, body := surfaceCalls(`{}`)[0].do(t, srv)
		assert.Contains(t, body, "\"bad \uFFFD\uFFFD raw\"")
		_, body = surfaceCalls(`{}`)[8].do(t, srv)
		assert.Contains(t, body, "\"bad \uFFFD\uFFFD raw\"", "the OXP value")
	})
	t.Run("an id echoed raw", func(t *testing.T) {
		status, body := surfaceCall{"mcp", http.MethodPost, "/mcp", "{\"jsonrpc\":\"2.0\",\"id\":\"\xff\",\"method\":\"ping\"}"}.do(t, srv)
		assert.Equal(t, http.StatusOK, status)
		assert.True(t, utf8.ValidString(body), "%q", body)
	})
}

func TestAResultThatCannotBeEncodedSaysSoAndNothingMore(t *testing.T) {
	reg := toolexec.NewRegistry()
	reg.MustAdd(toolexec.Tool{Name: "ns/t"}, toolexec.ToolCallHandlerFunc(func(context.Context, string, map[string]any) ([]toolexec.Content, bool, string, error) {
		return nil, false, "", nil
	}))
	unencodable := func(next toolexec.CallFunc) toolexec.CallFunc {
		return func(ctx context.Context, call *toolexec.Call) (*toolexec.CallToolResult, error) {
			return &toolexec.CallToolResult{StructuredContent: map[string]any{"c": make(chan int)}}, nil
		}
	}
	srv := serveAll(t, toolexec.New(reg, reg, toolexec.WithAllowExecute(true), toolexec.WithInterceptors(unencodable), toolexec.WithLogger(quiet())))
	for _, c := range surfaceCalls(`{}`) {
		if strings.Contains(c.name, "list") || strings.Contains(c.name, "describe") || strings.Contains(c.name, "validate") {
			continue
		}
		t.Run(c.name, func(t *testing.T) {
			_, body := c.do(t, srv)
			assert.Contains(t, body, "could not be encoded")
			for _, leak := range []string{"chan", "json:", "unsupported"} {
				assert.NotContains(t, body, leak, "the encoder's error stays in the log")
			}
		})
	}
}

// secret is what a provider's or handler's panic value carries.
const secret = "postgres://admin:hunter2@db"

func TestNoPanicValueReachesTheWireBeforeAuth(t *testing.T) {
	provider := toolexec.ToolProviderFunc(func() []toolexec.Tool { panic(secret) })
	authRan := false
	auth := func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { authRan = true; next.ServeHTTP(w, r) })
	}
	// Even with panic details on: they are for panics after the hook.
	x := toolexec.New(provider, toolexec.ToolCallHandlerFunc(func(context.Context, string, map[string]any) ([]toolexec.Content, bool, string, error) {
		return nil, false, "", nil
	}), toolexec.WithAllowExecute(true), toolexec.WithAuthHook(auth), toolexec.WithPanicDetails(true), toolexec.WithLogger(quiet()))
	srv := serveAll(t, x)
	for _, c := range surfaceCalls(`{}`) {
		t.Run(c.name, func(t *testing.T) {
			_, body := c.do(t, srv)
			assert.NotContains(t, body, "hunter2")
			assert.NotContains(t, body, "postgres")
		})
	}
	assert.False(t, authRan)
	_, err := x.Call(context.Background(), toolexec.CallRequest{Name: "ns/t"})
	e, ok := toolexec.AsError(err)
	require.True(t, ok)
	assert.NotContains(t, e.Message, "hunter2")
	assert.ErrorContains(t, e.Err, "hunter2", "in-process callers find the value in Err")
}

func TestHandlerPanicValuesAreSentOnlyWhenAsked(t *testing.T) {
	reg := toolexec.NewRegistry()
	reg.MustAdd(toolexec.Tool{Name: "ns/t"}, toolexec.ToolCallHandlerFunc(func(context.Context, string, map[string]any) ([]toolexec.Content, bool, string, error) {
		panic(secret)
	}))
	for _, details := range []bool{false, true} {
		srv := serveAll(t, toolexec.New(reg, reg, toolexec.WithAllowExecute(true), toolexec.WithPanicDetails(details), toolexec.WithLogger(quiet())))
		for _, c := range surfaceCalls(`{}`) {
			if strings.Contains(c.name, "list") || strings.Contains(c.name, "describe") || strings.Contains(c.name, "validate") {
				continue
			}
			t.Run(c.name, func(t *testing.T) {
				_, body := c.do(t, srv)
				if details {
					assert.Contains(t, body, "hunter2", "WithPanicDetails(true) sends the value")
				} else {
					assert.NotContains(t, body, "hunter2")
					assert.Contains(t, body, "The tool failed unexpectedly")
				}
				assert.NotContains(t, body, "goroutine")
			})
		}
	}
}
