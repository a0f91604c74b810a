package toolexec_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolexec/toolexec"
)

// taskTool is a tool that may run as a task.
func taskTool(name string) toolexec.Tool {
	return toolexec.Tool{Name: name, Options: toolexec.ToolOptions{TaskSupport: toolexec.TaskSupportOptional}}
}

// callerRequest is a request from the caller bearer (identityHook names it
// by its token); "" is an anonymous caller.
func callerRequest(bearer string) *http.Request {
	r := httptest.NewRequest(http.MethodPost, "/tools/t/call", nil)
	if bearer != "" {
		r.Header.Set("Authorization", "Bearer "+bearer)
	}
	return r
}

// authed is r as the Executor's auth hook passes it on.
func authed(t *testing.T, x *toolexec.Executor, r *http.Request) *http.Request {
	t.Helper()
	passed, err := x.SurfaceKit().Authenticate(r)
	require.NoError(t, err)
	return passed
}

// callTask runs name as a call that may become a task, from r.
func callTask(x *toolexec.Executor, r *http.Request, name, args string, tc toolexec.TaskCall) (*toolexec.CallToolResult, *toolexec.Task, error) {
	return x.SurfaceKit().CallTask(r.Context(), toolexec.CallRequest{Name: name, Arguments: json.RawMessage(args),
		Request: r, Surface: toolexec.SurfaceREST}, tc)
}

// waitTask polls the task until its status is one of want, and returns it.
func waitTask(t *testing.T, x *toolexec.Executor, r *http.Request, id string, want ...toolexec.TaskStatus) *toolexec.Task {
	t.Helper()
	var got *toolexec.Task
	require.Eventually(t, func() bool {
		var err error
		got, err = x.SurfaceKit().Task(authed(t, x, r), id)
		require.NoError(t, err)
		for _, s := range want {
			if got.Status == s {
				return true
			}
		}
		return false
	}, 10*time.Second, 5*time.Millisecond, "task %s never reached %v", id, want)
	return got
}

// becomes returns a handler that makes its call a task, then answers text.
func becomes(text string) handlerFunc {
	return func(ctx context.Context, _ string, _ map[string]any) ([]toolexec.Content, bool, string, error) {
		toolexec.BecomeTask(ctx)
		return []toolexec.Content{toolexec.Text(text)}, false, "", nil
	}
}

// blockUntil returns a handler that reports its start on started, then
// waits for release (answering "released") or for its context to end.
func blockUntil(started chan<- struct{}, release <-chan struct{}, ended chan<- error) handlerFunc {
	return func(ctx context.Context, _ string, _ map[string]any) ([]toolexec.Content, bool, string, error) {
		started <- struct{}{}
		select {
		case <-release:
			return []toolexec.Content{toolexec.Text("released")}, false, "", nil
		case <-ctx.Done():
			if ended != nil {
				ended <- ctx.Err()
			}
			return nil, false, "", ctx.Err()
		}
	}
}

func TestTaskFastCallIsAnsweredAsAnOrdinaryCall(t *testing.T) {
	x := newExec(t, taskTool("t"), textHandler("quick"), toolexec.WithTasks(toolexec.TaskSettings{Wait: time.Hour}))
	res, task, err := callTask(x, callerRequest(""), "t", `{}`, toolexec.TaskCall{})
	require.NoError(t, err)
	assert.Nil(t, task, "a call that ends within the wait is no task")
	assert.Equal(t, "quick", res.Text())
}

func TestTaskForbiddenToolNeverBecomesATask(t *testing.T) {
	release := make(chan struct{})
	started := make(chan struct{}, 1)
	x := newExec(t, toolexec.Tool{Name: "t"}, blockUntil(started, release, nil), toolexec.WithTasks(toolexec.TaskSettings{Wait: -1}))
	done := make(chan *toolexec.Task, 1)
	go func() {
		_, task, _ := callTask(x, callerRequest(""), "t", `{}`, toolexec.TaskCall{})
		done <- task
	}()
	<-started
	close(release)
	assert.Nil(t, <-done, "a tool without TaskSupport runs as an ordinary call whatever the wait")
}

