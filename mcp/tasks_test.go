package mcp_test

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
)

// The _meta of a 2026-07-28 request whose client declares the tasks
// extension (and form elicitation), and of one that declares neither.
const (
	metaTasks   = `{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"elicitation":{},"extensions":{"io.modelcontextprotocol/tasks":{}}}}`
	metaNoTasks = `{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}`
)

// taskFixture serves tools that run as tasks: slow (until release is
// closed), quick (answers at once), must (runs only as a task), ask
// (asks its caller whether to go on) and panics.
type taskFixture struct {
	h       http.Handler
	x       *toolexec.Executor
	release chan struct{}
	ended   chan error
}

func newTaskFixture(t *testing.T, xopts ...toolexec.Option) *taskFixture {
	t.Helper()
	f := &taskFixture{release: make(chan struct{}), ended: make(chan error, 8)}
	optional := toolexec.ToolOptions{TaskSupport: toolexec.TaskSupportOptional}
	reg := toolexec.NewRegistry()
	reg.MustAdd(toolexec.Tool{Name: "slow", Options: optional}, func(ctx context.Context, _ string, _ map[string]any) ([]toolexec.Content, bool, string, error) {
		toolexec.BecomeTask(ctx)
		select {
		case <-f.release:
			return []toolexec.Content{toolexec.Text("slow done")}, false, "", nil
		case <-ctx.Done():
			f.ended <- ctx.Err()
			return nil, false, "", ctx.Err()
		}
	})
	reg.MustAdd(toolexec.Tool{Name: "quick", Options: optional}, func(context.Context, string, map[string]any) ([]toolexec.Content, bool, string, error) {
		return []toolexec.Content{toolexec.Text("quick")}, false, "", nil
	})
	reg.MustAdd(toolexec.Tool{Name: "must", Options: toolexec.ToolOptions{TaskSupport: toolexec.TaskSupportRequired}},
		func(ctx context.Context, _ string, _ map[string]any) ([]toolexec.Content, bool, string, error) {
			toolexec.BecomeTask(ctx)
			return []toolexec.Content{toolexec.Text("must done")}, true, "", nil
		})
	reg.MustAdd(toolexec.Tool{Name: "ask", Options: optional}, func(ctx context.Context, _ string, _ map[string]any) ([]toolexec.Content, bool, string, error) {
		toolexec.BecomeTask(ctx)
		res, err := toolexec.Elicit(ctx, "go", toolexec.ElicitRequest{Message: "Go on?",
			RequestedSchema: json.RawMessage(`{"type":"object","properties":{"ok":{"type":"boolean"}}}`)})
		if err != nil {
			return nil, false, "", err
		}
		return []toolexec.Content{toolexec.Text("answer: " + res.Action)}, false, "", nil
	})
	reg.MustAdd(toolexec.Tool{Name: "panics", Options: optional}, func(ctx context.Context, _ string, _ map[string]any) ([]toolexec.Content, bool, string, error) {
		toolexec.BecomeTask(ctx)
		panic("on purpose")
	})
	f.x = toolexec.New(reg, reg, append([]toolexec.Option{toolexec.WithAllowExecute(true), toolexec.WithLogger(quietLogger())}, xopts...)...)
	f.h = mcp.NewHandler(f.x)
	return f
}

// callTasks is a 2026-07-28 tools/call of tool with _meta meta.
func callTasks(tool, meta string) string {
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":%q,"arguments":{},"_meta":%s}}`, tool, meta)
}

// taskRequest is a 2026-07-28 request of a tasks method for id.
func taskRequest(method, id, meta, extra string) string {
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":4,"method":%q,"params":{"taskId":%q%s,"_meta":%s}}`, method, id, extra, meta)
}

func (f *taskFixture) call(t *testing.T, tool, meta string, hdr ...string) *httptest.ResponseRecorder {
	t.Helper()
	return post(t, f.h, callTasks(tool, meta), append(headers2026("tools/call", tool), hdr...)...)
}

func (f *taskFixture) method(t *testing.T, method, id, extra string, hdr ...string) *httptest.ResponseRecorder {
	t.Helper()
	return post(t, f.h, taskRequest(method, id, metaTasks, extra), append(headers2026(method, id), hdr...)...)
}

