package mcp_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolexec/toolexec"
	"github.com/toolexec/toolexec/internal/observetest"
	"github.com/toolexec/toolexec/mcp"
)

// The pipeline's built-in interceptors act on MCP and HandsAI calls exactly
// as on the other surfaces; these tests check how each outcome reads on the
// two routes.

// builtinsHandler is the MCP handler of an Executor serving reg, execution
// on, logs discarded, plus opts.
func builtinsHandler(reg *toolexec.Registry, opts ...toolexec.Option) http.Handler {
	base := []toolexec.Option{toolexec.WithAllowExecute(true), toolexec.WithLogger(quietLogger())}
	return mcp.NewHandler(toolexec.New(reg, reg, append(base, opts...)...))
}

// handsAIBody is a HandsAI tools/call request with id 1.
func handsAIBody(name, args string) string {
	return `{"jsonrpc":"2.0","method":"tools/call","params":{"name":"` + name + `","arguments":` + args + `},"id":1}`
}

// handsAIRequest is a POST to the HandsAI call route of a handler mounted at
// the root, built without the test's helpers so it can be served from
// another goroutine.
func handsAIRequest(body string) *http.Request {
	r := httptest.NewRequest(http.MethodPost, "/tools/call", strings.NewReader(body))
	r.Header.Set("Content-Type", "application/json")
	return r
}

func mcpRequest(body string) *http.Request {
	r := httptest.NewRequest(http.MethodPost, "/", strings.NewReader(body))
	r.Header.Set("Content-Type", "application/json")
	r.Header.Set("Accept", "application/json, text/event-stream")
	return r
}

func TestConcurrencyLimitRefusalOverMCPAndHandsAI(t *testing.T) {
	release := make(chan struct{})
	started := make(chan struct{})
	var runs atomic.Int64
	reg := toolexec.NewRegistry()
	reg.MustAdd(toolexec.Tool{Name: "busy", Options: toolexec.ToolOptions{
		ConcurrencyLimit: &toolexec.ConcurrencyLimit{Max: 1, FailFast: true, RetryAfter: 1500 * time.Millisecond},
	}}, func(context.Context, string, map[string]any) ([]toolexec.Content, bool, string, error) {
		if runs.Add(1) > 1 {
			// Only a broken limit gets here; answer at once so the test
			// fails rather than hangs.
			return []toolexec.Content{toolexec.Text("ran past the limit")}, false, "", nil
		}
		close(started)
		<-release
		return []toolexec.Content{toolexec.Text("done")}, false, "", nil
	})
	h := builtinsHandler(reg)

	first := make(chan *httptest.ResponseRecorder, 1)
	go func() {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, mcpRequest(callBody("busy", `{}`)))
		first <- rec
	}()
	<-started
	const refusal = "Tool busy is busy: 1 calls are running, the most it runs at once. Try again later."

	// MCP: an isError result the model can read, and a Retry-After header
	// (whole seconds, rounded up) on the HTTP 200.
	rec := post(t, h, callBody("busy", `{}`))
	res := callResult(t, rec)
	assert.True(t, res.IsError)
	assert.Equal(t, refusal, res.Text())
	assert.Equal(t, "2", rec.Header().Get("Retry-After"))

	// HandsAI: its internal error, and no Retry-After (HandsAI has none).
	hrec := httptest.NewRecorder()
	h.ServeHTTP(hrec, handsAIRequest(handsAIBody("busy", `{}`)))
	assert.Equal(t, http.StatusOK, hrec.Code)
	assert.JSONEq(t, `{"jsonrpc":"2.0","error":{"code":-32603,"message":"Internal error: `+refusal+`"},"id":1}`, hrec.Body.String())
	assert.Empty(t, hrec.Header().Get("Retry-After"))

	// A batch (protocol 2025-03-26) answers the refusal in its element and
	// carries the Retry-After too.
	rec = post(t, h, `[{"jsonrpc":"2.0","id":"a","method":"ping"},`+strings.Replace(callBody("busy", `{}`), `"id":1`, `"id":"b"`, 1)+`]`)
	require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
	assert.JSONEq(t, `[{"jsonrpc":"2.0","id":"a","result":{}},
		{"jsonrpc":"2.0","id":"b","result":{"content":[{"type":"text","text":"`+refusal+`"}],"isError":true}}]`, rec.Body.String())
	assert.Equal(t, "2", rec.Header().Get("Retry-After"))

	close(release)
	res = callResult(t, <-first)
	assert.False(t, res.IsError, "the call holding the slot still succeeds")
	assert.Equal(t, "done", res.Text())
	assert.EqualValues(t, 1, runs.Load(), "the refused calls never ran")
}