func TestTaskSlowCallBecomesATaskAndCompletes(t *testing.T) {
	release := make(chan struct{})
	started := make(chan struct{}, 1)
	x := newExec(t, taskTool("t"), blockUntil(started, release, nil),
		toolexec.WithAuthHook(identityHook), toolexec.WithTasks(toolexec.TaskSettings{Wait: -1, PollInterval: 3 * time.Second}))
	r := callerRequest("alice")
	res, task, err := callTask(x, r, "t", `{}`, toolexec.TaskCall{})
	require.NoError(t, err)
	require.Nil(t, res)
	require.NotNil(t, task)
	<-started
	assert.Len(t, task.ID, 32, "128 random bits, hex")
	assert.Equal(t, toolexec.TaskStatusWorking, task.Status)
	assert.Equal(t, "t", task.Tool)
	assert.Equal(t, 3*time.Second, task.PollInterval)
	assert.Equal(t, toolexec.DefaultTaskTTL, task.TTL())

	// The task is there at once, and working.
	got, err := x.SurfaceKit().Task(authed(t, x, r), task.ID)
	require.NoError(t, err)
	assert.Equal(t, toolexec.TaskStatusWorking, got.Status)

	close(release)
	done := waitTask(t, x, r, task.ID, toolexec.TaskStatusCompleted)
	require.NotNil(t, done.Result)
	assert.Equal(t, "released", done.Result.Text())
	assert.Nil(t, done.Err)
	assert.False(t, done.UpdatedAt.Before(done.CreatedAt))
}

func TestTaskIDsAreUnguessable(t *testing.T) {
	x := newExec(t, taskTool("t"), becomes("ok"))
	seen := map[string]bool{}
	for range 50 {
		_, task, err := x.SurfaceKit().CallTask(context.Background(), toolexec.CallRequest{Name: "t", Surface: toolexec.SurfaceREST}, toolexec.TaskCall{})
		require.NoError(t, err)
		require.NotNil(t, task)
		require.Regexp(t, `^[0-9a-f]{32}$`, task.ID)
		require.False(t, seen[task.ID])
		seen[task.ID] = true
	}
}

func TestTaskCancelledMidRunCancelsItsHandler(t *testing.T) {
	started := make(chan struct{}, 1)
	ended := make(chan error, 1)
	x := newExec(t, taskTool("t"), blockUntil(started, nil, ended),
		toolexec.WithAuthHook(identityHook), toolexec.WithTasks(toolexec.TaskSettings{Wait: -1}))
	r := callerRequest("alice")
	_, task, err := callTask(x, r, "t", `{}`, toolexec.TaskCall{})
	require.NoError(t, err)
	require.NotNil(t, task)
	<-started

	cancelled, err := x.SurfaceKit().CancelTask(authed(t, x, r), task.ID)
	require.NoError(t, err)
	assert.Equal(t, toolexec.TaskStatusCanceled, cancelled.Status, "cancelled at once")

	select {
	case err := <-ended:
		assert.ErrorIs(t, err, context.Canceled, "the handler's context is cancelled")
	case <-time.After(10 * time.Second):
		t.Fatal("the handler's context was never cancelled")
	}
	// The call's end does not overwrite the cancellation.
	time.Sleep(50 * time.Millisecond)
	got := waitTask(t, x, r, task.ID, toolexec.TaskStatusCanceled)
	assert.Nil(t, got.Result)

	// Cancelling an ended task leaves it as it is.
	again, err := x.SurfaceKit().CancelTask(authed(t, x, r), task.ID)
	require.NoError(t, err)
	assert.Equal(t, toolexec.TaskStatusCanceled, again.Status)
}

