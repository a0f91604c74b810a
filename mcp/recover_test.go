package mcp_test

import (
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolexec/toolexec"
	"github.com/toolexec/toolexec/internal/testlog"
	"github.com/toolexec/toolexec/mcp"
)

// syncBuffer is a log destination the race detector accepts.
type syncBuffer = testlog.Buffer

// panickingProvider is a tool provider with a bug.
type panickingProvider struct{}

func (panickingProvider) Tools() []toolexec.Tool { panic("provider down") }

// panickyHandler is the MCP handler of an Executor whose provider panics,
// logging into logs.
func panickyHandler(logs *syncBuffer) http.Handler {
	x := toolexec.New(panickingProvider{}, func(string, map[string]any) ([]toolexec.Content, bool, string, error) {
		return nil, false, "", nil
	}, toolexec.WithLogger(slog.New(slog.NewTextHandler(logs, nil))))
	return mcp.NewHandler(x)
}

func TestAPanicWhileAnsweringARequestIsLoggedWithItsStack(t *testing.T) {
	var logs syncBuffer
	rec := post(t, panickyHandler(&logs), `{"jsonrpc":"2.0","id":5,"method":"tools/list"}`)
	require.Equal(t, http.StatusOK, rec.Code)
	assert.JSONEq(t, `{"jsonrpc":"2.0","id":5,"error":{"code":-32603,"message":"Internal error"}}`, rec.Body.String())
	assert.Contains(t, logs.String(), "provider down")
	assert.Contains(t, logs.String(), "level=ERROR")
	assert.Contains(t, logs.String(), "goroutine", "the stack is in the log")
	assert.NotContains(t, rec.Body.String(), "goroutine")
}

func TestAPanicInOneRequestOfABatchSparesTheOthers(t *testing.T) {
	var logs syncBuffer
	rec := post(t, panickyHandler(&logs), `[{"jsonrpc":"2.0","id":1,"method":"tools/list"},{"jsonrpc":"2.0","id":2,"method":"ping"}]`)
	require.Equal(t, http.StatusOK, rec.Code)
	assert.JSONEq(t, `[{"jsonrpc":"2.0","id":1,"error":{"code":-32603,"message":"Internal error"}},
		{"jsonrpc":"2.0","id":2,"result":{}}]`, rec.Body.String())
}

func TestAPanickingProviderOnTheHandsAIListAnswers500InItsEnvelope(t *testing.T) {
	var logs syncBuffer
	rec := send(t, panickyHandler(&logs), http.MethodGet, "/mcp/tools/list", "")
	assert.Equal(t, http.StatusInternalServerError, rec.Code)
	assert.Equal(t, "application/json", rec.Header().Get("Content-Type"))
	assert.JSONEq(t, `{"jsonrpc":"2.0","error":{"code":-32603,"message":"Internal error"}}`, rec.Body.String())
	assert.Contains(t, logs.String(), "goroutine", "the stack is in the log")
}

// panickingBody is a request body whose Read panics: a bug below the
// surface that no JSON-RPC message can be read past.
type panickingBody struct{ value any }

func (b panickingBody) Read([]byte) (int, error) { panic(b.value) }
func (panickingBody) Close() error               { return nil }

func TestABugInTheSurfaceAnswers500InTheRoutesShape(t *testing.T) {
	cases := map[string]struct{ path, want string }{
		"MCP endpoint":       {"/mcp", `{"jsonrpc":"2.0","id":null,"error":{"code":-32603,"message":"Internal error"}}`},
		"HandsAI call route": {"/mcp/tools/call", `{"jsonrpc":"2.0","error":{"code":-32603,"message":"Internal error"}}`},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			var logs syncBuffer
			x := toolexec.New(fixtureRegistry(), fixtureRegistry(), toolexec.WithLogger(slog.New(slog.NewTextHandler(&logs, nil))))
			req := httptest.NewRequest(http.MethodPost, c.path, nil)
			req.Body = panickingBody{"reader bug"}
			req.ContentLength = -1
			rec := httptest.NewRecorder()
			mcp.NewHandler(x).ServeHTTP(rec, req)
			assert.Equal(t, http.StatusInternalServerError, rec.Code)
			assert.JSONEq(t, c.want, rec.Body.String())
			assert.Equal(t, "nosniff", rec.Header().Get("X-Content-Type-Options"))
			assert.Contains(t, logs.String(), "reader bug")
			assert.Contains(t, logs.String(), "goroutine", "the stack is in the log")
		})
	}
}

func TestAnAbortedHandlerIsPassedOnToNetHTTP(t *testing.T) {
	for _, path := range []string{"/mcp", "/mcp/tools/call"} {
		req := httptest.NewRequest(http.MethodPost, path, nil)
		req.Body = panickingBody{http.ErrAbortHandler}
		req.ContentLength = -1
		assert.PanicsWithValue(t, http.ErrAbortHandler, func() {
			mcp.NewHandler(newExecutor()).ServeHTTP(httptest.NewRecorder(), req)
		}, path)
	}
}

func TestRequestsAreNotRecoveredTwice(t *testing.T) {
	// One panic, one log line: the route's recoverer does not log again
	// what the per-request one already answered.
	var logs syncBuffer
	post(t, panickyHandler(&logs), `{"jsonrpc":"2.0","id":5,"method":"tools/list"}`)
	assert.Equal(t, 1, strings.Count(logs.String(), "provider down"), logs.String())
}
