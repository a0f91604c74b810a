package toolexec_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/go-chi/chi/v5"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolexec/toolexec"
)

// restTaskServer serves, under /api, tools that run as tasks: "jobs/slow"
// (until release is closed, reporting its cancellation on ended),
// "must" (runs only as a task, fails as a tool) and "quick".
func restTaskServer(t *testing.T, opts ...toolexec.Option) (srv *httptest.Server, release chan struct{}, ended chan error) {
	t.Helper()
	release, ended = make(chan struct{}), make(chan error, 4)
	optional := toolexec.ToolOptions{TaskSupport: toolexec.TaskSupportOptional}
	reg := toolexec.NewRegistry()
	reg.MustAdd(toolexec.Tool{Name: "jobs/slow", Options: optional}, func(ctx context.Context, _ string, args map[string]any) ([]toolexec.Content, bool, string, error) {
		_ = toolexec.ReportProgress(ctx, toolexec.Progress{Progress: 1, Total: 2, Message: "halfway"})
		select {
		case <-release:
			return []toolexec.Content{toolexec.Text("slow " + args["x"].(string))}, false, "", nil
		case <-ctx.Done():
			ended <- ctx.Err()
			return nil, false, "", ctx.Err()
		}
	})
	reg.MustAdd(toolexec.Tool{Name: "must", Options: toolexec.ToolOptions{TaskSupport: toolexec.TaskSupportRequired}}, becomesFailing())
	reg.MustAdd(toolexec.Tool{Name: "quick", Options: optional}, textHandler("quick"))
	x := toolexec.New(reg, reg, append([]toolexec.Option{toolexec.WithAllowExecute(true),
		toolexec.WithTasks(toolexec.TaskSettings{Wait: 20 * time.Millisecond})}, opts...)...)
	r := chi.NewRouter()
	r.Mount("/api", toolexec.NewHandler(x))
	srv = httptest.NewServer(r)
	t.Cleanup(srv.Close)
	return srv, release, ended
}

// becomesFailing makes its call a task, then fails as a tool.
func becomesFailing() handlerFunc {
	return func(ctx context.Context, _ string, _ map[string]any) ([]toolexec.Content, bool, string, error) {
		toolexec.BecomeTask(ctx)
		return []toolexec.Content{toolexec.Text("it went wrong")}, true, "", nil
	}
}