func TestTaskOfAnotherCallerDoesNotExistForThem(t *testing.T) {
	started := make(chan struct{}, 1)
	release := make(chan struct{})
	defer close(release)
	x := newExec(t, taskTool("t"), blockUntil(started, release, nil),
		toolexec.WithAuthHook(identityHook), toolexec.WithTasks(toolexec.TaskSettings{Wait: -1}))
	_, task, err := callTask(x, callerRequest("alice"), "t", `{}`, toolexec.TaskCall{})
	require.NoError(t, err)
	require.NotNil(t, task)
	<-started

	kit := x.SurfaceKit()
	for _, who := range []string{"mallory", ""} {
		r := authed(t, x, callerRequest(who))
		_, err := kit.Task(r, task.ID)
		assert.ErrorIs(t, err, toolexec.ErrTaskNotFound, "read by %q", who)
		assert.ErrorIs(t, kit.UpdateTask(r, task.ID, map[string]json.RawMessage{"k": json.RawMessage(`{}`)}), toolexec.ErrTaskNotFound)
		_, err = kit.CancelTask(r, task.ID)
		assert.ErrorIs(t, err, toolexec.ErrTaskNotFound, "cancelled by %q", who)
		_, err = kit.WatchTask(r, task.ID, func() {})
		assert.ErrorIs(t, err, toolexec.ErrTaskNotFound, "watched by %q", who)
	}
	got, err := kit.Task(authed(t, x, callerRequest("alice")), task.ID)
	require.NoError(t, err)
	assert.Equal(t, toolexec.TaskStatusWorking, got.Status, "nobody else could cancel it")

	// Ids that are not task ids are not looked up at all.
	for _, id := range []string{"", "x", strings.Repeat("A", 32), "../" + task.ID} {
		_, err := kit.Task(authed(t, x, callerRequest("alice")), id)
		assert.ErrorIs(t, err, toolexec.ErrTaskNotFound, "id %q", id)
	}
}

func TestTaskCredentialsOwnATaskWithoutAnIdentity(t *testing.T) {
	x := newExec(t, taskTool("t"), becomes("ok"))
	r := callerRequest("token-1") // no auth hook: the credentials themselves own the task
	_, task, err := callTask(x, r, "t", `{}`, toolexec.TaskCall{})
	require.NoError(t, err)
	require.NotNil(t, task)
	waitTask(t, x, r, task.ID, toolexec.TaskStatusCompleted)
	_, err = x.SurfaceKit().Task(callerRequest("token-2"), task.ID)
	assert.ErrorIs(t, err, toolexec.ErrTaskNotFound)
	_, err = x.SurfaceKit().Task(callerRequest(""), task.ID)
	assert.ErrorIs(t, err, toolexec.ErrTaskNotFound)
}

func TestTaskRunsOnAfterItsCallerWentAway(t *testing.T) {
	started := make(chan struct{}, 1)
	release := make(chan struct{})
	ended := make(chan error, 1)
	x := newExec(t, taskTool("t"), blockUntil(started, release, ended), toolexec.WithTasks(toolexec.TaskSettings{Wait: -1}))
	ctx, cancel := context.WithCancel(context.Background())
	r := callerRequest("").WithContext(ctx)
	_, task, err := callTask(x, r, "t", `{}`, toolexec.TaskCall{})
	require.NoError(t, err)
	require.NotNil(t, task)
	<-started
	cancel() // the client disconnects
	time.Sleep(20 * time.Millisecond)
	close(release)
	got := waitTask(t, x, callerRequest(""), task.ID, toolexec.TaskStatusCompleted)
	assert.Equal(t, "released", got.Result.Text(), "the result waits for the client to come back")
	select {
	case err := <-ended:
		t.Fatalf("the task's handler was cancelled with its caller's request: %v", err)
	default:
	}
}

func TestTaskCallerGoneBeforeItBecameATaskCancelsTheCall(t *testing.T) {
	started := make(chan struct{}, 1)
	ended := make(chan error, 1)
	x := newExec(t, taskTool("t"), blockUntil(started, nil, ended), toolexec.WithTasks(toolexec.TaskSettings{Wait: time.Hour}))
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, task, err := callTask(x, callerRequest("").WithContext(ctx), "t", `{}`, toolexec.TaskCall{})
		assert.Nil(t, task)
		done <- err
	}()
	<-started
	cancel()
	assert.ErrorIs(t, <-ended, context.Canceled, "an ordinary call is cancelled with its request")
	assert.Error(t, <-done)
}