// created starts tool as a task and returns its id.
func (f *taskFixture) created(t *testing.T, tool string, hdr ...string) string {
	t.Helper()
	rec := f.call(t, tool, metaTasks, hdr...)
	require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
	var res struct {
		ResultType string `json:"resultType"`
		TaskID     string `json:"taskId"`
	}
	require.NoError(t, json.Unmarshal(decodeReply(t, rec).Result, &res))
	require.Equal(t, "task", res.ResultType, rec.Body.String())
	return res.TaskID
}

// get answers tasks/get for id.
func (f *taskFixture) get(t *testing.T, id string, hdr ...string) map[string]any {
	t.Helper()
	rec := f.method(t, "tasks/get", id, "", hdr...)
	require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
	r := decodeReply(t, rec)
	require.Nil(t, r.Error, rec.Body.String())
	var m map[string]any
	require.NoError(t, json.Unmarshal(r.Result, &m))
	return m
}

// until polls tasks/get for id until its status is status.
func (f *taskFixture) until(t *testing.T, id, status string, hdr ...string) map[string]any {
	t.Helper()
	var got map[string]any
	require.Eventually(t, func() bool {
		got = f.get(t, id, hdr...)
		return got["status"] == status
	}, 10*time.Second, 5*time.Millisecond, "task %s never became %s: %v", id, status, got)
	return got
}

func TestTasksCreateTaskResultThenCompletedOnTasksGet(t *testing.T) {
	f := newTaskFixture(t)
	rec := f.call(t, "slow", metaTasks)
	require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
	var created map[string]any
	require.NoError(t, json.Unmarshal(decodeReply(t, rec).Result, &created))
	assert.Equal(t, "task", created["resultType"])
	assert.Equal(t, "working", created["status"])
	assert.Regexp(t, `^[0-9a-f]{32}$`, created["taskId"])
	assert.Regexp(t, `^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$`, created["createdAt"])
	assert.Regexp(t, `^\d{4}-\d\d-\d\dT`, created["lastUpdatedAt"])
	assert.EqualValues(t, toolexec.DefaultTaskTTL.Milliseconds(), created["ttlMs"])
	assert.EqualValues(t, toolexec.DefaultTaskPollInterval.Milliseconds(), created["pollIntervalMs"])
	for _, k := range []string{"result", "error", "inputRequests", "requestState", "task", "ttl", "pollInterval"} {
		assert.NotContains(t, created, k, "a CreateTaskResult carries the task alone")
	}
	id := created["taskId"].(string)

	working := f.get(t, id)
	assert.Equal(t, "complete", working["resultType"])
	assert.Equal(t, "working", working["status"])
	assert.NotContains(t, working, "result")

	close(f.release)
	done := f.until(t, id, "completed")
	assert.Equal(t, "complete", done["resultType"])
	result := done["result"].(map[string]any)
	assert.Equal(t, false, result["isError"])
	assert.Equal(t, "slow done", result["content"].([]any)[0].(map[string]any)["text"])
	assert.NotContains(t, result["_meta"], "io.modelcontextprotocol/related-task")
}

func TestTasksOnlyForClientsThatDeclareTheExtension(t *testing.T) {
	f := newTaskFixture(t)
	close(f.release)

	// Without the extension, a tool that may be a task answers as any.
	res := callResult(t, f.call(t, "slow", metaNoTasks))
	assert.Equal(t, "slow done", res.Text())

	// A tool that must be a task is refused, naming the extension.
	rec := f.call(t, "must", metaNoTasks)
	require.Equal(t, http.StatusBadRequest, rec.Code, rec.Body.String())
	r := decodeReply(t, rec)
	require.NotNil(t, r.Error)
	assert.Equal(t, mcp.CodeMissingClientCapability, r.Error.Code)
	assert.JSONEq(t, `{"requiredCapabilities":{"extensions":{"io.modelcontextprotocol/tasks":{}}}}`, string(r.Error.Data))

	// The tasks methods are refused too.
	id := f.created(t, "must")
	for _, method := range []string{"tasks/get", "tasks/update", "tasks/cancel"} {
		rec := post(t, f.h, taskRequest(method, id, metaNoTasks, ""), headers2026(method, id)...)
		require.Equal(t, http.StatusBadRequest, rec.Code, method)
		assert.Equal(t, mcp.CodeMissingClientCapability, decodeReply(t, rec).Error.Code, method)
	}

	// With it, a quick call is answered directly, a tool error completes the task.
	res = callResult(t, f.call(t, "quick", metaTasks))
	assert.Equal(t, "quick", res.Text())
	done := f.until(t, id, "completed")
	assert.Equal(t, true, done["result"].(map[string]any)["isError"], "a tool error completes the task")
}

