package toolexec_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolexec/toolexec"
	"github.com/toolexec/toolexec/mcp"
	"github.com/toolexec/toolexec/oxp"
)

// storeModes runs a test once with limits counted in the process (no
// store) and once in a shared store (a MemoryStore given with WithStore),
// which must behave the same to callers.
func storeModes(t *testing.T, f func(t *testing.T, opts ...toolexec.Option)) {
	t.Run("in process", func(t *testing.T) { f(t) })
	t.Run("shared store", func(t *testing.T) { f(t, toolexec.WithStore(toolexec.NewMemoryStore())) })
}

// callAs runs name as the caller id through the Go API.
func callAs(x *toolexec.Executor, id, name string) (*toolexec.CallToolResult, error) {
	ctx := context.Background()
	if id != "" {
		ctx = toolexec.ContextWithIdentity(ctx, id)
	}
	return x.Call(ctx, toolexec.CallRequest{Name: name, Arguments: json.RawMessage(`{}`)})
}

func TestRateLimitAllowsABurstThenRefusesWithRetryAfter(t *testing.T) {
	storeModes(t, func(t *testing.T, opts ...toolexec.Option) {
		var c counting
		x := newExec(t, toolexec.Tool{Name: "r"}, c.handle,
			append(opts, toolexec.WithRateLimit(toolexec.RateLimit{Rate: 3, Per: time.Hour}))...)

		for i := range 3 {
			_, err := callAs(x, "alice", "r")
			require.NoError(t, err, "call %d is within the burst", i+1)
		}
		res, err := callAs(x, "alice", "r")

		assert.Nil(t, res)
		e := requireError(t, err, toolexec.StageLimit, toolexec.CodeRateLimited)
		// One call every 20 minutes; the fourth came at once.
		assert.Greater(t, e.RetryAfter, 19*time.Minute)
		assert.LessOrEqual(t, e.RetryAfter, 20*time.Minute)
		assert.Contains(t, e.Message, "3 calls per 1h0m0s")
		assert.Equal(t, int32(3), c.n.Load(), "the refused call never reached the handler")
	})
}

func TestRateLimitCountsEachCallerApart(t *testing.T) {
	storeModes(t, func(t *testing.T, opts ...toolexec.Option) {
		var c counting
		x := newExec(t, toolexec.Tool{Name: "r"}, c.handle,
			append(opts, toolexec.WithRateLimit(toolexec.RateLimit{Rate: 1, Per: time.Hour}))...)

		_, err := callAs(x, "alice", "r")
		require.NoError(t, err)
		_, err = callAs(x, "alice", "r")
		requireError(t, err, toolexec.StageLimit, toolexec.CodeRateLimited)

		_, err = callAs(x, "bob", "r")
		assert.NoError(t, err, "bob has a rate of his own")
		_, err = callAs(x, "", "r")
		assert.NoError(t, err, "in-process calls without an identity share one rate")
		_, err = callAs(x, "", "r")
		requireError(t, err, toolexec.StageLimit, toolexec.CodeRateLimited)
	})
}

func TestToolRateLimitReplacesTheExecutors(t *testing.T) {
	storeModes(t, func(t *testing.T, opts ...toolexec.Option) {
		var c counting
		x := multiExec(t, c.handle, []toolexec.Tool{
			{Name: "own", Options: toolexec.ToolOptions{RateLimit: &toolexec.RateLimit{Rate: 2, Per: time.Hour}}},
			{Name: "free", Options: toolexec.ToolOptions{RateLimit: &toolexec.RateLimit{}}},
			{Name: "a"}, {Name: "b"},
		}, append(opts, toolexec.WithRateLimit(toolexec.RateLimit{Rate: 1, Per: time.Hour}))...)

		_, err := callAs(x, "alice", "a")
		require.NoError(t, err)
		_, err = callAs(x, "alice", "b")
		requireError(t, err, toolexec.StageLimit, toolexec.CodeRateLimited) // all tools together

		for range 2 {
			_, err = callAs(x, "alice", "own")
			assert.NoError(t, err, "the tool's own rate, not the Executor's spent one")
		}
		_, err = callAs(x, "alice", "own")
		requireError(t, err, toolexec.StageLimit, toolexec.CodeRateLimited)

		for range 5 {
			_, err = callAs(x, "alice", "free")
			assert.NoError(t, err, "Rate 0 means no limit for this tool")
		}
	})
}

func TestRateLimitFallsBackToTheRemoteAddress(t *testing.T) {
	storeModes(t, func(t *testing.T, opts ...toolexec.Option) {
		var c counting
		x := newExec(t, toolexec.Tool{Name: "r"}, c.handle,
			append(opts, toolexec.WithRateLimit(toolexec.RateLimit{Rate: 1, Per: time.Hour}))...)
		from := func(addr string) error {
			r := httptest.NewRequest(http.MethodPost, "/tools/r/call", nil)
			r.RemoteAddr = addr
			_, err := x.Call(context.Background(), toolexec.CallRequest{Name: "r", Request: r})
			return err
		}

		require.NoError(t, from("192.0.2.1:1000"))
		err := from("192.0.2.1:2000")
		requireError(t, err, toolexec.StageLimit, toolexec.CodeRateLimited) // another port, the same host
		assert.NoError(t, from("192.0.2.2:1000"), "another host has a rate of its own")
	})
}