func TestTaskKeptForItsTTLThenDropped(t *testing.T) {
	x := newExec(t, taskTool("t"), becomes("ok"), toolexec.WithTasks(toolexec.TaskSettings{TTL: 300 * time.Millisecond}))
	r := callerRequest("")
	_, task, err := callTask(x, r, "t", `{}`, toolexec.TaskCall{})
	require.NoError(t, err)
	require.NotNil(t, task)
	done := waitTask(t, x, r, task.ID, toolexec.TaskStatusCompleted)
	assert.Equal(t, 300*time.Millisecond, done.ExpiresAt.Sub(done.UpdatedAt), "kept for the TTL from its last change")
	require.Eventually(t, func() bool {
		_, err := x.SurfaceKit().Task(r, task.ID)
		return errors.Is(err, toolexec.ErrTaskNotFound)
	}, 10*time.Second, 20*time.Millisecond, "the task outlived its TTL")
}

func TestTaskFailuresAndErrors(t *testing.T) {
	tests := []struct {
		name    string
		handler handlerFunc
		status  toolexec.TaskStatus
		code    toolexec.Code
	}{
		{"a handler's error completes the task as a tool error", func(ctx context.Context, _ string, _ map[string]any) ([]toolexec.Content, bool, string, error) {
			toolexec.BecomeTask(ctx)
			return nil, false, "", &toolexec.ToolError{Message: "no such row", DeveloperMessage: "table t", CanRetry: true}
		}, toolexec.TaskStatusCompleted, toolexec.CodeToolError},
		{"a panic fails the task", func(ctx context.Context, _ string, _ map[string]any) ([]toolexec.Content, bool, string, error) {
			toolexec.BecomeTask(ctx)
			panic("boom")
		}, toolexec.TaskStatusFailed, toolexec.CodePanic},
		{"a result too large to keep fails the task", func(ctx context.Context, _ string, _ map[string]any) ([]toolexec.Content, bool, string, error) {
			toolexec.BecomeTask(ctx)
			return []toolexec.Content{toolexec.Text(strings.Repeat("x", 2048))}, false, "", nil
		}, toolexec.TaskStatusFailed, toolexec.CodeInternal},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			x := newExec(t, taskTool("t"), tt.handler, toolexec.WithTasks(toolexec.TaskSettings{Wait: time.Hour, MaxResultBytes: 1024}),
				toolexec.WithLogger(slog.New(slog.DiscardHandler)))
			r := callerRequest("")
			_, task, err := callTask(x, r, "t", `{}`, toolexec.TaskCall{})
			require.NoError(t, err)
			require.NotNil(t, task, "BecomeTask made it a task")
			got := waitTask(t, x, r, task.ID, tt.status)
			require.NotNil(t, got.Err)
			assert.Equal(t, tt.code, got.Err.Code)
			assert.Nil(t, got.Result)
			assert.NotEmpty(t, got.StatusMessage)
			if tt.code == toolexec.CodeToolError {
				var te *toolexec.ToolError
				require.ErrorAs(t, got.Err, &te, "what a ToolError said is kept")
				assert.Equal(t, "table t", te.DeveloperMessage)
				assert.True(t, te.CanRetry)
			}
		})
	}
}

// answerInput is a TaskInputCodec whose requests and answers are the JSON of
// the Go values.
type answerInput struct{}

func (answerInput) InputSupported(kind toolexec.InputKind) bool {
	return kind == toolexec.InputKindElicitForm
}

func (answerInput) EncodeInputRequest(req *toolexec.InputRequest) (json.RawMessage, error) {
	return json.Marshal(req.Elicit)
}

func (answerInput) DecodeInputResponse(_ toolexec.InputKind, raw json.RawMessage) (toolexec.InputResponse, error) {
	var r toolexec.ElicitResult
	if err := json.Unmarshal(raw, &r); err != nil {
		return toolexec.InputResponse{}, err
	}
	return toolexec.InputResponse{Elicit: &r}, nil
}