func TestTasksErrorsOfTheTasksMethods(t *testing.T) {
	f := newTaskFixture(t)
	id := f.created(t, "slow")
	defer close(f.release)

	r := decodeReply(t, f.method(t, "tasks/get", strings.Repeat("0", 32), ""))
	require.NotNil(t, r.Error)
	assert.Equal(t, mcp.CodeInvalidParams, r.Error.Code, "an unknown task")

	rec := f.method(t, "tasks/get", id, "", "Mcp-Name", "another-task")
	require.Equal(t, http.StatusBadRequest, rec.Code)
	assert.Equal(t, mcp.CodeHeaderMismatch, decodeReply(t, rec).Error.Code, "Mcp-Name must carry the taskId")

	rec = post(t, f.h, taskRequest("tasks/get", id, metaTasks, ""), headers2026("tasks/get", "")...)
	require.Equal(t, http.StatusBadRequest, rec.Code)
	assert.Equal(t, mcp.CodeHeaderMismatch, decodeReply(t, rec).Error.Code, "Mcp-Name is required")

	rec = f.method(t, "tasks/update", id, `,"inputResponses":[1]`)
	assert.Equal(t, mcp.CodeInvalidParams, decodeReply(t, rec).Error.Code)

	for _, removed := range []string{"tasks/result", "tasks/list"} {
		rec := f.method(t, removed, id, "")
		assert.Equal(t, mcp.CodeMethodNotFound, decodeReply(t, rec).Error.Code, removed)
	}
}

func TestTasksInputThroughTasksUpdate(t *testing.T) {
	f := newTaskFixture(t)
	id := f.created(t, "ask")
	asked := f.until(t, id, "input_required")
	reqs := asked["inputRequests"].(map[string]any)
	require.Contains(t, reqs, "go")
	assert.Equal(t, "elicitation/create", reqs["go"].(map[string]any)["method"])

	rec := f.method(t, "tasks/update", id, `,"inputResponses":{"unknown":{"action":"accept"}}`)
	var ack map[string]any
	require.NoError(t, json.Unmarshal(decodeReply(t, rec).Result, &ack), "an answer to nothing asked is acknowledged and ignored")
	assert.Equal(t, "complete", ack["resultType"])
	assert.Len(t, ack, 2, "resultType and _meta: %v", ack)
	assert.Equal(t, "input_required", f.get(t, id)["status"])

	rec = f.method(t, "tasks/update", id, `,"inputResponses":{"go":{"action":"accept","content":{"ok":true}}}`)
	require.Nil(t, decodeReply(t, rec).Error)
	done := f.until(t, id, "completed")
	assert.Equal(t, "answer: accept", done["result"].(map[string]any)["content"].([]any)[0].(map[string]any)["text"])
}

func TestTasksCancelAndFailure(t *testing.T) {
	f := newTaskFixture(t)
	id := f.created(t, "slow")
	rec := f.method(t, "tasks/cancel", id, "")
	var ack map[string]any
	require.NoError(t, json.Unmarshal(decodeReply(t, rec).Result, &ack))
	assert.Equal(t, "complete", ack["resultType"])
	assert.NotContains(t, ack, "status")
	assert.Equal(t, "cancelled", f.get(t, id)["status"])
	select {
	case err := <-f.ended:
		assert.ErrorIs(t, err, context.Canceled)
	case <-time.After(10 * time.Second):
		t.Fatal("the handler never saw its context cancelled")
	}
	// Cancelling again is acknowledged alike.
	require.Nil(t, decodeReply(t, f.method(t, "tasks/cancel", id, "")).Error)

	id = f.created(t, "panics")
	failed := f.until(t, id, "failed")
	assert.NotContains(t, failed, "result")
	e := failed["error"].(map[string]any)
	assert.EqualValues(t, mcp.CodeInternalError, e["code"])
	assert.Equal(t, "The tool failed unexpectedly.", e["message"], "the panic's value stays on the server")
}

