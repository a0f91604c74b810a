package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// countTo counts to its argument one row at a time: a query that runs as
// long as its argument asks (1e15 is days).
const countTo = `WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < ?) SELECT count(*) AS n FROM c`

// forever is an argument of countTo that never ends in a test's life.
const forever = `{"n": 1000000000000000}`

// taskTools is a tools file whose tools run as tasks: count (optional,
// one call at a time, a 10-minute timeout), must (required, one at a
// time), plain (no taskSupport), all counting with countTo, and wait (an
// http tool, optional) calling upstream's /wait. The toolset reports has
// count.
func taskTools(upstream string) string {
	return fmt.Sprintf(`
sources:
  db: {kind: sqlite, database: shop.db, init: schema.sql}
  up: {kind: http, baseUrl: %[1]s}
tools:
  count:
    kind: sqlite-sql
    source: db
    description: Counts to n.
    parameters: [{name: n, type: integer, description: How far.}]
    statement: %[2]s
    taskSupport: optional
    maxConcurrency: 1
    timeout: 10m
  must:
    kind: sqlite-sql
    source: db
    description: Counts to n, as a task only.
    parameters: [{name: n, type: integer, description: How far.}]
    statement: %[2]s
    taskSupport: required
    maxConcurrency: 1
    timeout: 10m
  plain:
    kind: sqlite-sql
    source: db
    description: Counts to n, holding the request.
    parameters: [{name: n, type: integer, description: How far.}]
    statement: %[2]s
  wait:
    kind: http
    source: up
    description: Waits for the upstream.
    method: GET
    path: /wait
    taskSupport: optional
toolsets:
  reports: [count]
`, upstream, countTo)
}

// taskClient bounds each request of these tests, so that a call that
// should have become a task, and instead holds its request for a query
// of days, fails the test rather than hanging it.
var taskClient = &http.Client{Timeout: 30 * time.Second}

// taskAuth is the static token's header of the servers startTaskServer
// starts.
var taskAuth = []string{"Authorization", "Bearer tok"}

// startTaskServer serves taskTools with the static token tok, and extra
// flags; its http tool calls upstream.
func startTaskServer(t *testing.T, upstream string, flags ...string) string {
	t.Helper()
	if upstream == "" {
		upstream = "http://127.0.0.1:1"
	}
	base, _ := startServerWith(t, t.TempDir(), taskTools(upstream), map[string]string{"TOOLEXEC_TOKEN": "tok"}, flags...)
	return base
}

// restTask is a task as the REST surface shows it.
type restTask struct {
	TaskID        string `json:"taskId"`
	Tool          string `json:"tool"`
	Status        string `json:"status"`
	StatusMessage string `json:"statusMessage"`
	ResultStatus  int    `json:"resultStatus"`
	Result        *struct {
		IsError bool `json:"isError"`
		Content []struct {
			Text string `json:"text"`
		} `json:"content"`
		StructuredContent json.RawMessage `json:"structuredContent"`
	} `json:"result"`
}

// do sends method url with body (when set) and headers, and returns the
// response and its body.
func do(t *testing.T, c *http.Client, method, url, body string, headers ...string) (*http.Response, []byte) {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	require.NoError(t, err)
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	resp, err := c.Do(req)
	require.NoError(t, err, "%s %s", method, url)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return resp, b
}

// callAsync calls tool over REST on route (the server's base URL, or a
// toolset's /toolsets/NAME) asking for a task at once: Prefer:
// respond-async, wait=0.
func callAsync(t *testing.T, route, tool, args string, headers ...string) (*http.Response, []byte) {
	t.Helper()
	return do(t, taskClient, http.MethodPost, route+"/api/tools/"+tool+"/call", args,
		append([]string{"Prefer", "respond-async, wait=0"}, headers...)...)
}