func TestTimeoutOfAHandlerThatIgnoresItsContextOverMCPAndHandsAI(t *testing.T) {
	unblock := make(chan struct{})
	t.Cleanup(func() { close(unblock) })
	reg := toolexec.NewRegistry()
	reg.MustAdd(toolexec.Tool{Name: "stuck", Options: toolexec.ToolOptions{Timeout: 20 * time.Millisecond}},
		func(context.Context, string, map[string]any) ([]toolexec.Content, bool, string, error) {
			<-unblock // ignores its context on purpose
			return []toolexec.Content{toolexec.Text("too late")}, false, "", nil
		})
	h := builtinsHandler(reg)

	res := callResult(t, post(t, h, callBody("stuck", `{}`)))
	assert.True(t, res.IsError)
	assert.Equal(t, "Tool stuck timed out after 20ms", res.Text())

	status, body := handsAICall(t, h, handsAIBody("stuck", `{}`))
	assert.Equal(t, http.StatusOK, status)
	assert.JSONEq(t, `{"jsonrpc":"2.0","error":{"code":-32603,"message":"Internal error: Tool stuck timed out after 20ms"},"id":1}`, body)
}

func TestTransformFailuresOverMCPAndHandsAI(t *testing.T) {
	var runs atomic.Int64
	reg := toolexec.NewRegistry()
	reg.MustAdd(toolexec.Tool{Name: "echo"}, func(string, map[string]any) ([]toolexec.Content, bool, string, error) {
		runs.Add(1)
		return []toolexec.Content{toolexec.Text("ran")}, false, "", nil
	})
	in := func(context.Context, *toolexec.Call) (map[string]any, error) {
		return nil, errors.New("rewrite failed")
	}
	out := func(context.Context, *toolexec.Call, *toolexec.CallToolResult) (*toolexec.CallToolResult, error) {
		return nil, errors.New("redaction failed")
	}
	cases := []struct {
		name    string
		opt     toolexec.Option
		message string
		runs    int64 // handler runs per call
	}{
		{"input transform", toolexec.WithInputTransforms(in), "input transform: rewrite failed", 0},
		{"output transform", toolexec.WithOutputTransforms(out), "output transform: redaction failed", 1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			runs.Store(0)
			h := builtinsHandler(reg, c.opt)

			res := callResult(t, post(t, h, callBody("echo", `{}`)))
			assert.True(t, res.IsError)
			assert.Equal(t, c.message, res.Text(), "the handler's own output never leaks past a failed output transform")

			status, body := handsAICall(t, h, handsAIBody("echo", `{}`))
			assert.Equal(t, http.StatusOK, status)
			assert.JSONEq(t, `{"jsonrpc":"2.0","error":{"code":-32603,"message":"Internal error: `+c.message+`"},"id":1}`, body)
			assert.Equal(t, 2*c.runs, runs.Load())
		})
	}
}

func TestCacheHitSkipsTheHandlerOverMCPAndHandsAI(t *testing.T) {
	var runs atomic.Int64
	reg := toolexec.NewRegistry()
	reg.MustAdd(toolexec.Tool{Name: "lookup", Options: toolexec.ToolOptions{Cache: true, CacheShared: true}},
		func(_ context.Context, _ string, args map[string]any) ([]toolexec.Content, bool, string, error) {
			runs.Add(1)
			return []toolexec.Content{toolexec.Text("value for " + args["k"].(string))}, false, "", nil
		})
	h := builtinsHandler(reg)

	for range 3 {
		res := callResult(t, post(t, h, callBody("lookup", `{"k":"x"}`)))
		assert.False(t, res.IsError)
		assert.Equal(t, "value for x", res.Text())
	}
	assert.EqualValues(t, 1, runs.Load(), "two of three MCP calls were answered by the cache")

	status, body := handsAICall(t, h, handsAIBody("lookup", `{"k":"x"}`))
	assert.Equal(t, http.StatusOK, status)
	assert.JSONEq(t, `{"jsonrpc":"2.0","result":{"content":[{"type":"text","text":"value for x"}]},"id":1}`, body)
	assert.EqualValues(t, 1, runs.Load(), "the cache is the Executor's: a HandsAI call hits what an MCP call stored")

	callResult(t, post(t, h, callBody("lookup", `{"k":"y"}`)))
	assert.EqualValues(t, 2, runs.Load(), "other arguments miss")
}

func TestCallsNameTheMCPAndHandsAISurfaces(t *testing.T) {
	rec := &observetest.Recorder{}
	h := newHandler(t, []toolexec.Option{toolexec.WithObserver(rec)})

	callResult(t, post(t, h, callBody("weather_get", `{"location":"Oslo"}`)))
	status, _ := handsAICall(t, h, handsAIBody("weather_get", `{"location":"Oslo"}`))
	require.Equal(t, http.StatusOK, status)

	var surfaces []toolexec.Surface
	for _, c := range rec.Calls() {
		assert.Equal(t, "weather_get", c.Info.Name)
		surfaces = append(surfaces, c.Info.Surface)
	}
	assert.Equal(t, []toolexec.Surface{toolexec.SurfaceMCP, toolexec.SurfaceHandsAI}, surfaces, "one observed call per call, in order")
}
