package redis_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolexec/toolexec"
	"github.com/toolexec/toolexec/mcp"
	"github.com/toolexec/toolexec/redis"
	"github.com/toolexec/toolexec/redis/redistest"
)

// The _meta of a 2026-07-28 request from a client that declares the tasks
// extension and form elicitation.
const tasksMeta = `{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"elicitation":{},"extensions":{"io.modelcontextprotocol/tasks":{}}}}`

// taskRegistry holds the tools of the replicas below: "confirm" becomes a
// task and asks to go on; "hang" becomes a task and runs until cancelled,
// reporting that on cancelled (nil: not reported); "stream" reports
// progress (a 2025 call's stream starts) and runs until cancelled.
func taskRegistry(cancelled chan<- error) *toolexec.Registry {
	reg := toolexec.NewRegistry()
	optional := toolexec.ToolOptions{TaskSupport: toolexec.TaskSupportOptional}
	reg.MustAdd(toolexec.Tool{Name: "confirm", Options: optional}, func(ctx context.Context, _ string, _ map[string]any) ([]toolexec.Content, bool, string, error) {
		toolexec.BecomeTask(ctx)
		res, err := toolexec.Elicit(ctx, "go", toolexec.ElicitRequest{Message: "Go on?",
			RequestedSchema: json.RawMessage(`{"type":"object","properties":{"ok":{"type":"boolean"}}}`)})
		if err != nil {
			return nil, false, "", err
		}
		return []toolexec.Content{toolexec.Text("confirmed: " + res.Action)}, false, "", nil
	})
	reg.MustAdd(toolexec.Tool{Name: "stream"}, func(ctx context.Context, _ string, _ map[string]any) ([]toolexec.Content, bool, string, error) {
		_ = toolexec.ReportProgress(ctx, toolexec.Progress{Progress: 1, Message: "started"})
		<-ctx.Done()
		return nil, false, "", ctx.Err()
	})
	reg.MustAdd(toolexec.Tool{Name: "hang", Options: optional}, func(ctx context.Context, _ string, _ map[string]any) ([]toolexec.Content, bool, string, error) {
		toolexec.BecomeTask(ctx)
		<-ctx.Done()
		if cancelled != nil {
			cancelled <- ctx.Err()
		}
		return nil, false, "", ctx.Err()
	})
	return reg
}

// mcpReplica serves reg over MCP with a Store of its own on srv under
// prefix: one replica of a service.
func mcpReplica(t *testing.T, srv *redistest.Server, prefix string, reg *toolexec.Registry, opts ...toolexec.Option) *httptest.Server {
	t.Helper()
	x := toolexec.New(reg, reg, append([]toolexec.Option{toolexec.WithAllowExecute(true), toolexec.WithLogger(discardLogger()),
		toolexec.WithStore(open(t, srv, prefix))}, opts...)...)
	s := httptest.NewServer(mcp.NewHandler(x))
	t.Cleanup(s.Close)
	return s
}

// rpc2026 sends one 2026-07-28 request of method (name: its Mcp-Name) with
// params (members, without braces) and returns its result, or fails the
// test on an error.
func rpc2026(t *testing.T, url, method, name, params string) map[string]any {
	t.Helper()
	if params != "" {
		params += ","
	}
	body := fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":%q,"params":{%s"_meta":%s}}`, method, params, tasksMeta)
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("MCP-Protocol-Version", "2026-07-28")
	req.Header.Set("Mcp-Method", method)
	req.Header.Set("Mcp-Name", name)
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	var reply struct {
		Result map[string]any  `json:"result"`
		Error  json.RawMessage `json:"error"`
	}
	data, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(data, &reply), string(data))
	require.Nil(t, reply.Error, "%s: %s", method, data)
	return reply.Result
}

// pollUntil polls tasks/get on url until the task's status is status.
func pollUntil(t *testing.T, url, id, status string) map[string]any {
	t.Helper()
	var got map[string]any
	require.Eventually(t, func() bool {
		got = rpc2026(t, url, "tasks/get", id, fmt.Sprintf(`"taskId":%q`, id))
		return got["status"] == status
	}, 20*time.Second, 20*time.Millisecond, "task %s never became %s: %v", id, status, got)
	return got
}

func TestTaskCreatedOnOneReplicaIsServedByAnother(t *testing.T) {
	srv := redistest.New(t)
	prefix := t.Name() + ":"
	cancelled := make(chan error, 1)
	a := mcpReplica(t, srv, prefix, taskRegistry(cancelled))
	b := mcpReplica(t, srv, prefix, taskRegistry(nil))

	// Answered on another replica: tasks/get and tasks/update on b reach
	// the call running on a.
	created := rpc2026(t, a.URL, "tools/call", "confirm", `"name":"confirm","arguments":{}`)
	require.Equal(t, "task", created["resultType"])
	id := created["taskId"].(string)
	asked := pollUntil(t, b.URL, id, "input_required")
	assert.Contains(t, asked["inputRequests"], "go")
	rpc2026(t, b.URL, "tasks/update", id, fmt.Sprintf(`"taskId":%q,"inputResponses":{"go":{"action":"accept","content":{"ok":true}}}`, id))
	done := pollUntil(t, b.URL, id, "completed")
	text := done["result"].(map[string]any)["content"].([]any)[0].(map[string]any)["text"]
	assert.Equal(t, "confirmed: accept", text)
	again := rpc2026(t, a.URL, "tasks/get", id, fmt.Sprintf(`"taskId":%q`, id))
	assert.Equal(t, done["result"], again["result"], "every replica reads the same result")

	// Cancelled on another replica: the call on a sees its context end.
	created = rpc2026(t, a.URL, "tools/call", "hang", `"name":"hang","arguments":{}`)
	id = created["taskId"].(string)
	rpc2026(t, b.URL, "tasks/cancel", id, fmt.Sprintf(`"taskId":%q`, id))
	select {
	case err := <-cancelled:
		assert.ErrorIs(t, err, context.Canceled)
	case <-time.After(20 * time.Second):
		t.Fatal("the cancellation never reached the replica running the task")
	}
	assert.Equal(t, "cancelled", rpc2026(t, a.URL, "tasks/get", id, fmt.Sprintf(`"taskId":%q`, id))["status"])
}