// createTask calls tool on route as callAsync does, requires a task, and
// returns its URL (the Location, resolved against the call's URL).
func createTask(t *testing.T, route, tool, args string, headers ...string) string {
	t.Helper()
	resp, body := callAsync(t, route, tool, args, headers...)
	require.Equal(t, http.StatusAccepted, resp.StatusCode, "a task: %s", body)
	assert.Equal(t, "respond-async", resp.Header.Get("Preference-Applied"))
	var task restTask
	require.NoError(t, json.Unmarshal(body, &task), string(body))
	assert.Equal(t, tool, task.Tool)
	assert.Equal(t, "working", task.Status)
	call, err := url.Parse(route + "/api/tools/" + tool + "/call")
	require.NoError(t, err)
	loc, err := url.Parse(resp.Header.Get("Location"))
	require.NoError(t, err)
	u := call.ResolveReference(loc).String()
	assert.Equal(t, route+"/api/tasks/"+task.TaskID, u, "the Location names the task on the route that created it")
	return u
}

// taskAt sends method (GET or DELETE) to a task's URL and returns the
// status and the task.
func taskAt(t *testing.T, method, u string, headers ...string) (int, restTask) {
	t.Helper()
	resp, body := do(t, taskClient, method, u, "", headers...)
	var task restTask
	if resp.StatusCode == http.StatusOK {
		require.NoError(t, json.Unmarshal(body, &task), string(body))
	}
	return resp.StatusCode, task
}

// pollTask reads the task at u until its status is status; it fails at
// once when the task ends otherwise.
func pollTask(t *testing.T, u, status string, headers ...string) restTask {
	t.Helper()
	terminal := map[string]bool{"completed": true, "failed": true, "cancelled": true}
	deadline := time.Now().Add(60 * time.Second)
	for {
		code, task := taskAt(t, http.MethodGet, u, headers...)
		require.Equal(t, http.StatusOK, code)
		if task.Status == status {
			return task
		}
		require.False(t, terminal[task.Status], "want %s, the task ended: %+v", status, task)
		require.True(t, time.Now().Before(deadline), "the task never became %s: %+v", status, task)
		time.Sleep(20 * time.Millisecond)
	}
}

// counted is what count, must and plain answer for n.
func counted(n int) string {
	return fmt.Sprintf(`{"rows":[{"n":%d}],"rowCount":1,"truncated":false}`, n)
}

// assertCounted checks that body, a REST call's result, is what count
// answers for n.
func assertCounted(t *testing.T, body []byte, n int) {
	t.Helper()
	var res struct {
		StructuredContent json.RawMessage `json:"structuredContent"`
	}
	require.NoError(t, json.Unmarshal(body, &res), string(body))
	assert.JSONEq(t, counted(n), string(res.StructuredContent))
}

// A tool with taskSupport: optional runs as a task for a REST caller that
// sends Prefer: respond-async: 202, a Location to poll, and at last the
// result the query answers. Without the header it answers as any call;
// a tool without taskSupport never becomes a task.
func TestServe_TaskOptionalSQLToolOverREST(t *testing.T) {
	base := startTaskServer(t, "")

	u := createTask(t, base, "count", `{"n": 50000}`, taskAuth...)
	done := pollTask(t, u, "completed", taskAuth...)
	assert.Equal(t, http.StatusOK, done.ResultStatus)
	require.NotNil(t, done.Result)
	assert.False(t, done.Result.IsError)
	assert.JSONEq(t, counted(50000), string(done.Result.StructuredContent))
	assert.Equal(t, `{"n":50000}`, done.Result.Content[0].Text)

	resp, body := do(t, taskClient, http.MethodPost, base+"/api/tools/count/call", `{"n": 5}`, taskAuth...)
	require.Equal(t, http.StatusOK, resp.StatusCode, "without Prefer: respond-async, an ordinary call: %s", body)
	assertCounted(t, body, 5)

	resp, body = callAsync(t, base, "plain", `{"n": 50000}`, taskAuth...)
	require.Equal(t, http.StatusOK, resp.StatusCode, "no taskSupport: never a task: %s", body)
	assert.Empty(t, resp.Header.Get("Preference-Applied"))
	assertCounted(t, body, 50000)
}