func TestTaskAsksItsCallerForInput(t *testing.T) {
	x := newExec(t, taskTool("t"), func(ctx context.Context, _ string, _ map[string]any) ([]toolexec.Content, bool, string, error) {
		if !toolexec.BecomeTask(ctx) {
			return nil, false, "", errors.New("not a task")
		}
		if toolexec.InputSupported(ctx, toolexec.InputKindSampling) {
			return nil, false, "", errors.New("sampling was not declared")
		}
		res, err := toolexec.Elicit(ctx, "name", toolexec.ElicitRequest{Message: "Your name?"})
		if err != nil {
			return nil, false, "", err
		}
		again, err := toolexec.Elicit(ctx, "name", toolexec.ElicitRequest{Message: "Really?"})
		if err != nil {
			return nil, false, "", err
		}
		return []toolexec.Content{toolexec.Text(fmt.Sprintf("%v/%s", res.Content["name"], again.Action))}, false, "", nil
	}, toolexec.WithAuthHook(identityHook), toolexec.WithTasks(toolexec.TaskSettings{Wait: time.Hour}))
	r := callerRequest("alice")
	_, task, err := callTask(x, r, "t", `{}`, toolexec.TaskCall{Input: answerInput{}})
	require.NoError(t, err)
	require.NotNil(t, task)
	kit := x.SurfaceKit()

	asked := waitTask(t, x, r, task.ID, toolexec.TaskStatusInputRequired)
	require.Len(t, asked.InputRequests, 1)
	assert.Equal(t, "name", asked.InputRequests[0].Key)
	assert.JSONEq(t, `{"message":"Your name?"}`, string(asked.InputRequests[0].Request))

	// Keys it does not wait for are ignored; the answer moves it on.
	require.NoError(t, kit.UpdateTask(authed(t, x, r), task.ID, map[string]json.RawMessage{"other": json.RawMessage(`{}`)}))
	require.NoError(t, kit.UpdateTask(authed(t, x, r), task.ID, map[string]json.RawMessage{
		"name": json.RawMessage(`{"action":"accept","content":{"name":"Ada"}}`)}))

	// The second question reuses the handler's key: the task names it anew.
	second := waitTask(t, x, r, task.ID, toolexec.TaskStatusInputRequired)
	for second.InputRequests[0].Key == "name" {
		second = waitTask(t, x, r, task.ID, toolexec.TaskStatusInputRequired)
	}
	assert.Equal(t, "name-2", second.InputRequests[0].Key, "a key names one request over the task's life")
	require.NoError(t, kit.UpdateTask(authed(t, x, r), task.ID, map[string]json.RawMessage{
		"name-2": json.RawMessage(`{"action":"decline"}`)}))

	done := waitTask(t, x, r, task.ID, toolexec.TaskStatusCompleted)
	require.NotNil(t, done.Result, "%+v", done.Err)
	assert.Equal(t, "Ada/decline", done.Result.Text())
	assert.Empty(t, done.InputRequests)
}

func TestTaskProgressIsItsStatusMessage(t *testing.T) {
	release := make(chan struct{})
	x := newExec(t, taskTool("t"), func(ctx context.Context, _ string, _ map[string]any) ([]toolexec.Content, bool, string, error) {
		toolexec.BecomeTask(ctx)
		_ = toolexec.ReportProgress(ctx, toolexec.Progress{Progress: 1, Total: 4, Message: "one of four"})
		<-release
		return []toolexec.Content{toolexec.Text("done")}, false, "", nil
	}, toolexec.WithTasks(toolexec.TaskSettings{Wait: time.Hour}))
	r := callerRequest("")
	_, task, err := callTask(x, r, "t", `{}`, toolexec.TaskCall{})
	require.NoError(t, err)
	require.NotNil(t, task)
	require.Eventually(t, func() bool {
		got, err := x.SurfaceKit().Task(r, task.ID)
		return err == nil && got.StatusMessage == "one of four" && got.Progress.Total == 4
	}, 10*time.Second, 10*time.Millisecond)
	close(release)
	waitTask(t, x, r, task.ID, toolexec.TaskStatusCompleted)
}