func TestRateLimitCountsAnIPv6CallerByItsPrefix(t *testing.T) {
	// One host may take any address of its /64: each must not get a fresh
	// budget. WithIPv6CallerPrefix changes the prefix.
	for _, c := range []struct {
		bits                  int
		sameCaller, otherHost string
	}{
		{0, "[2001:db8:1:2::ffff]:2000", "[2001:db8:1:3::1]:1000"},
		{48, "[2001:db8:1:9::1]:2000", "[2001:db8:2::1]:1000"},
		{128, "[2001:db8:1:2::1]:2000", "[2001:db8:1:2::2]:1000"},
	} {
		t.Run(fmt.Sprint(c.bits), func(t *testing.T) {
			storeModes(t, func(t *testing.T, opts ...toolexec.Option) {
				var n counting
				x := newExec(t, toolexec.Tool{Name: "r"}, n.handle, append(opts,
					toolexec.WithRateLimit(toolexec.RateLimit{Rate: 1, Per: time.Hour}), toolexec.WithIPv6CallerPrefix(c.bits))...)
				from := func(addr string) error {
					r := httptest.NewRequest(http.MethodPost, "/tools/r/call", nil)
					r.RemoteAddr = addr
					_, err := x.Call(context.Background(), toolexec.CallRequest{Name: "r", Request: r})
					return err
				}
				require.NoError(t, from("[2001:db8:1:2::1]:1000"))
				requireError(t, from(c.sameCaller), toolexec.StageLimit, toolexec.CodeRateLimited)
				assert.NoError(t, from(c.otherHost), "another network has a rate of its own")
				require.NoError(t, from("192.0.2.1:1"))
				requireError(t, from("[::ffff:192.0.2.1]:2"), toolexec.StageLimit, toolexec.CodeRateLimited) // the same IPv4 host
			})
		})
	}
}

func TestRateLimitRefusalOnEverySurface(t *testing.T) {
	var c counting
	x := newExec(t, toolexec.Tool{Name: "ns.r"}, c.handle,
		toolexec.WithRateLimit(toolexec.RateLimit{Rate: 1, Per: time.Hour}))
	mux := http.NewServeMux()
	mux.Handle("/rest/", http.StripPrefix("/rest", toolexec.NewHandler(x)))
	mux.Handle("/mcp", mcp.NewHandler(x))
	mux.Handle("/oxp/", http.StripPrefix("/oxp", oxp.NewHandler(x)))
	srv := httptest.NewServer(mux)
	defer srv.Close()
	post := func(path, body string, hdr ...string) (*http.Response, string) {
		req, err := http.NewRequest(http.MethodPost, srv.URL+path, strings.NewReader(body))
		require.NoError(t, err)
		req.Header.Set("Content-Type", "application/json")
		for i := 0; i < len(hdr); i += 2 {
			req.Header.Set(hdr[i], hdr[i+1])
		}
		resp, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		defer resp.Body.Close()
		raw, err := io.ReadAll(resp.Body)
		require.NoError(t, err)
		return resp, string(raw)
	}
	// Every surface counts against the same rate: the test client's one
	// address.
	resp, _ := post("/rest/tools/ns.r/call", `{}`)
	require.Equal(t, http.StatusOK, resp.StatusCode)

	t.Run("REST answers 429 with Retry-After and an isError result", func(t *testing.T) {
		resp, body := post("/rest/tools/ns.r/call", `{}`)
		assert.Equal(t, http.StatusTooManyRequests, resp.StatusCode)
		assert.Equal(t, "3600", resp.Header.Get("Retry-After"))
		assert.Contains(t, body, `"isError":true`)
		assert.Contains(t, body, "Too many calls")
	})
	t.Run("OXP answers 429 with Retry-After and a server error", func(t *testing.T) {
		resp, body := post("/oxp/tools/call", `{"tool_id":"ns.r"}`)
		assert.Equal(t, http.StatusTooManyRequests, resp.StatusCode)
		assert.Equal(t, "3600", resp.Header.Get("Retry-After"))
		var e map[string]any
		require.NoError(t, json.Unmarshal([]byte(body), &e), body)
		assert.Contains(t, e["message"], "Too many calls")
	})
	t.Run("MCP answers an isError result with Retry-After", func(t *testing.T) {
		resp, body := post("/mcp", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"ns.r","arguments":{}}}`,
			"Accept", "application/json, text/event-stream")
		assert.Equal(t, http.StatusOK, resp.StatusCode)
		assert.Equal(t, "3600", resp.Header.Get("Retry-After"))
		assert.Contains(t, body, `"isError":true`)
		assert.Contains(t, body, "Too many calls")
	})
	assert.Equal(t, int32(1), c.n.Load())
}
