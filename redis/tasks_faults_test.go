package redis_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolexec/toolexec"
	"github.com/toolexec/toolexec/internal/testlog"
	"github.com/toolexec/toolexec/mcp"
	"github.com/toolexec/toolexec/oxp"
	"github.com/toolexec/toolexec/redis"
	"github.com/toolexec/toolexec/redis/redistest"
)

// surfaces serves x over REST (/rest), MCP (/mcp) and OXP (/oxp).
func surfaces(t *testing.T, x *toolexec.Executor) string {
	t.Helper()
	mux := http.NewServeMux()
	mux.Handle("/rest/", http.StripPrefix("/rest", toolexec.NewHandler(x)))
	mux.Handle("/mcp", mcp.NewHandler(x))
	mux.Handle("/oxp/", http.StripPrefix("/oxp", oxp.NewHandler(x)))
	s := httptest.NewServer(mux)
	t.Cleanup(s.Close)
	return s.URL
}

// answer is an HTTP response read whole.
type answer struct {
	status     int
	retryAfter string
	body       string
}

func do(t *testing.T, method, url, body string, hdr ...string) answer {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return answer{resp.StatusCode, resp.Header.Get("Retry-After"), string(data)}
}

// mcpTaskGet is a 2026-07-28 tasks/get of id.
func mcpTaskGet(t *testing.T, base, id string) answer {
	t.Helper()
	body := fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":"tasks/get","params":{"taskId":%q,"_meta":%s}}`, id, tasksMeta)
	return do(t, http.MethodPost, base+"/mcp", body, "MCP-Protocol-Version", "2026-07-28", "Mcp-Method", "tasks/get", "Mcp-Name", id)
}

// longTool is a tool that becomes a task at once and ends, with "the
// answer", when proceed is closed; runs counts its runs.
func longTool(proceed <-chan struct{}, runs *atomic.Int32) *toolexec.Registry {
	reg := toolexec.NewRegistry()
	reg.MustAdd(toolexec.Tool{Name: "long", Options: toolexec.ToolOptions{TaskSupport: toolexec.TaskSupportOptional}},
		func(ctx context.Context, _ string, _ map[string]any) ([]toolexec.Content, bool, string, error) {
			runs.Add(1)
			toolexec.BecomeTask(ctx)
			select {
			case <-proceed:
			case <-ctx.Done():
				return nil, false, "", ctx.Err()
			}
			return []toolexec.Content{toolexec.Text("the answer")}, false, "", nil
		})
	return reg
}

// A Redis restarted without persistence has forgotten every task; the
// replica running one writes it again, so that its caller polls it on to
// its result, and a poll while Redis is away is told to come back, never
// that the task does not exist.
func TestARunningTaskSurvivesARedisRestart(t *testing.T) {
	t.Parallel()
	srv := redistest.New(t)
	prefix := t.Name() + ":"
	proceed := make(chan struct{})
	var runs atomic.Int32
	reg := longTool(proceed, &runs)
	var logs testlog.Buffer
	replica := func() string {
		return surfaces(t, toolexec.New(reg, reg, toolexec.WithAllowExecute(true), toolexec.WithLogger(logs.Logger()),
			toolexec.WithStore(open(t, srv, prefix)), toolexec.WithLeaseTTL(3*time.Second)))
	}
	a, b := replica(), replica()

	created := do(t, http.MethodPost, a+"/rest/tools/long/call", `{}`, "Prefer", "respond-async, wait=0")
	require.Equal(t, http.StatusAccepted, created.status, created.body)
	var task struct{ TaskID string }
	require.NoError(t, json.Unmarshal([]byte(created.body), &task))
	id := task.TaskID

	srv.Kill()
	for name, got := range map[string]answer{
		"REST": do(t, http.MethodGet, b+"/rest/tasks/"+id, ""),
		"OXP":  do(t, http.MethodGet, b+"/oxp/tasks/"+id, ""),
		"MCP":  mcpTaskGet(t, b, id),
	} {
		assert.Equal(t, http.StatusServiceUnavailable, got.status, "%s while Redis is away: %s", name, got.body)
		assert.NotEmpty(t, got.retryAfter, name)
		assert.NotContains(t, got.body, "not found", name)
	}
	assert.Contains(t, mcpTaskGet(t, b, id).body, `"code":-32000`, "MCP: a request refused for now, to retry")

	require.NoError(t, srv.Restart()) // empty
	var last answer
	require.Eventually(t, func() bool {
		last = do(t, http.MethodGet, b+"/rest/tasks/"+id, "")
		require.Contains(t, []int{http.StatusOK, http.StatusServiceUnavailable}, last.status, "never 404: %s", last.body)
		return last.status == http.StatusOK
	}, 20*time.Second, 50*time.Millisecond, "the task is back: %s", last.body)
	assert.Contains(t, last.body, `"status":"working"`)

	close(proceed)
	require.Eventually(t, func() bool {
		last = do(t, http.MethodGet, b+"/rest/tasks/"+id, "")
		return strings.Contains(last.body, `"status":"completed"`)
	}, 20*time.Second, 50*time.Millisecond, "%s", last.body)
	assert.Contains(t, last.body, "the answer", "its result, kept")
	assert.Equal(t, int32(1), runs.Load())
	assert.Contains(t, logs.String(), "the replica running the task wrote it again")
}