func TestTaskRequiredToolRunsOnlyAsATask(t *testing.T) {
	var runs atomic.Int64
	tool := toolexec.Tool{Name: "t", Options: toolexec.ToolOptions{TaskSupport: toolexec.TaskSupportRequired}}
	x := newExec(t, tool, func(context.Context, string, map[string]any) ([]toolexec.Content, bool, string, error) {
		runs.Add(1)
		return []toolexec.Content{toolexec.Text("ran")}, false, "", nil
	}, toolexec.WithAuthHook(identityHook))

	// A surface's caller that cannot take a task is refused, after the hook.
	_, err := x.Call(context.Background(), toolexec.CallRequest{Name: "t", Request: callerRequest("alice"), Surface: toolexec.SurfaceREST})
	requireError(t, err, toolexec.StageGate, toolexec.CodeTaskRequired)
	assert.Zero(t, runs.Load())

	// The host's own calls run.
	res, err := call(x, "t", `{}`)
	require.NoError(t, err)
	assert.Equal(t, "ran", res.Text())

	// A caller that can take a task is served (here, at once).
	res, _, err = callTask(x, callerRequest("alice"), "t", `{}`, toolexec.TaskCall{})
	require.NoError(t, err)
	assert.Equal(t, "ran", res.Text())
}

func TestBecomeTaskOutsideATaskCallIsFalse(t *testing.T) {
	var became atomic.Bool
	x := newExec(t, taskTool("t"), func(ctx context.Context, _ string, _ map[string]any) ([]toolexec.Content, bool, string, error) {
		became.Store(toolexec.BecomeTask(ctx))
		return []toolexec.Content{toolexec.Text("ok")}, false, "", nil
	})
	res, err := call(x, "t", `{}`)
	require.NoError(t, err)
	assert.Equal(t, "ok", res.Text())
	assert.False(t, became.Load())
}

func TestTaskMemoryStaysBounded(t *testing.T) {
	const tasks, maxBytes = 10000, 2 << 20
	result := strings.Repeat("r", 1024) // 10,000 such results would take ten times the bound
	// One caller starts every task, faster than they end: its share of
	// live tasks must not refuse them.
	x := newExec(t, taskTool("t"), becomes(result), toolexec.WithTasks(toolexec.TaskSettings{MaxMemoryBytes: maxBytes, MaxTasksPerCaller: tasks}))
	kit := x.SurfaceKit()
	start := func() string {
		_, task, err := kit.CallTask(context.Background(), toolexec.CallRequest{Name: "t", Surface: toolexec.SurfaceREST}, toolexec.TaskCall{})
		require.NoError(t, err)
		require.NotNil(t, task)
		return task.ID
	}
	settle := func(baseline int) {
		require.Eventually(t, func() bool { return runtime.NumGoroutine() <= baseline+2 }, 30*time.Second, 10*time.Millisecond,
			"every task's runner ends")
	}
	heap := func() int64 {
		runtime.GC()
		runtime.GC()
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		return int64(m.HeapAlloc)
	}
	// Tasks are started in batches, each left to finish, so that the
	// maps sized by how many run at once (leases, subscriptions) reach
	// their size in the warm-up, and the growth measured is what the
	// finished tasks keep.
	const batch = 500
	baseline := runtime.NumGoroutine()
	ids := make([]string, tasks)
	run := func(ids []string) {
		for i := range ids {
			ids[i] = start()
			if i%batch == batch-1 {
				settle(baseline)
			}
		}
		settle(baseline)
	}
	run(make([]string, 2*batch))
	before := heap()
	run(ids)
	grown := heap() - before
	t.Logf("%d finished tasks of %d-byte results: the heap grew by %d bytes", tasks, len(result), grown)
	assert.Less(t, grown, int64(maxBytes+1<<20), "the tasks kept in memory are bounded by MaxMemoryBytes")

	kept := 0
	r := callerRequest("")
	for _, id := range ids {
		if _, err := kit.Task(r, id); err == nil {
			kept++
		}
	}
	assert.Less(t, kept, tasks, "the least recently used tasks were dropped")
	last, err := kit.Task(r, ids[len(ids)-1])
	require.NoError(t, err, "the most recent task is kept")
	assert.Equal(t, toolexec.TaskStatusCompleted, last.Status)
}