// Cancelling a SQL tool's task (DELETE on REST) cancels its query: the
// task ends cancelled, and the query no longer runs, so the tool's one
// slot (maxConcurrency: 1) serves the next call at once; with the query
// still running, that call would wait for the slot until its 10-minute
// timeout.
func TestServe_CancellingASQLTaskStopsItsQuery(t *testing.T) {
	base := startTaskServer(t, "")
	u := createTask(t, base, "count", forever, taskAuth...)
	pollTask(t, u, "working", taskAuth...)
	time.Sleep(100 * time.Millisecond) // let the query get going (it runs for days)

	code, task := taskAt(t, http.MethodDelete, u, taskAuth...)
	require.Equal(t, http.StatusOK, code)
	assert.Equal(t, "cancelled", task.Status)
	assert.Equal(t, "The task was cancelled.", task.StatusMessage)
	assert.Nil(t, task.Result)

	resp, body := do(t, taskClient, http.MethodPost, base+"/api/tools/count/call", `{"n": 3}`, taskAuth...)
	require.Equal(t, http.StatusOK, resp.StatusCode, string(body))
	assertCounted(t, body, 3)

	code, task = taskAt(t, http.MethodGet, u, taskAuth...)
	require.Equal(t, http.StatusOK, code)
	assert.Equal(t, "cancelled", task.Status, "a cancelled task stays cancelled")
}

// Cancelling an http tool's task cancels its request: the upstream sees
// it go.
func TestServe_CancellingAnHTTPTaskCancelsItsRequest(t *testing.T) {
	arrived, gone := make(chan struct{}, 1), make(chan struct{}, 1)
	up := httptest.NewServer(http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) {
		arrived <- struct{}{}
		<-r.Context().Done()
		gone <- struct{}{}
	}))
	defer up.Close()
	base := startTaskServer(t, up.URL)

	u := createTask(t, base, "wait", `{}`, taskAuth...)
	<-arrived
	code, task := taskAt(t, http.MethodDelete, u, taskAuth...)
	require.Equal(t, http.StatusOK, code)
	assert.Equal(t, "cancelled", task.Status)
	select {
	case <-gone:
	case <-time.After(30 * time.Second):
		t.Fatal("the upstream's request ran on after its task was cancelled")
	}
}

// Every route of one server keeps its tasks in one store: a task created
// on /api is read and cancelled on a toolset's routes, and one created
// there is read on /api.
func TestServe_ATaskIsFoundOnEveryRouteOfTheServer(t *testing.T) {
	base := startTaskServer(t, "")
	set := base + "/toolsets/reports"

	u := createTask(t, base, "count", forever, taskAuth...)
	id := path.Base(u)
	onSet := set + "/api/tasks/" + id
	code, task := taskAt(t, http.MethodGet, onSet, taskAuth...)
	require.Equal(t, http.StatusOK, code, "the toolset's route finds the task /api created")
	assert.Equal(t, "working", task.Status)
	code, task = taskAt(t, http.MethodDelete, onSet, taskAuth...)
	require.Equal(t, http.StatusOK, code)
	assert.Equal(t, "cancelled", task.Status)
	_, task = taskAt(t, http.MethodGet, u, taskAuth...)
	assert.Equal(t, "cancelled", task.Status, "cancelled on the toolset's route, seen on /api")

	u = createTask(t, set, "count", `{"n": 50000}`, taskAuth...)
	done := pollTask(t, base+"/api/tasks/"+path.Base(u), "completed", taskAuth...)
	assert.JSONEq(t, counted(50000), string(done.Result.StructuredContent))
}

// A task is its creator's: another OAuth subject can neither read nor
// cancel it, and learns nothing of it (404, as for a task that does not
// exist).
func TestServe_AnotherCallerCannotSeeATask(t *testing.T) {
	is := newIssuer(t, "openid")
	const res = "https://tools.example.com"
	base, _ := startServerWith(t, t.TempDir(), taskTools("http://127.0.0.1:1"), nil,
		"--oauth-issuer", is.srv.URL, "--oauth-resource", res+"/")
	alice := []string{"Authorization", "Bearer " + is.token(t, res+"/api", "scope", "openid")}
	bob := []string{"Authorization", "Bearer " + is.token(t, res+"/api", "scope", "openid", "sub", "bob")}

	u := createTask(t, base, "count", forever, alice...)
	unknown := base + "/api/tasks/" + strings.Repeat("0", 32)
	for _, method := range []string{http.MethodGet, http.MethodDelete} {
		code, _ := taskAt(t, method, u, bob...)
		assert.Equal(t, http.StatusNotFound, code, "bob's %s", method)
		code, _ = taskAt(t, method, unknown, alice...)
		assert.Equal(t, http.StatusNotFound, code, "what a task that does not exist answers")
	}
	code, _ := taskAt(t, http.MethodGet, u)
	assert.Equal(t, http.StatusUnauthorized, code, "no token")

	code, task := taskAt(t, http.MethodGet, u, alice...)
	require.Equal(t, http.StatusOK, code)
	assert.Equal(t, "working", task.Status, "bob's DELETE changed nothing")
	code, task = taskAt(t, http.MethodDelete, u, alice...)
	require.Equal(t, http.StatusOK, code)
	assert.Equal(t, "cancelled", task.Status)
}

