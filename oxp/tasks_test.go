package oxp_test

import (
	"context"
	"encoding/json"
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
	"github.com/toolexec/toolexec/oxp"
)

// asyncServer serves, under /oxp, Reports.Build@1.0.0 (runs until release
// is closed, reporting its cancellation on ended; may be a task) and
// Reports.Export@1.0.0 (runs only as a task, answers a number).
func asyncServer(t *testing.T, xopts ...toolexec.Option) (srv *httptest.Server, release chan struct{}, ended chan error) {
	t.Helper()
	release, ended = make(chan struct{}), make(chan error, 2)
	reg := &toolexec.Registry{}
	reg.MustAdd(toolexec.Tool{Name: "Reports.Build", Version: "1.0.0", Options: toolexec.ToolOptions{TaskSupport: toolexec.TaskSupportOptional}},
		func(ctx context.Context, _ string, _ map[string]any) ([]toolexec.Content, bool, string, error) {
			toolexec.BecomeTask(ctx)
			select {
			case <-release:
				return []toolexec.Content{toolexec.Text("built")}, false, "", nil
			case <-ctx.Done():
				ended <- ctx.Err()
				return nil, false, "", ctx.Err()
			}
		})
	reg.MustAdd(toolexec.Tool{Name: "Reports.Export", Version: "1.0.0", OutputSchema: json.RawMessage(`{"type":"number"}`),
		Options: toolexec.ToolOptions{TaskSupport: toolexec.TaskSupportRequired}},
		func(ctx context.Context, _ string, _ map[string]any) ([]toolexec.Content, bool, string, error) {
			toolexec.BecomeTask(ctx)
			return []toolexec.Content{toolexec.Text("42")}, false, "", nil
		})
	x := toolexec.New(reg, reg, append([]toolexec.Option{toolexec.WithAllowExecute(true), toolexec.WithLogger(discardLogger())}, xopts...)...)
	r := chi.NewRouter()
	r.Mount("/oxp", oxp.NewHandler(x))
	srv = httptest.NewServer(r)
	t.Cleanup(srv.Close)
	return srv, release, ended
}