func TestTasksBelongToTheirCaller(t *testing.T) {
	f := newTaskFixture(t, toolexec.WithAuthHook(bearerHook))
	defer close(f.release)
	id := f.created(t, "slow", "Authorization", "Bearer alice")
	assert.Equal(t, "working", f.get(t, id, "Authorization", "Bearer alice")["status"])
	for _, method := range []string{"tasks/get", "tasks/update", "tasks/cancel"} {
		rec := f.method(t, method, id, "", "Authorization", "Bearer mallory")
		r := decodeReply(t, rec)
		require.NotNil(t, r.Error, method)
		assert.Equal(t, mcp.CodeInvalidParams, r.Error.Code, "%s: another's task is not found", method)
	}
	rec := f.method(t, "tasks/get", id, "")
	assert.Equal(t, http.StatusUnauthorized, rec.Code, "the auth hook guards the tasks methods")
	assert.Equal(t, "working", f.get(t, id, "Authorization", "Bearer alice")["status"])
}

func TestTasksStatusNotificationsOnListenStreams(t *testing.T) {
	f := newTaskFixture(t)
	srv := httptest.NewServer(f.h)
	defer srv.Close()
	id := f.created(t, "slow")
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()

	listenTasks := func(meta string, ids ...string) *http.Response {
		body, _ := json.Marshal(ids)
		resp := rpc(t, ctx, srv.URL, fmt.Sprintf(`{"jsonrpc":"2.0","id":"sub","method":"subscriptions/listen","params":{"_meta":%s,"notifications":{"taskIds":%s}}}`, meta, body),
			headers2026("subscriptions/listen", "")...)
		t.Cleanup(func() { resp.Body.Close() })
		return resp
	}
	refused := listenTasks(metaNoTasks, id)
	require.Equal(t, http.StatusBadRequest, refused.StatusCode)
	var r rpcReply
	require.NoError(t, json.NewDecoder(refused.Body).Decode(&r))
	assert.Equal(t, mcp.CodeMissingClientCapability, r.Error.Code, "task notifications need the extension")

	resp := listenTasks(metaTasks, id, strings.Repeat("1", 32))
	require.Equal(t, http.StatusOK, resp.StatusCode)
	ev := newEvents(t, resp.Body)
	ack := ev.next()
	assert.Equal(t, "notifications/subscriptions/acknowledged", ack["method"])
	assert.Equal(t, []any{id}, ack["params"].(map[string]any)["notifications"].(map[string]any)["taskIds"],
		"only the caller's tasks that exist are agreed to")

	first := ev.next()
	assert.Equal(t, "notifications/tasks", first["method"])
	params := first["params"].(map[string]any)
	assert.Equal(t, id, params["taskId"])
	assert.Equal(t, "working", params["status"])
	assert.Equal(t, "sub", params["_meta"].(map[string]any)["io.modelcontextprotocol/subscriptionId"])

	close(f.release)
	for {
		n := ev.next()
		require.NotNil(t, n, "the stream ended before the task completed")
		p := n["params"].(map[string]any)
		if p["status"] == "completed" {
			assert.Equal(t, "slow done", p["result"].(map[string]any)["content"].([]any)[0].(map[string]any)["text"],
				"the notification carries what tasks/get answers")
			break
		}
	}
}

// legacyRequest is a 2025-11-25 request of method with params (members).
func legacyRequest(method, params string) string {
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":5,"method":%q,"params":{%s}}`, method, params)
}

func (f *taskFixture) legacy(t *testing.T, method, params string, version ...string) rpcReply {
	t.Helper()
	v := "2025-11-25"
	if len(version) > 0 {
		v = version[0]
	}
	rec := post(t, f.h, legacyRequest(method, params), "MCP-Protocol-Version", v)
	require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
	return decodeReply(t, rec)
}