// The _meta of a 2026-07-28 request whose client declares the tasks
// extension, and of one that does not.
const (
	metaTasks   = `{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"extensions":{"io.modelcontextprotocol/tasks":{}}}}`
	metaNoTasks = `{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}`
)

// mcp2026 sends a 2026-07-28 request of method (name: its Mcp-Name) with
// params and _meta meta to /mcp, and returns the HTTP status and the
// JSON-RPC answer.
func mcp2026(t *testing.T, base, method, name, params, meta string) (int, map[string]any) {
	t.Helper()
	body := fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":%q,"params":{%s,"_meta":%s}}`, method, params, meta)
	resp, b := exchange(t, taskClient, base+"/mcp", body, append([]string{
		"MCP-Protocol-Version", "2026-07-28", "Mcp-Method", method, "Mcp-Name", name}, taskAuth...)...)
	var m map[string]any
	require.NoError(t, json.Unmarshal(b, &m), string(b))
	return resp.StatusCode, m
}

// A tool with taskSupport: required, called over MCP 2026-07-28: by a
// client that did not declare the tasks extension, refused with the
// extension's error; by one that did, a task, read with tasks/get until
// it completes with the query's result.
func TestServe_TaskRequiredToolOverMCP(t *testing.T) {
	base := startTaskServer(t, "")
	call := func(n, meta string) (int, map[string]any) {
		return mcp2026(t, base, "tools/call", "must", `"name":"must","arguments":{"n":`+n+`}`, meta)
	}

	code, m := call("5", metaNoTasks)
	require.Equal(t, http.StatusBadRequest, code, "%v", m)
	e, _ := m["error"].(map[string]any)
	require.NotNil(t, e, "%v", m)
	assert.EqualValues(t, -32021, e["code"])
	data, err := json.Marshal(e["data"])
	require.NoError(t, err)
	assert.JSONEq(t, `{"requiredCapabilities":{"extensions":{"io.modelcontextprotocol/tasks":{}}}}`, string(data))

	// must takes one call at a time: a REST task holds its slot, so the
	// MCP call waits past the wait and becomes a task, whatever the
	// machine's speed; cancelling the first lets it run.
	first := createTask(t, base, "must", forever, taskAuth...)
	code, m = call("50000", metaTasks)
	require.Equal(t, http.StatusOK, code, "%v", m)
	created, _ := m["result"].(map[string]any)
	require.NotNil(t, created, "%v", m)
	assert.Equal(t, "task", created["resultType"])
	assert.Equal(t, "working", created["status"])
	id, _ := created["taskId"].(string)
	require.Regexp(t, `^[0-9a-f]{32}$`, id)

	code, _ = taskAt(t, http.MethodDelete, first, taskAuth...)
	require.Equal(t, http.StatusOK, code)
	var got map[string]any
	for deadline := time.Now().Add(60 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		code, m := mcp2026(t, base, "tasks/get", id, `"taskId":"`+id+`"`, metaTasks)
		require.Equal(t, http.StatusOK, code, "%v", m)
		got, _ = m["result"].(map[string]any)
		require.NotNil(t, got, "%v", m)
		if got["status"] == "completed" {
			break
		}
		require.Equal(t, "working", got["status"], "%v", got)
		require.True(t, time.Now().Before(deadline), "the task never completed: %v", got)
	}
	result, _ := got["result"].(map[string]any)
	require.NotNil(t, result, "%v", got)
	assert.Equal(t, false, result["isError"])
	sc, err := json.Marshal(result["structuredContent"])
	require.NoError(t, err)
	assert.JSONEq(t, counted(50000), string(sc))

	// REST says what to send.
	resp, body := do(t, taskClient, http.MethodPost, base+"/api/tools/must/call", `{"n": 5}`, taskAuth...)
	assert.Equal(t, http.StatusBadRequest, resp.StatusCode)
	assert.Contains(t, string(body), "Tool must runs only as a task")
	assert.Contains(t, string(body), "Send Prefer: respond-async.")
}

