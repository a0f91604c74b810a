package toolexec_test

import (
	"context"
	"net/http"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolexec/toolexec"
)

// identityHook is an auth hook that takes the bearer token as the caller's
// identity (any token passes).
func identityHook(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		id := strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")
		next.ServeHTTP(w, r.WithContext(toolexec.ContextWithIdentity(r.Context(), id)))
	})
}

// identityCachedTool serves one cached tool "ns/t" and counts its runs.
func identityCachedTool(t *testing.T, opts toolexec.ToolOptions, req toolexec.Requirements, xopts ...toolexec.Option) (*toolexec.Executor, *atomic.Int64) {
	t.Helper()
	runs := new(atomic.Int64)
	reg := toolexec.NewRegistry()
	opts.Cache = true
	reg.MustAdd(toolexec.Tool{Name: "ns/t", Options: opts, Requirements: req}, toolexec.ToolCallHandlerFunc(
		func(context.Context, string, map[string]any) ([]toolexec.Content, bool, string, error) {
			return []toolexec.Content{toolexec.Text("run " + string(rune('0'+runs.Add(1))))}, false, "", nil
		}))
	return toolexec.New(reg, reg, append([]toolexec.Option{toolexec.WithAllowExecute(true), toolexec.WithLogger(quiet())}, xopts...)...), runs
}

func TestCachedResultsAreOnlyServedToTheSameIdentity(t *testing.T) {
	x, runs := identityCachedTool(t, toolexec.ToolOptions{}, toolexec.Requirements{}, toolexec.WithAuthHook(identityHook))
	srv := serveAll(t, x)
	for i, c := range surfaceCalls(`{"q":1}`) {
		c = surfaceCalls(`{"q":` + strconv.Itoa(i) + `}`)[i] // arguments of its own: the cache is shared across surfaces
		if !strings.Contains(c.name, "rest call") && c.name != "mcp" && c.name != "handsai" && c.name != "oxp" {
			continue
		}
		t.Run(c.name, func(t *testing.T) {
			before := runs.Load()
			doAs(t, srv.URL, c, "alice")
			doAs(t, srv.URL, c, "alice")
			assert.Equal(t, before+1, runs.Load(), "alice's second call is a hit")
			doAs(t, srv.URL, c, "mallory")
			assert.Equal(t, before+2, runs.Load(), "another identity never gets alice's result")
		})
	}
}

func TestCallsWithoutIdentityAreNotCachedUnlessShared(t *testing.T) {
	x, runs := identityCachedTool(t, toolexec.ToolOptions{}, toolexec.Requirements{})
	for range 3 {
		_, err := x.Call(context.Background(), toolexec.CallRequest{Name: "ns/t"})
		require.NoError(t, err)
	}
	assert.EqualValues(t, 3, runs.Load(), "no identity: every call runs")

	ctx := toolexec.ContextWithIdentity(context.Background(), "alice")
	for range 3 {
		_, err := x.Call(ctx, toolexec.CallRequest{Name: "ns/t"})
		require.NoError(t, err)
	}
	assert.EqualValues(t, 4, runs.Load(), "an in-process identity is one too")

	shared, sruns := identityCachedTool(t, toolexec.ToolOptions{CacheShared: true}, toolexec.Requirements{}, toolexec.WithAuthHook(identityHook))
	srv := serveAll(t, shared)
	c := surfaceCalls(`{}`)[0]
	doAs(t, srv.URL, c, "alice")
	doAs(t, srv.URL, c, "bob")
	_, err := shared.Call(context.Background(), toolexec.CallRequest{Name: "ns/t"})
	require.NoError(t, err)
	assert.EqualValues(t, 1, sruns.Load(), "CacheShared: one result for everyone")
}

func TestOXPRequirementsSetCachedResultsApart(t *testing.T) {
	req := toolexec.Requirements{Authorization: []toolexec.AuthorizationRequirement{{ID: "google"}}}
	call := func(token string) surfaceCall {
		return surfaceCall{"oxp", http.MethodPost, "/oxp/tools/call",
			`{"tool_id":"ns.t","input":{},"context":{"authorization":[{"id":"google","token":"` + token + `"}]}}`}
	}
	t.Run("same identity, another token", func(t *testing.T) {
		x, runs := identityCachedTool(t, toolexec.ToolOptions{}, req, toolexec.WithAuthHook(identityHook))
		srv := serveAll(t, x)
		doAs(t, srv.URL, call("real"), "alice")
		doAs(t, srv.URL, call("real"), "alice")
		assert.EqualValues(t, 1, runs.Load())
		doAs(t, srv.URL, call("made-up"), "alice")
		assert.EqualValues(t, 2, runs.Load(), "a made-up token never gets the real token's result")
	})
	t.Run("no identity: not cached", func(t *testing.T) {
		x, runs := identityCachedTool(t, toolexec.ToolOptions{}, req)
		srv := serveAll(t, x)
		doAs(t, srv.URL, call("real"), "")
		doAs(t, srv.URL, call("made-up"), "")
		doAs(t, srv.URL, call("real"), "")
		assert.EqualValues(t, 3, runs.Load())
	})
}

func doAs(t *testing.T, url string, c surfaceCall, token string) {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), c.method, url+c.path, strings.NewReader(c.body))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode)
}
