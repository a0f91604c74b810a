package mcp_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/toolexec/toolexec"
	"github.com/toolexec/toolexec/mcp"
)

// weatherSchema is the HandsAI examples' weather_get tool: location is required. The
// pipeline's schema validation (on by default) refuses a call without it.
const weatherSchema = `{"type":"object","properties":{"location":{"type":"string"},"units":{"type":"string","enum":["celsius","fahrenheit"]}},"required":["location"]}`

// fixtureRegistry holds the HandsAI examples' tools plus the failing ones the MCP error
// mapping is tested with.
func fixtureRegistry() *toolexec.Registry {
	reg := toolexec.NewRegistry()
	reg.MustAdd(toolexec.Tool{
		Name:        "weather_get",
		Description: "Current weather for a location",
		InputSchema: json.RawMessage(weatherSchema),
	}, func(_ string, _ map[string]any) ([]toolexec.Content, bool, string, error) {
		return []toolexec.Content{toolexec.Text(`{"temperature": 18, "condition": "Partly cloudy", "humidity": 65}`)}, false, "", nil
	})
	reg.MustAdd(toolexec.Tool{
		Name:        "search_documents",
		Description: "Search documents",
		InputSchema: json.RawMessage(`{"type":"object","properties":{"query":{"type":"string"},"tags":{"type":"array","items":{"type":"string"}},"limit":{"type":"integer"}},"required":["query"]}`),
	}, func(_ string, args map[string]any) ([]toolexec.Content, bool, string, error) {
		// The handler proves the array argument arrived intact.
		tags, _ := args["tags"].([]any)
		if len(tags) != 2 || tags[0] != "finance" || tags[1] != "2024" || args["limit"] != float64(10) {
			return nil, false, "", errors.New("arguments did not arrive intact")
		}
		return []toolexec.Content{toolexec.Text(`[{"id": "doc-1", "title": "Q4 2024 Revenue Report"}, {"id": "doc-2", "title": "Q3 2024 Financial Summary"}]`)}, false, "", nil
	})
	reg.MustAdd(toolexec.Tool{Name: "database_query", Description: "Run SQL"},
		func(_ string, _ map[string]any) ([]toolexec.Content, bool, string, error) {
			return nil, false, "", errors.New("Connection timeout")
		})
	reg.MustAdd(toolexec.Tool{Name: "explode", Description: "Panics"},
		func(_ string, _ map[string]any) ([]toolexec.Content, bool, string, error) {
			panic("kaboom")
		})
	reg.MustAdd(toolexec.Tool{Name: "soft_fail", Description: "Reports a logical failure"},
		func(_ string, _ map[string]any) ([]toolexec.Content, bool, string, error) {
			return []toolexec.Content{toolexec.Text("city not found")}, true, "", nil
		})
	reg.MustAdd(toolexec.Tool{Name: "whoami", Description: "Echoes the identity the auth hook found"},
		func(ctx context.Context, _ string, _ map[string]any) ([]toolexec.Content, bool, string, error) {
			r := toolexec.RequestFromContext(ctx)
			user, _ := r.Context().Value(userKey{}).(string)
			return []toolexec.Content{toolexec.Text("user=" + user)}, false, "", nil
		})
	return reg
}

type userKey struct{}

// quietLogger keeps expected warnings (auth refusals, panics) out of the
// test output.
func quietLogger() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

// newExecutor returns the fixture Executor with execution on.
func newExecutor(opts ...toolexec.Option) *toolexec.Executor {
	base := []toolexec.Option{
		toolexec.WithAllowExecute(true),
		toolexec.WithLogger(quietLogger()),
	}
	reg := fixtureRegistry()
	return toolexec.New(reg, reg, append(base, opts...)...)
}

// newHandler is the MCP handler of the fixture Executor.
func newHandler(t *testing.T, xopts []toolexec.Option, opts ...mcp.Option) http.Handler {
	t.Helper()
	return mcp.NewHandler(newExecutor(xopts...), opts...)
}

// post sends body to the MCP endpoint with the headers a conforming client
// sends, overridden or removed (empty value) by hdr.
func post(t *testing.T, h http.Handler, body string, hdr ...string) *httptest.ResponseRecorder {
	t.Helper()
	return send(t, h, http.MethodPost, "/", body, hdr...)
}

func send(t *testing.T, h http.Handler, method, path, body string, hdr ...string) *httptest.ResponseRecorder {
	t.Helper()
	require.Zero(t, len(hdr)%2, "headers come in name/value pairs")
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req := httptest.NewRequest(method, path, rd)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	for i := 0; i < len(hdr); i += 2 {
		if hdr[i+1] == "" {
			req.Header.Del(hdr[i])
			continue
		}
		req.Header.Set(hdr[i], hdr[i+1])
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec
}

// rpcReply is a decoded JSON-RPC response, for assertions on its parts.
type rpcReply struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Result  json.RawMessage `json:"result"`
	Error   *struct {
		Code    int             `json:"code"`
		Message string          `json:"message"`
		Data    json.RawMessage `json:"data"`
	} `json:"error"`
}

func decodeReply(t *testing.T, rec *httptest.ResponseRecorder) rpcReply {
	t.Helper()
	var r rpcReply
	require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &r), "body: %s", rec.Body.String())
	require.Equal(t, "2.0", r.JSONRPC)
	return r
}

// callResult decodes a successful tools/call reply's result.
func callResult(t *testing.T, rec *httptest.ResponseRecorder) toolexec.CallToolResult {
	t.Helper()
	require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
	r := decodeReply(t, rec)
	require.Nil(t, r.Error, rec.Body.String())
	var res toolexec.CallToolResult
	require.NoError(t, json.Unmarshal(r.Result, &res))
	return res
}

// callBody is a tools/call request with id 1.
func callBody(name, args string) string {
	if args == "" {
		return `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"` + name + `"}}`
	}
	return `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"` + name + `","arguments":` + args + `}}`
}