// The call's timeout bounds a task's run: the tool's own timeout, else
// --timeout. A task that runs past it completes with the timeout as a
// tool error (REST: resultStatus 500, an isError result), and its query
// is stopped (the tool's one slot serves the next call).
func TestServe_TimeoutsBoundATasksRun(t *testing.T) {
	tools := fmt.Sprintf(`
sources:
  db: {kind: sqlite, database: shop.db, init: schema.sql}
tools:
  brief:
    kind: sqlite-sql
    source: db
    description: Counts to n, for 300ms at most.
    parameters: [{name: n, type: integer, description: How far.}]
    statement: %[1]s
    taskSupport: optional
    maxConcurrency: 1
    timeout: 300ms
  bounded:
    kind: sqlite-sql
    source: db
    description: Counts to n, for --timeout at most.
    parameters: [{name: n, type: integer, description: How far.}]
    statement: %[1]s
    taskSupport: optional
    maxConcurrency: 1
`, countTo)
	base, _ := startServerWith(t, t.TempDir(), tools, map[string]string{"TOOLEXEC_TOKEN": "tok"}, "--timeout", "700ms")
	for tool, after := range map[string]string{"brief": "300ms", "bounded": "700ms"} {
		u := createTask(t, base, tool, forever, taskAuth...)
		done := pollTask(t, u, "completed", taskAuth...)
		assert.Equal(t, http.StatusInternalServerError, done.ResultStatus, tool)
		require.NotNil(t, done.Result, tool)
		assert.True(t, done.Result.IsError, tool)
		require.NotEmpty(t, done.Result.Content, tool)
		assert.Equal(t, "Tool "+tool+" timed out after "+after, done.Result.Content[0].Text)

		resp, body := do(t, taskClient, http.MethodPost, base+"/api/tools/"+tool+"/call", `{"n": 3}`, taskAuth...)
		require.Equal(t, http.StatusOK, resp.StatusCode, "%s: the timed-out query gave its slot back: %s", tool, body)
	}
}

// validate reports a bad taskSupport at its value.
func TestValidate_ReportsABadTaskSupportAtItsValue(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "tools.yaml")
	tools := strings.Replace(taskTools("http://127.0.0.1:1"), "taskSupport: required", "taskSupport: always", 1)
	require.NoError(t, os.WriteFile(path, []byte(tools), 0o600))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "schema.sql"), []byte(e2eSchema), 0o600))
	var out, errOut bytes.Buffer
	code := validate([]string{"--config", path}, func(string) (string, bool) { return "", false }, &out, &errOut)
	assert.Equal(t, 1, code)
	assert.Contains(t, errOut.String(), path+`:21:18: tool "must" taskSupport must be optional, required or forbidden, not "always"`)
}

// serve stops without waiting for the tasks still running: their calls
// are cancelled once the HTTP server has stopped (a SQL task's query
// would otherwise run to its timeout, 10 minutes here, and the sources
// only close when it has), and serve exits 0.
func TestServe_StopsWithoutWaitingForRunningTasks(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "tools.yaml"), []byte(taskTools("http://127.0.0.1:1")), 0o600))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "schema.sql"), []byte(e2eSchema), 0o600))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ready, done := make(chan net.Addr, 1), make(chan int, 1)
	var out, errOut bytes.Buffer
	getenv := func(k string) (string, bool) {
		if k == "TOOLEXEC_TOKEN" {
			return "tok", true
		}
		return "", false
	}
	go func() {
		done <- serve(ctx, []string{"--config", filepath.Join(dir, "tools.yaml"), "--addr", "127.0.0.1:0"}, getenv, nil, &out, &errOut, ready)
	}()
	var base string
	select {
	case addr := <-ready:
		base = "http://" + addr.String()
	case code := <-done:
		t.Fatalf("serve exited %d: %s", code, errOut.String())
	}

	u := createTask(t, base, "count", forever, taskAuth...)
	pollTask(t, u, "working", taskAuth...)
	cancel()
	select {
	case code := <-done:
		assert.Equal(t, 0, code, errOut.String())
	case <-time.After(60 * time.Second):
		t.Fatal("serve waited for the running task")
	}
}