func TestTaskIsSharedByReplicasOfOneStore(t *testing.T) {
	store := toolexec.NewMemoryStore()
	started := make(chan struct{}, 1)
	ended := make(chan error, 1)
	reg := toolexec.NewRegistry()
	reg.MustAdd(taskTool("ask"), func(ctx context.Context, _ string, _ map[string]any) ([]toolexec.Content, bool, string, error) {
		toolexec.BecomeTask(ctx)
		res, err := toolexec.Elicit(ctx, "go", toolexec.ElicitRequest{Message: "Go on?"})
		if err != nil {
			return nil, false, "", err
		}
		return []toolexec.Content{toolexec.Text(res.Action)}, false, "", nil
	})
	reg.MustAdd(taskTool("block"), blockUntil(started, nil, ended))
	replica := func() *toolexec.Executor {
		return toolexec.New(reg, reg, toolexec.WithAllowExecute(true), toolexec.WithStore(store), toolexec.WithAuthHook(identityHook),
			toolexec.WithTasks(toolexec.TaskSettings{Wait: -1}))
	}
	a, b := replica(), replica()
	r := callerRequest("alice")

	// Answered on another replica.
	_, task, err := callTask(a, r, "ask", `{}`, toolexec.TaskCall{Input: answerInput{}})
	require.NoError(t, err)
	require.NotNil(t, task)
	waitTask(t, b, r, task.ID, toolexec.TaskStatusInputRequired)
	require.NoError(t, b.SurfaceKit().UpdateTask(authed(t, b, r), task.ID, map[string]json.RawMessage{"go": json.RawMessage(`{"action":"accept"}`)}))
	done := waitTask(t, b, r, task.ID, toolexec.TaskStatusCompleted)
	assert.Equal(t, "accept", done.Result.Text())

	// Cancelled on another replica.
	_, task, err = callTask(a, r, "block", `{}`, toolexec.TaskCall{})
	require.NoError(t, err)
	require.NotNil(t, task)
	<-started
	_, err = b.SurfaceKit().CancelTask(authed(t, b, r), task.ID)
	require.NoError(t, err)
	select {
	case err := <-ended:
		assert.ErrorIs(t, err, context.Canceled)
	case <-time.After(10 * time.Second):
		t.Fatal("the cancellation never reached the replica running the task")
	}
	assert.Equal(t, toolexec.TaskStatusCanceled, waitTask(t, a, r, task.ID, toolexec.TaskStatusCanceled).Status)
}

func TestATaskThatFindsNoRoomDropsNoRunningTasksLease(t *testing.T) {
	// Every task kept runs: a call that then tries to become a task goes
	// on as an ordinary call, and must not push out the lease of a task
	// that runs, which its next reader would take for a stopped runner's
	// and fail, cancelling its call.
	release, ended := make(chan struct{}), make(chan error, 4)
	defer close(release)
	x := newExec(t, taskTool("t"), func(ctx context.Context, _ string, args map[string]any) ([]toolexec.Content, bool, string, error) {
		toolexec.BecomeTask(ctx)
		if args["hold"] == true {
			select {
			case <-release:
			case <-ctx.Done():
				ended <- ctx.Err()
				return nil, false, "", ctx.Err()
			}
		}
		return []toolexec.Content{toolexec.Text("done")}, false, "", nil
	}, toolexec.WithAuthHook(identityHook), toolexec.WithTasks(toolexec.TaskSettings{MaxMemoryTasks: 3}))
	start := func(who, args string) *toolexec.Task {
		r := authed(t, x, callerRequest(who))
		_, task, err := callTask(x, r, "t", args, toolexec.TaskCall{Wait: -1})
		require.NoError(t, err)
		return task
	}
	alice := start("alice", `{"hold":true}`)
	require.NotNil(t, alice)
	for range 2 {
		require.NotNil(t, start("mallory", `{"hold":true}`))
	}
	for range 3 {
		assert.Nil(t, start("mallory", `{}`), "no room: an ordinary call")
	}
	got, err := x.SurfaceKit().Task(authed(t, x, callerRequest("alice")), alice.ID)
	require.NoError(t, err)
	assert.Equal(t, toolexec.TaskStatusWorking, got.Status, "%s", got.StatusMessage)
	select {
	case err := <-ended:
		t.Fatalf("a running task was cancelled: %v", err)
	default:
	}
}