func oxpDo(t *testing.T, method, u, body string, hdr ...string) (*http.Response, map[string]any) {
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

func TestAsyncCallAnswers202ThenItsCallToolResponse(t *testing.T) {
	srv, release, _ := asyncServer(t)
	callURL := srv.URL + "/oxp/tools/call"
	resp, body := oxpDo(t, http.MethodPost, callURL, `{"tool_id":"Reports.Build@1.0.0","call_id":"c-1"}`, "Prefer", "respond-async")
	require.Equal(t, http.StatusAccepted, resp.StatusCode, "%v", body)
	assert.Equal(t, "1.0", resp.Header.Get("OXP-Version"))
	assert.Equal(t, "respond-async", resp.Header.Get("Preference-Applied"))
	assert.Equal(t, "c-1", body["call_id"])
	assert.Equal(t, "working", body["status"])
	id := body["task_id"].(string)
	loc, err := url.Parse(callURL)
	require.NoError(t, err)
	rel, err := url.Parse(resp.Header.Get("Location"))
	require.NoError(t, err)
	taskURL := loc.ResolveReference(rel).String()
	assert.Equal(t, srv.URL+"/oxp/tasks/"+id, taskURL)

	resp, body = oxpDo(t, http.MethodGet, taskURL, "")
	require.Equal(t, http.StatusAccepted, resp.StatusCode, "still running")
	assert.Equal(t, id, body["task_id"])
	assert.NotEmpty(t, resp.Header.Get("Retry-After"))

	close(release)
	require.Eventually(t, func() bool {
		resp, body = oxpDo(t, http.MethodGet, taskURL, "")
		return resp.StatusCode == http.StatusOK
	}, 10*time.Second, 10*time.Millisecond)
	assert.Equal(t, "c-1", body["call_id"])
	assert.Equal(t, true, body["success"])
	assert.Equal(t, "built", body["value"])
	assert.Contains(t, body, "duration")
}

func TestAsyncCallsOnlyForCallersThatAsk(t *testing.T) {
	srv, release, _ := asyncServer(t)
	close(release)
	resp, body := oxpDo(t, http.MethodPost, srv.URL+"/oxp/tools/call", `{"tool_id":"Reports.Build@1.0.0"}`)
	require.Equal(t, http.StatusOK, resp.StatusCode, "OXP's own answer without Prefer: respond-async")
	assert.Equal(t, "built", body["value"])

	resp, body = oxpDo(t, http.MethodPost, srv.URL+"/oxp/tools/call", `{"tool_id":"Reports.Export@1.0.0"}`)
	require.Equal(t, http.StatusBadRequest, resp.StatusCode)
	assert.Equal(t, "The tool runs only as an asynchronous call", body["message"])
	assert.Contains(t, body["developer_message"], "Prefer: respond-async")

	resp, body = oxpDo(t, http.MethodPost, srv.URL+"/oxp/tools/call", `{"tool_id":"Reports.Export@1.0.0"}`, "Prefer", "respond-async")
	require.Equal(t, http.StatusAccepted, resp.StatusCode, "%v", body)
	taskURL := srv.URL + "/oxp/tasks/" + body["task_id"].(string)
	require.Eventually(t, func() bool {
		resp, body = oxpDo(t, http.MethodGet, taskURL, "")
		return resp.StatusCode == http.StatusOK
	}, 10*time.Second, 10*time.Millisecond)
	assert.EqualValues(t, 42, body["value"], "the value read against the tool's output schema, as a call's")
	assert.NotEmpty(t, body["call_id"], "the call id the server made up")
}

func TestAsyncCallCancelledAndOwned(t *testing.T) {
	hook := func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			user := strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")
			if user == "" {
				w.WriteHeader(http.StatusUnauthorized)
				return
			}
			next.ServeHTTP(w, r.WithContext(toolexec.ContextWithIdentity(r.Context(), user)))
		})
	}
	srv, _, ended := asyncServer(t, toolexec.WithAuthHook(hook))
	resp, body := oxpDo(t, http.MethodPost, srv.URL+"/oxp/tools/call", `{"tool_id":"Reports.Build@1.0.0","call_id":"c-2"}`,
		"Prefer", "respond-async", "Authorization", "Bearer alice")
	require.Equal(t, http.StatusAccepted, resp.StatusCode, "%v", body)
	taskURL := srv.URL + "/oxp/tasks/" + body["task_id"].(string)

	resp, _ = oxpDo(t, http.MethodGet, taskURL, "", "Authorization", "Bearer mallory")
	assert.Equal(t, http.StatusNotFound, resp.StatusCode, "another caller's task does not exist for them")
	resp, body = oxpDo(t, http.MethodDelete, taskURL, "")
	assert.Equal(t, http.StatusBadRequest, resp.StatusCode, "unauthenticated, as OXP answers it")
	assert.Equal(t, "Authentication is required", body["message"])

	resp, body = oxpDo(t, http.MethodDelete, taskURL, "", "Authorization", "Bearer alice")
	require.Equal(t, http.StatusOK, resp.StatusCode)
	assert.Equal(t, "c-2", body["call_id"])
	assert.Equal(t, false, body["success"])
	assert.Equal(t, "The call was cancelled", body["error"].(map[string]any)["message"])
	select {
	case err := <-ended:
		assert.ErrorIs(t, err, context.Canceled)
	case <-time.After(10 * time.Second):
		t.Fatal("the handler's context was never cancelled")
	}
	resp, _ = oxpDo(t, http.MethodPut, taskURL, "", "Authorization", "Bearer alice")
	assert.Equal(t, http.StatusMethodNotAllowed, resp.StatusCode)
	assert.Equal(t, "GET, HEAD, DELETE", resp.Header.Get("Allow"))
}