// While Redis does not answer, a call that would become a task is refused
// before its handler runs, with Retry-After, rather than held for its
// whole run.
func TestATaskIsRefusedWhileRedisDoesNotAnswer(t *testing.T) {
	t.Parallel()
	srv := redistest.New(t)
	proceed := make(chan struct{})
	close(proceed)
	var runs atomic.Int32
	reg := longTool(proceed, &runs)
	base := surfaces(t, toolexec.New(reg, reg, toolexec.WithAllowExecute(true), toolexec.WithLogger(discardLogger()),
		toolexec.WithStore(open(t, srv, t.Name()+":"))))
	created := do(t, http.MethodPost, base+"/rest/tools/long/call", `{}`, "Prefer", "respond-async, wait=0")
	require.Contains(t, []int{http.StatusOK, http.StatusAccepted}, created.status, created.body)
	runs.Store(0)

	srv.Pause()
	paused := true
	defer func() {
		if paused {
			srv.Resume()
		}
	}()
	modern := fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"long","arguments":{},"_meta":%s}}`, tasksMeta)
	for name, got := range map[string]answer{
		"REST": do(t, http.MethodPost, base+"/rest/tools/long/call", `{}`, "Prefer", "respond-async"),
		"OXP":  do(t, http.MethodPost, base+"/oxp/tools/call", `{"tool_id":"Tools.long","input":{}}`, "Prefer", "respond-async"),
		"MCP":  do(t, http.MethodPost, base+"/mcp", modern, "MCP-Protocol-Version", "2026-07-28", "Mcp-Method", "tools/call", "Mcp-Name", "long"),
	} {
		switch name {
		case "REST":
			assert.Equal(t, http.StatusServiceUnavailable, got.status, got.body)
			assert.NotEmpty(t, got.retryAfter)
		case "MCP": // as a call refused by a limit: an isError result, and Retry-After
			assert.Contains(t, got.body, `"isError":true`)
			assert.NotEmpty(t, got.retryAfter)
		case "OXP": // as OXP answers a call refused for now: a failure it may retry, and when
			assert.Contains(t, got.body, `"can_retry":true`)
			assert.Contains(t, got.body, `"retry_after_ms":1000`)
		}
	}
	assert.Zero(t, runs.Load(), "no handler ran")

	srv.Resume()
	paused = false
	require.Eventually(t, func() bool {
		return do(t, http.MethodPost, base+"/rest/tools/long/call", `{}`, "Prefer", "respond-async, wait=0").status == http.StatusAccepted
	}, 10*time.Second, 100*time.Millisecond, "tasks again once Redis answers")
}

// A result the store refuses (larger than its MaxValueBytes) is not kept
// waiting for a store that answers: the task fails, saying so.
func TestATaskWhoseResultTheStoreRefusesFails(t *testing.T) {
	t.Parallel()
	srv := redistest.New(t)
	store, err := redis.Open(context.Background(), srv.URL(), redis.Options{Prefix: t.Name() + ":", MaxValueBytes: 4 << 10})
	require.NoError(t, err)
	t.Cleanup(func() { _ = store.Close() })
	reg := toolexec.NewRegistry()
	reg.MustAdd(toolexec.Tool{Name: "big", Options: toolexec.ToolOptions{TaskSupport: toolexec.TaskSupportOptional}},
		func(ctx context.Context, _ string, _ map[string]any) ([]toolexec.Content, bool, string, error) {
			toolexec.BecomeTask(ctx)
			return []toolexec.Content{toolexec.Text(strings.Repeat("x", 8<<10))}, false, "", nil
		})
	base := surfaces(t, toolexec.New(reg, reg, toolexec.WithAllowExecute(true), toolexec.WithLogger(discardLogger()), toolexec.WithStore(store)))
	created := do(t, http.MethodPost, base+"/rest/tools/big/call", `{}`, "Prefer", "respond-async, wait=0")
	require.Equal(t, http.StatusAccepted, created.status, created.body)
	var task struct{ TaskID string }
	require.NoError(t, json.Unmarshal([]byte(created.body), &task))
	var last answer
	require.Eventually(t, func() bool {
		last = do(t, http.MethodGet, base+"/rest/tasks/"+task.TaskID, "")
		return strings.Contains(last.body, `"status":"failed"`)
	}, 10*time.Second, 50*time.Millisecond, "%s", last.body)
	assert.Contains(t, last.body, "the task's result could not be stored")
}