func restDo(t *testing.T, method, u, body string, hdr ...string) (*http.Response, map[string]any) {
	t.Helper()
	req, err := http.NewRequest(method, u, strings.NewReader(body))
	require.NoError(t, err)
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Add(hdr[i], hdr[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	var m map[string]any
	if len(data) > 0 {
		require.NoError(t, json.Unmarshal(data, &m), string(data))
	}
	return resp, m
}

// resolve resolves a Location against the request's URL, as clients do.
func resolve(t *testing.T, base, loc string) string {
	t.Helper()
	b, err := url.Parse(base)
	require.NoError(t, err)
	l, err := url.Parse(loc)
	require.NoError(t, err)
	return b.ResolveReference(l).String()
}

func TestRESTRespondAsyncAnswers202AndTheTaskIsPolled(t *testing.T) {
	srv, release, _ := restTaskServer(t)
	callURL := srv.URL + "/api/tools/jobs/slow/call" // a name with a '/' in it
	resp, body := restDo(t, http.MethodPost, callURL, `{"x":"done"}`, "Prefer", "respond-async")
	require.Equal(t, http.StatusAccepted, resp.StatusCode, "%v", body)
	assert.Equal(t, "respond-async", resp.Header.Get("Preference-Applied"))
	assert.Equal(t, "1", resp.Header.Get("Retry-After"))
	id := body["taskId"].(string)
	assert.Equal(t, "../../../tasks/"+id, resp.Header.Get("Location"))
	statusURL := resolve(t, callURL, resp.Header.Get("Location"))
	assert.Equal(t, srv.URL+"/api/tasks/"+id, statusURL, "the Location resolves to the task, under the mount point")
	assert.Equal(t, "working", body["status"])
	assert.Equal(t, "jobs/slow", body["tool"])
	assert.NotContains(t, body, "result")

	resp, body = restDo(t, http.MethodGet, statusURL, "")
	require.Equal(t, http.StatusOK, resp.StatusCode)
	assert.Equal(t, "1", resp.Header.Get("Retry-After"))
	assert.Equal(t, "working", body["status"])

	close(release)
	require.Eventually(t, func() bool {
		resp, body = restDo(t, http.MethodGet, statusURL, "")
		return body["status"] == "completed"
	}, 10*time.Second, 10*time.Millisecond)
	assert.Empty(t, resp.Header.Get("Retry-After"), "nothing more to poll for")
	assert.EqualValues(t, http.StatusOK, body["resultStatus"])
	assert.Equal(t, map[string]any{"content": []any{map[string]any{"type": "text", "text": "slow done"}}, "isError": false}, body["result"],
		"the result POST .../call would have answered")
}

func TestRESTTasksAreOnlyForThoseWhoAsk(t *testing.T) {
	srv, release, _ := restTaskServer(t)
	close(release)
	resp, body := restDo(t, http.MethodPost, srv.URL+"/api/tools/jobs%2Fslow/call", `{"x":"sync"}`)
	require.Equal(t, http.StatusOK, resp.StatusCode, "without Prefer: respond-async the call is an ordinary one")
	assert.Equal(t, "slow sync", body["content"].([]any)[0].(map[string]any)["text"])

	resp, body = restDo(t, http.MethodPost, srv.URL+"/api/tools/quick/call", `{}`, "Prefer", "respond-async, wait=5")
	require.Equal(t, http.StatusOK, resp.StatusCode, "a call that ends within the wait is answered directly")
	assert.Empty(t, resp.Header.Get("Preference-Applied"))
	assert.Equal(t, false, body["isError"])

	resp, body = restDo(t, http.MethodPost, srv.URL+"/api/tools/must/call", `{}`)
	require.Equal(t, http.StatusBadRequest, resp.StatusCode)
	assert.Equal(t, "Tool must runs only as a task, and this call cannot become one. Send Prefer: respond-async.", body["error"])

	resp, body = restDo(t, http.MethodPost, srv.URL+"/api/tools/must/call", `{}`, "Prefer", "respond-async")
	require.Equal(t, http.StatusAccepted, resp.StatusCode, "%v", body)
	statusURL := resolve(t, srv.URL+"/api/tools/must/call", resp.Header.Get("Location"))
	require.Eventually(t, func() bool {
		_, body = restDo(t, http.MethodGet, statusURL, "")
		return body["status"] == "completed"
	}, 10*time.Second, 10*time.Millisecond)
	assert.EqualValues(t, http.StatusInternalServerError, body["resultStatus"], "an isError result, as POST .../call answers it")
}

func TestRESTTaskCancelledWithDelete(t *testing.T) {
	srv, _, ended := restTaskServer(t)
	resp, body := restDo(t, http.MethodPost, srv.URL+"/api/tools/jobs%2Fslow/call", `{"x":"-"}`, "Prefer", "wait=0", "Prefer", "respond-async")
	require.Equal(t, http.StatusAccepted, resp.StatusCode, "%v", body)
	assert.Equal(t, "../../tasks/"+body["taskId"].(string), resp.Header.Get("Location"), "an encoded '/' is no segment")
	statusURL := srv.URL + "/api/tasks/" + body["taskId"].(string)

	resp, body = restDo(t, http.MethodDelete, statusURL, "")
	require.Equal(t, http.StatusOK, resp.StatusCode)
	assert.Equal(t, "cancelled", body["status"])
	select {
	case err := <-ended:
		assert.ErrorIs(t, err, context.Canceled)
	case <-time.After(10 * time.Second):
		t.Fatal("the handler's context was never cancelled")
	}
	_, body = restDo(t, http.MethodGet, statusURL, "")
	assert.Equal(t, "cancelled", body["status"])
	assert.NotContains(t, body, "result")

	resp, _ = restDo(t, http.MethodPut, statusURL, "")
	assert.Equal(t, http.StatusMethodNotAllowed, resp.StatusCode)
	assert.Equal(t, "GET, HEAD, DELETE", resp.Header.Get("Allow"))
	resp, body = restDo(t, http.MethodGet, srv.URL+"/api/tasks/"+strings.Repeat("0", 32), "")
	assert.Equal(t, http.StatusNotFound, resp.StatusCode)
	assert.Equal(t, "Task not found", body["error"])
	resp, _ = restDo(t, http.MethodGet, srv.URL+"/api/tasks", "")
	assert.Equal(t, http.StatusNotFound, resp.StatusCode, "tasks cannot be listed")
}

func TestRESTTaskBelongsToItsCaller(t *testing.T) {
	srv, release, _ := restTaskServer(t, toolexec.WithAuthHook(identityHook))
	defer close(release)
	resp, body := restDo(t, http.MethodPost, srv.URL+"/api/tools/jobs%2Fslow/call", `{"x":"-"}`,
		"Prefer", "respond-async", "Authorization", "Bearer alice")
	require.Equal(t, http.StatusAccepted, resp.StatusCode)
	statusURL := srv.URL + "/api/tasks/" + body["taskId"].(string)

	for _, method := range []string{http.MethodGet, http.MethodDelete} {
		resp, _ = restDo(t, method, statusURL, "", "Authorization", "Bearer mallory")
		assert.Equal(t, http.StatusNotFound, resp.StatusCode, method)
	}
	resp, body = restDo(t, http.MethodGet, statusURL, "", "Authorization", "Bearer alice")
	require.Equal(t, http.StatusOK, resp.StatusCode)
	assert.Equal(t, "working", body["status"])
	assert.Equal(t, "halfway", body["statusMessage"])
	assert.Equal(t, map[string]any{"progress": 1.0, "total": 2.0}, body["progress"])
}

func TestRESTPreferHeaderIsRead(t *testing.T) {
	srv, release, _ := restTaskServer(t)
	defer close(release)
	for _, prefer := range []string{"respond-async", "RESPOND-ASYNC", "handling=lenient, respond-async; x=1", "wait=0,respond-async"} {
		resp, _ := restDo(t, http.MethodPost, srv.URL+"/api/tools/jobs%2Fslow/call", `{"x":"-"}`, "Prefer", prefer)
		assert.Equal(t, http.StatusAccepted, resp.StatusCode, prefer)
	}
}

// scopedHook names the caller "alice" whatever her token, and admits a
// call of jobs/slow only with the token "admin", as a hook enforcing a
// tool's scope does: "user" is alice's token without that scope.
func scopedHook(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		token := strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")
		if token != "admin" && token != "user" {
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		if c := toolexec.CallFromContext(r.Context()); c != nil && c.Tool.Name == "jobs/slow" && token != "admin" {
			w.WriteHeader(http.StatusForbidden)
			return
		}
		next.ServeHTTP(w, r.WithContext(toolexec.ContextWithIdentity(r.Context(), "alice")))
	})
}

func TestRESTTaskNeedsWhatCallingItsToolNeeds(t *testing.T) {
	// The task is alice's, but a token of hers that could not call the
	// task's tool cannot read, watch or cancel it either: to it the task
	// does not exist.
	srv, release, ended := restTaskServer(t, toolexec.WithAuthHook(scopedHook))
	defer close(release)
	resp, body := restDo(t, http.MethodPost, srv.URL+"/api/tools/jobs%2Fslow/call", `{"x":"-"}`,
		"Prefer", "respond-async", "Authorization", "Bearer admin")
	require.Equal(t, http.StatusAccepted, resp.StatusCode, "%v", body)
	statusURL := srv.URL + "/api/tasks/" + body["taskId"].(string)

	for _, method := range []string{http.MethodGet, http.MethodDelete} {
		resp, body = restDo(t, method, statusURL, "", "Authorization", "Bearer user")
		assert.Equal(t, http.StatusNotFound, resp.StatusCode, method)
		assert.Equal(t, "Task not found", body["error"], method)
	}
	select {
	case <-ended:
		t.Fatal("a token without the tool's scope cancelled the task")
	default:
	}
	resp, body = restDo(t, http.MethodGet, statusURL, "", "Authorization", "Bearer admin")
	require.Equal(t, http.StatusOK, resp.StatusCode)
	assert.Equal(t, "working", body["status"])
}

func TestRESTTasksAreCappedPerCaller(t *testing.T) {
	// Past its share of live tasks a caller is refused as a rate limit
	// refuses, before its handler runs; others are not, and a task that
	// ends gives its place back.
	srv, release, _ := restTaskServer(t, toolexec.WithAuthHook(identityHook),
		toolexec.WithTasks(toolexec.TaskSettings{Wait: 20 * time.Millisecond, MaxTasksPerCaller: 2}))
	start := func(who string) (*http.Response, map[string]any) {
		return restDo(t, http.MethodPost, srv.URL+"/api/tools/jobs%2Fslow/call", `{"x":"-"}`,
			"Prefer", "respond-async", "Authorization", "Bearer "+who)
	}
	for range 2 {
		resp, body := start("mallory")
		require.Equal(t, http.StatusAccepted, resp.StatusCode, "%v", body)
	}
	resp, body := start("mallory")
	require.Equal(t, http.StatusTooManyRequests, resp.StatusCode, "%v", body)
	assert.Equal(t, "1", resp.Header.Get("Retry-After"))
	assert.Equal(t, true, body["isError"])
	assert.Contains(t, body["content"].([]any)[0].(map[string]any)["text"], "Too many tasks")

	resp, body = start("alice")
	assert.Equal(t, http.StatusAccepted, resp.StatusCode, "another caller has a share of her own: %v", body)

	close(release) // every task ends
	require.Eventually(t, func() bool {
		resp, _ := start("mallory")
		return resp.StatusCode == http.StatusOK // ends within the wait now
	}, 10*time.Second, 20*time.Millisecond, "ended tasks give their places back")
}

func TestAFloodOfTasksDropsOnlyTheFloodersOwn(t *testing.T) {
	// Tasks kept in the process are bounded; past the bound a caller's
	// flood of finished tasks drops its own oldest ones, never another
	// caller's task, and never a running one.
	release, ended := make(chan struct{}), make(chan error, 1)
	reg := toolexec.NewRegistry()
	optional := toolexec.ToolOptions{TaskSupport: toolexec.TaskSupportOptional}
	reg.MustAdd(toolexec.Tool{Name: "hold", Options: optional}, func(ctx context.Context, _ string, _ map[string]any) ([]toolexec.Content, bool, string, error) {
		select {
		case <-release:
			return []toolexec.Content{toolexec.Text("held")}, false, "", nil
		case <-ctx.Done():
			ended <- ctx.Err()
			return nil, false, "", ctx.Err()
		}
	})
	big := strings.Repeat("x", 8<<10)
	reg.MustAdd(toolexec.Tool{Name: "big", Options: optional}, func(ctx context.Context, _ string, _ map[string]any) ([]toolexec.Content, bool, string, error) {
		toolexec.BecomeTask(ctx)
		return []toolexec.Content{toolexec.Text(big)}, false, "", nil
	})
	x := toolexec.New(reg, reg, toolexec.WithAllowExecute(true), toolexec.WithAuthHook(identityHook),
		toolexec.WithTasks(toolexec.TaskSettings{Wait: 20 * time.Millisecond, MaxMemoryTasks: 20, MaxMemoryBytes: 200 << 10}))
	srv := httptest.NewServer(http.StripPrefix("/api", toolexec.NewHandler(x)))
	t.Cleanup(srv.Close)
	defer close(release)
	call := func(who, tool string) string {
		resp, body := restDo(t, http.MethodPost, srv.URL+"/api/tools/"+tool+"/call", `{}`,
			"Prefer", "respond-async", "Authorization", "Bearer "+who)
		require.Equal(t, http.StatusAccepted, resp.StatusCode, "%v", body)
		return srv.URL + "/api/tasks/" + body["taskId"].(string)
	}
	poll := func(who, u string) (int, map[string]any) {
		resp, body := restDo(t, http.MethodGet, u, "", "Authorization", "Bearer "+who)
		return resp.StatusCode, body
	}
	aliceDone := call("alice", "big")
	require.Eventually(t, func() bool { _, b := poll("alice", aliceDone); return b["status"] == "completed" }, 10*time.Second, 10*time.Millisecond)
	aliceRunning := call("alice", "hold")

	var flood []string
	for range 60 { // 60 tasks of 8 KiB: three times the count, twice the bytes
		flood = append(flood, call("mallory", "big"))
	}
	require.Eventually(t, func() bool { _, b := poll("mallory", flood[len(flood)-1]); return b["status"] == "completed" }, 10*time.Second, 10*time.Millisecond)

	status, body := poll("alice", aliceDone)
	assert.Equal(t, http.StatusOK, status, "alice's finished task outlives mallory's flood")
	assert.Equal(t, "completed", body["status"])
	status, body = poll("alice", aliceRunning)
	assert.Equal(t, http.StatusOK, status, "a running task is never dropped")
	assert.Equal(t, "working", body["status"])
	select {
	case err := <-ended:
		t.Fatalf("alice's running task was cancelled: %v", err)
	default:
	}
	status, _ = poll("mallory", flood[0])
	assert.Equal(t, http.StatusNotFound, status, "the flooder's oldest went first")
}

// apiKeyHook admits a call carrying the X-Api-Key "k", and names no
// identity: it reads no other header.
func apiKeyHook(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("X-Api-Key") != "k" {
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		next.ServeHTTP(w, r)
	})
}