func TestTaskKeptInRedisForItsTTL(t *testing.T) {
	srv := redistest.New(t)
	reg := toolexec.NewRegistry()
	reg.MustAdd(toolexec.Tool{Name: "quick", Options: toolexec.ToolOptions{TaskSupport: toolexec.TaskSupportOptional}},
		func(ctx context.Context, _ string, _ map[string]any) ([]toolexec.Content, bool, string, error) {
			toolexec.BecomeTask(ctx)
			return []toolexec.Content{toolexec.Text("kept")}, false, "", nil
		})
	a := mcpReplica(t, srv, t.Name()+":", reg, toolexec.WithTasks(toolexec.TaskSettings{TTL: time.Second}))
	id := rpc2026(t, a.URL, "tools/call", "quick", `"name":"quick","arguments":{}`)["taskId"].(string)
	done := pollUntil(t, a.URL, id, "completed")
	assert.EqualValues(t, 1000, done["ttlMs"].(float64)-float64(mustTime(t, done["lastUpdatedAt"]).Sub(mustTime(t, done["createdAt"])).Milliseconds()),
		"kept for the TTL after its last change")
	require.Eventually(t, func() bool {
		body := fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":"tasks/get","params":{"taskId":%q,"_meta":%s}}`, id, tasksMeta)
		req, _ := http.NewRequest(http.MethodPost, a.URL, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("MCP-Protocol-Version", "2026-07-28")
		req.Header.Set("Mcp-Method", "tasks/get")
		req.Header.Set("Mcp-Name", id)
		resp, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		defer resp.Body.Close()
		data, _ := io.ReadAll(resp.Body)
		return strings.Contains(string(data), `"code":-32602`)
	}, 20*time.Second, 50*time.Millisecond, "Redis dropped the task after its TTL")
}

func mustTime(t *testing.T, v any) time.Time {
	t.Helper()
	tm, err := time.Parse(time.RFC3339Nano, v.(string))
	require.NoError(t, err)
	return tm
}

// The replica the test kills runs in a process of its own: this test
// binary, run again with the environment below.
const (
	replicaRedisEnv  = "TOOLEXEC_TEST_REPLICA_REDIS"
	replicaPrefixEnv = "TOOLEXEC_TEST_REPLICA_PREFIX"
)

// TestReplicaProcess is not a test: it is the replica process of
// TestTaskOfAKilledReplicaEndsFailed, which it starts with the environment
// above set. It serves the task tools over MCP, renewing its leases every
// 100ms, prints its URL, and serves until killed.
func TestReplicaProcess(t *testing.T) {
	url := os.Getenv(replicaRedisEnv)
	if url == "" {
		t.Skip("the replica process of TestTaskOfAKilledReplicaEndsFailed")
	}
	store, err := redis.Open(context.Background(), url, redis.Options{Prefix: os.Getenv(replicaPrefixEnv)})
	require.NoError(t, err)
	reg := taskRegistry(nil)
	x := toolexec.New(reg, reg, toolexec.WithAllowExecute(true), toolexec.WithLogger(discardLogger()),
		toolexec.WithStore(store), toolexec.WithLeaseTTL(300*time.Millisecond))
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	fmt.Printf("http://%s/\n", ln.Addr())
	_ = http.Serve(ln, mcp.NewHandler(x))
}

// replicaProcess starts a replica in a process of its own (see
// TestReplicaProcess) on srv under prefix, and returns its URL and its
// process, for the test to kill.
func replicaProcess(t *testing.T, srv *redistest.Server, prefix string) (string, *exec.Cmd) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestReplicaProcess$")
	cmd.Env = append(os.Environ(), replicaRedisEnv+"="+srv.URL(), replicaPrefixEnv+"="+prefix)
	out, err := cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	line, err := bufio.NewReader(out).ReadString('\n')
	require.NoError(t, err)
	return strings.TrimSpace(line), cmd
}

func TestTaskOfAKilledReplicaEndsFailed(t *testing.T) {
	srv := redistest.New(t)
	prefix := t.Name() + ":"
	doomed, cmd := replicaProcess(t, srv, prefix)

	survivor := mcpReplica(t, srv, prefix, taskRegistry(nil))
	id := rpc2026(t, doomed, "tools/call", "hang", `"name":"hang","arguments":{}`)["taskId"].(string)
	assert.Equal(t, "working", rpc2026(t, survivor.URL, "tasks/get", id, fmt.Sprintf(`"taskId":%q`, id))["status"],
		"its replica runs it")

	require.NoError(t, cmd.Process.Kill()) // the replica dies mid-call
	_ = cmd.Wait()
	failed := pollUntil(t, survivor.URL, id, "failed")
	assert.Equal(t, "the replica running this task stopped", failed["statusMessage"])
	assert.Equal(t, map[string]any{"code": -32603.0, "message": "the replica running this task stopped"}, failed["error"])
}