func TestLegacyTasksAreDeclaredAt20251125Only(t *testing.T) {
	f := newTaskFixture(t)
	r := f.legacy(t, "initialize", `"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}`)
	var init struct {
		Capabilities map[string]json.RawMessage `json:"capabilities"`
	}
	require.NoError(t, json.Unmarshal(r.Result, &init))
	assert.JSONEq(t, `{"cancel":{},"requests":{"tools":{"call":{}}}}`, string(init.Capabilities["tasks"]))

	r = f.legacy(t, "initialize", `"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"c","version":"1"}`, "2025-06-18")
	init.Capabilities = nil
	require.NoError(t, json.Unmarshal(r.Result, &init))
	assert.NotContains(t, init.Capabilities, "tasks", "2025-06-18 has no tasks")

	var list struct {
		Tools []map[string]any `json:"tools"`
	}
	require.NoError(t, json.Unmarshal(f.legacy(t, "tools/list", "").Result, &list))
	byName := map[string]map[string]any{}
	for _, tool := range list.Tools {
		byName[tool["name"].(string)] = tool
	}
	assert.Equal(t, map[string]any{"taskSupport": "optional"}, byName["slow"]["execution"])
	assert.Equal(t, map[string]any{"taskSupport": "required"}, byName["must"]["execution"])
	list.Tools = nil
	require.NoError(t, json.Unmarshal(f.legacy(t, "tools/list", "", "2025-06-18").Result, &list))
	require.NotEmpty(t, list.Tools)
	for _, tool := range list.Tools {
		assert.NotContains(t, tool, "execution", "2025-06-18 lists no execution hints")
	}
	rec := post(t, f.h, modernBody("tools/list", ""), headers2026("tools/list", "")...)
	assert.NotContains(t, rec.Body.String(), `"execution"`, "2026-07-28's tools carry no execution hints")
}

// legacyCreated starts slow as a 2025-11-25 task and returns the task
// its CreateTaskResult holds, and its id.
func (f *taskFixture) legacyCreated(t *testing.T) (map[string]any, string) {
	t.Helper()
	r := f.legacy(t, "tools/call", `"name":"slow","arguments":{},"task":{"ttl":60000}`)
	require.Nil(t, r.Error)
	var created struct {
		Task map[string]any `json:"task"`
	}
	require.NoError(t, json.Unmarshal(r.Result, &created))
	id, _ := created.Task["taskId"].(string)
	require.NotEmpty(t, id, string(r.Result))
	return created.Task, id
}

func TestLegacyTaskLifecycle(t *testing.T) {
	f := newTaskFixture(t)
	task, id := f.legacyCreated(t)
	assert.Equal(t, "working", task["status"])
	assert.Contains(t, task, "ttl")
	assert.Contains(t, task, "pollInterval")

	r := f.legacy(t, "tasks/get", fmt.Sprintf(`"taskId":%q`, id))
	var got map[string]any
	require.NoError(t, json.Unmarshal(r.Result, &got))
	assert.Equal(t, "working", got["status"])
	assert.NotContains(t, got, "resultType")

	// tasks/result waits for the outcome.
	result := make(chan rpcReply, 1)
	go func() { result <- f.legacy(t, "tasks/result", fmt.Sprintf(`"taskId":%q`, id)) }()
	select {
	case <-result:
		t.Fatal("tasks/result answered before the task ended")
	case <-time.After(50 * time.Millisecond):
	}
	close(f.release)
	r = <-result
	require.Nil(t, r.Error)
	var res struct {
		Content []map[string]any `json:"content"`
		Meta    map[string]any   `json:"_meta"`
	}
	require.NoError(t, json.Unmarshal(r.Result, &res))
	assert.Equal(t, "slow done", res.Content[0]["text"])
	assert.Equal(t, map[string]any{"taskId": id}, res.Meta["io.modelcontextprotocol/related-task"])

	r = f.legacy(t, "tasks/cancel", fmt.Sprintf(`"taskId":%q`, id))
	require.NotNil(t, r.Error, "an ended task cannot be cancelled")
	assert.Equal(t, mcp.CodeInvalidParams, r.Error.Code)

	r = f.legacy(t, "tasks/list", "")
	assert.Equal(t, mcp.CodeMethodNotFound, r.Error.Code, "tasks/list is not served")
	r = f.legacy(t, "tasks/get", fmt.Sprintf(`"taskId":%q`, id), "2025-06-18")
	assert.Equal(t, mcp.CodeMethodNotFound, r.Error.Code, "tasks are 2025-11-25's")
}