// toolbox's native API has no tasks: a tool that may run as one answers
// as any call there, even to a caller that sends Prefer: respond-async,
// and a tool that runs only as a task is refused, saying where to call it.
func TestServe_ToolboxNativeAPIRunsNoTasks(t *testing.T) {
	base := startTaskServer(t, "")
	resp, body := do(t, taskClient, http.MethodPost, base+"/api/tool/count/invoke", `{"n": 50000}`,
		append([]string{"Prefer", "respond-async, wait=0"}, taskAuth...)...)
	require.Equal(t, http.StatusOK, resp.StatusCode, string(body))
	assert.JSONEq(t, `{"result":"[{\"n\":50000}]"}`, string(body))

	resp, body = do(t, taskClient, http.MethodPost, base+"/api/tool/must/invoke", `{"n": 5}`, taskAuth...)
	require.Equal(t, http.StatusBadRequest, resp.StatusCode, string(body))
	assert.JSONEq(t, `{"status":"Bad Request","error":"Tool must runs only as a task: call it at /api/tools/must/call with Prefer: respond-async, or over MCP with the tasks extension."}`, string(body))
}

// MCP 2025-11-25 clients read a tool's taskSupport in tools/list, as its
// execution.taskSupport; a tool without it says nothing (forbidden).
func TestServe_MCPListsTheTaskSupportOfEachTool(t *testing.T) {
	base := startTaskServer(t, "")
	resp, body := exchange(t, taskClient, base+"/mcp", `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`,
		append([]string{"MCP-Protocol-Version", "2025-11-25"}, taskAuth...)...)
	require.Equal(t, http.StatusOK, resp.StatusCode, string(body))
	var m struct {
		Result struct {
			Tools []struct {
				Name      string         `json:"name"`
				Execution map[string]any `json:"execution"`
			} `json:"tools"`
		} `json:"result"`
	}
	require.NoError(t, json.Unmarshal(body, &m), string(body))
	got := map[string]any{}
	for _, tl := range m.Result.Tools {
		got[tl.Name] = tl.Execution["taskSupport"]
	}
	assert.Equal(t, map[string]any{"count": "optional", "must": "required", "plain": nil, "wait": "optional"}, got)
}

// A task keeps its result encoded, at most 512 KiB: a SQL task tool's
// default byte cap (128 KiB, not 1 MiB) keeps its rows within it, so the
// task completes with its rows cut at the cap rather than failing for
// their size; a cap the file sets is the file's, and a result past what
// a task keeps fails the task, saying so.
func TestServe_ATaskToolsRowsFitWhatATaskKeeps(t *testing.T) {
	// 1000 rows of 200 double quotes each: about 400 KiB of rows, three
	// times that encoded.
	const quotes = `WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 1000) SELECT x AS id, replace(hex(zeroblob(100)), '0', '"') AS q FROM c`
	tools := fmt.Sprintf(`
sources:
  db: {kind: sqlite, database: shop.db, init: schema.sql}
tools:
  report: {kind: sqlite-sql, source: db, description: Many rows., statement: %[1]q, taskSupport: optional}
  capped: {kind: sqlite-sql, source: db, description: Many rows., statement: %[1]q, taskSupport: optional, maxBytes: 1048576}
`, quotes)
	base, _ := startServerWith(t, t.TempDir(), tools, map[string]string{"TOOLEXEC_TOKEN": "tok"})

	done := pollTask(t, createTask(t, base, "report", `{}`, taskAuth...), "completed", taskAuth...)
	require.NotNil(t, done.Result)
	var sc struct {
		RowCount  int    `json:"rowCount"`
		Truncated bool   `json:"truncated"`
		Message   string `json:"message"`
	}
	require.NoError(t, json.Unmarshal(done.Result.StructuredContent, &sc))
	assert.True(t, sc.Truncated)
	assert.Positive(t, sc.RowCount)
	assert.Contains(t, sc.Message, "the rows exceed 131072 bytes")

	failed := pollTask(t, createTask(t, base, "capped", `{}`, taskAuth...), "failed", taskAuth...)
	assert.Contains(t, failed.StatusMessage, "the task's result is too large to keep")
}