func TestRESTTaskCapIsNotEscapedByChangingCredentials(t *testing.T) {
	// Without an identity from the auth hook, a caller is counted by its
	// address: headers it may change at will (any credentials without a
	// hook, those the hook does not read with one) do not make it another
	// caller with a fresh share.
	for name, hook := range map[string]toolexec.AuthHook{"no hook": nil, "a hook naming no identity": apiKeyHook} {
		t.Run(name, func(t *testing.T) {
			srv, release, _ := restTaskServer(t, toolexec.WithAuthHook(hook),
				toolexec.WithTasks(toolexec.TaskSettings{Wait: 20 * time.Millisecond, MaxTasksPerCaller: 2}))
			defer close(release)
			start := func(i int) (*http.Response, map[string]any) {
				return restDo(t, http.MethodPost, srv.URL+"/api/tools/jobs%2Fslow/call", `{"x":"-"}`,
					"Prefer", "respond-async", "X-Api-Key", "k", "Authorization", fmt.Sprintf("Bearer fresh-%d", i))
			}
			for i := range 2 {
				resp, body := start(i)
				require.Equal(t, http.StatusAccepted, resp.StatusCode, "%v", body)
			}
			resp, body := start(2)
			assert.Equal(t, http.StatusTooManyRequests, resp.StatusCode, "%v", body)
		})
	}
}