func TestLegacyTaskRules(t *testing.T) {
	f := newTaskFixture(t)
	// A quick call asked as a task is a task all the same.
	r := f.legacy(t, "tools/call", `"name":"quick","arguments":{},"task":{}`)
	var created struct {
		Task map[string]any `json:"task"`
	}
	require.NoError(t, json.Unmarshal(r.Result, &created))
	require.NotEmpty(t, created.Task["taskId"], string(r.Result))

	// A tool that does not run as a task, asked as one, is not found.
	f2 := newExecutor()
	rec := post(t, mcp.NewHandler(f2), legacyRequest("tools/call", `"name":"weather_get","arguments":{"location":"x"},"task":{}`), "MCP-Protocol-Version", "2025-11-25")
	assert.Equal(t, mcp.CodeMethodNotFound, decodeReply(t, rec).Error.Code)

	// A tool that must be a task, called without the task parameter, is not found either.
	r = f.legacy(t, "tools/call", `"name":"must","arguments":{}`)
	require.NotNil(t, r.Error)
	assert.Equal(t, mcp.CodeMethodNotFound, r.Error.Code)

	// Cancelling a running task answers it cancelled.
	r = f.legacy(t, "tools/call", `"name":"slow","arguments":{},"task":{}`)
	require.NoError(t, json.Unmarshal(r.Result, &created))
	id := created.Task["taskId"].(string)
	r = f.legacy(t, "tasks/cancel", fmt.Sprintf(`"taskId":%q`, id))
	require.Nil(t, r.Error)
	var cancelled map[string]any
	require.NoError(t, json.Unmarshal(r.Result, &cancelled))
	assert.Equal(t, "cancelled", cancelled["status"])
	r = f.legacy(t, "tasks/result", fmt.Sprintf(`"taskId":%q`, id))
	require.NotNil(t, r.Error)
	assert.Equal(t, mcp.CodeInternalError, r.Error.Code)
}

func TestTasksOverStdio(t *testing.T) {
	f := newTaskFixture(t)
	c := startStdio(t, f.x)
	c.send(strings.ReplaceAll(callTasks("slow", metaTasks), "\n", ""))
	created := result(t, c.next(), 3)
	require.Equal(t, "task", created["resultType"])
	id := created["taskId"].(string)
	close(f.release)
	for {
		c.send(taskRequest("tasks/get", id, metaTasks, ""))
		got := result(t, c.next(), 4)
		if got["status"] == "completed" {
			assert.Equal(t, "slow done", textOf(t, got["result"].(map[string]any)))
			break
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func TestTasksAreCappedPerCallerAtBothRevisions(t *testing.T) {
	// A caller past its share of live tasks is refused before the tool
	// runs, as a rate limit refuses: an isError result with Retry-After.
	f := newTaskFixture(t, toolexec.WithTasks(toolexec.TaskSettings{MaxTasksPerCaller: 1}))
	defer close(f.release)
	f.created(t, "slow")

	rec := f.call(t, "slow", metaTasks)
	require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
	res := callResult(t, rec)
	assert.True(t, res.IsError, rec.Body.String())
	assert.Contains(t, res.Text(), "Too many tasks")
	assert.Equal(t, "1", rec.Header().Get("Retry-After"))

	rec = post(t, f.h, legacyRequest("tools/call", `"name":"slow","arguments":{},"task":{"ttl":60000}`), "MCP-Protocol-Version", "2025-11-25")
	require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
	res = callResult(t, rec)
	assert.True(t, res.IsError, rec.Body.String())
	assert.Contains(t, res.Text(), "Too many tasks")
	select {
	case err := <-f.ended:
		t.Fatalf("a task ended: %v", err)
	default:
	}
}

// bodyHook admits a request only when its body is a JSON-RPC message, as a
// hook checking a signature over the body would, and names the caller
// alice; it reads the body without giving it back.
func bodyHook(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		if !strings.Contains(string(body), `"jsonrpc"`) {
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		next.ServeHTTP(w, r.WithContext(toolexec.ContextWithIdentity(r.Context(), "alice")))
	})
}

func TestATaskIsItsOwnersUnderAHookThatReadsTheBody(t *testing.T) {
	// Reading, waiting for or cancelling a task runs the hook more than
	// once on one request (to admit it, then as for a call of the task's
	// tool): each run reads the body from its start.
	f := newTaskFixture(t, toolexec.WithAuthHook(bodyHook))
	defer close(f.release)
	_, id := f.legacyCreated(t)

	r := f.legacy(t, "tasks/get", fmt.Sprintf(`"taskId":%q`, id))
	require.Nil(t, r.Error, "the owner reads her task")
	r = f.legacy(t, "tasks/cancel", fmt.Sprintf(`"taskId":%q`, id))
	require.Nil(t, r.Error, "and cancels it")
	var got map[string]any
	require.NoError(t, json.Unmarshal(r.Result, &got))
	assert.Equal(t, "cancelled", got["status"])

	// 2026-07-28's tasks/get too.
	id = f.created(t, "slow")
	assert.Equal(t, "working", f.get(t, id)["status"])
}