func TestAnAnonymousFloodOfTasksDropsOnlyItsOwn(t *testing.T) {
	// Callers without an identity are told apart by their address for the
	// bounds of the tasks kept in the process: one anonymous caller's
	// flood drops its own finished tasks, not those of another anonymous
	// caller, whether it sends no credentials or new ones every time.
	for name, creds := range map[string]func(i int) string{
		"no credentials":         func(int) string { return "" },
		"changing credentials":   func(i int) string { return fmt.Sprintf("Bearer fresh-%d", i) },
		"one set of credentials": func(int) string { return "Bearer mallory" },
	} {
		t.Run(name, func(t *testing.T) {
			reg := toolexec.NewRegistry()
			optional := toolexec.ToolOptions{TaskSupport: toolexec.TaskSupportOptional}
			big := strings.Repeat("x", 8<<10)
			reg.MustAdd(toolexec.Tool{Name: "big", Options: optional}, func(ctx context.Context, _ string, _ map[string]any) ([]toolexec.Content, bool, string, error) {
				toolexec.BecomeTask(ctx)
				return []toolexec.Content{toolexec.Text(big)}, false, "", nil
			})
			x := toolexec.New(reg, reg, toolexec.WithAllowExecute(true),
				toolexec.WithTasks(toolexec.TaskSettings{Wait: 20 * time.Millisecond, MaxMemoryTasks: 20, MaxMemoryBytes: 200 << 10}))
			h := toolexec.NewHandler(x)
			do := func(method, path, remote, auth string) (int, map[string]any) {
				req := httptest.NewRequest(method, path, strings.NewReader(`{}`))
				req.RemoteAddr = remote
				if method == http.MethodPost {
					req.Header.Set("Prefer", "respond-async")
				}
				if auth != "" {
					req.Header.Set("Authorization", auth)
				}
				rec := httptest.NewRecorder()
				h.ServeHTTP(rec, req)
				var body map[string]any
				require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &body), rec.Body.String())
				return rec.Code, body
			}
			completed := func(remote, auth, id string) bool {
				_, body := do(http.MethodGet, "/tasks/"+id, remote, auth)
				return body["status"] == "completed"
			}
			const alice, mallory = "192.0.2.1:4000", "[2001:db8:1:2::9]:4000"
			status, body := do(http.MethodPost, "/tools/big/call", alice, "")
			require.Equal(t, http.StatusAccepted, status, "%v", body)
			aliceTask := body["taskId"].(string)
			require.Eventually(t, func() bool { return completed(alice, "", aliceTask) }, 10*time.Second, 10*time.Millisecond)

			var last string
			for i := range 60 { // three times the count, twice the bytes
				status, body := do(http.MethodPost, "/tools/big/call", mallory, creds(i))
				require.Equal(t, http.StatusAccepted, status, "%v", body)
				last = body["taskId"].(string)
				require.Eventually(t, func() bool { return completed(mallory, creds(i), last) }, 10*time.Second, time.Millisecond)
			}
			status, body = do(http.MethodGet, "/tasks/"+aliceTask, alice, "")
			assert.Equal(t, http.StatusOK, status, "alice's finished task outlives mallory's flood: %v", body)
		})
	}
}
