package main

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolexec/toolexec"
	"github.com/toolexec/toolexec/toolexectest"
)

// In process: Executor.Call with a toolexectest.Peer sees the progress a
// tool reports and answers its input requests. No HTTP, no auth hook (a
// call without Request is the host's own).

func TestCountReportsProgressInProcess(t *testing.T) {
	x := newExecutor("k")
	p := &toolexectest.Peer{}
	res, err := x.Call(context.Background(), toolexec.CallRequest{Name: "count", Arguments: json.RawMessage(`{"to":3}`), Peer: p})
	require.NoError(t, err)
	require.False(t, res.IsError, res.Text())
	reports := p.ProgressReports()
	require.Len(t, reports, 3)
	assert.Equal(t, toolexec.Progress{Progress: 3, Total: 3, Message: "3 of 3"}, reports[2])
}

func TestConfirmAsksAndActsOnTheAnswerInProcess(t *testing.T) {
	x := newExecutor("k")
	p := &toolexectest.Peer{Answer: toolexectest.AcceptForm(map[string]any{"ok": true})}
	res, err := x.Call(context.Background(), toolexec.CallRequest{Name: "confirm", Arguments: json.RawMessage(`{"action":"deploy"}`), Peer: p})
	require.NoError(t, err)
	assert.JSONEq(t, `{"done":true}`, res.Text())
	require.Len(t, p.Asked(), 1)
	assert.Equal(t, "Go ahead and deploy?", p.Asked()[0].Elicit.Message)
}

// Over HTTP: the official MCP Go SDK's client, against the router on an
// httptest server, with the API key on every request.

type withKey struct{ key string }

func (k withKey) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("X-Api-Key", k.key)
	return http.DefaultTransport.RoundTrip(r)
}

func connect(t *testing.T, srv *httptest.Server, opts *sdk.ClientOptions) *sdk.ClientSession {
	t.Helper()
	client := sdk.NewClient(&sdk.Implementation{Name: "service-test", Version: "1"}, opts)
	session, err := client.Connect(context.Background(), &sdk.StreamableClientTransport{
		Endpoint:   srv.URL + "/mcp",
		HTTPClient: &http.Client{Transport: withKey{"k"}},
	}, nil)
	require.NoError(t, err)
	t.Cleanup(func() { _ = session.Close() })
	return session
}

func TestCountReportsProgressToAnMCPClient(t *testing.T) {
	srv := httptest.NewServer(newRouter(newExecutor("k")))
	defer srv.Close()
	// The SDK hands notifications to its handler on a goroutine of its own,
	// so they may reach it after CallTool has returned: collect them.
	messages := make(chan string, 10)
	session := connect(t, srv, &sdk.ClientOptions{
		ProgressNotificationHandler: func(_ context.Context, req *sdk.ProgressNotificationClientRequest) {
			messages <- req.Params.Message
		},
	})
	params := &sdk.CallToolParams{Name: "count", Arguments: map[string]any{"to": 3}}
	params.SetProgressToken("count-1")
	res, err := session.CallTool(context.Background(), params)
	require.NoError(t, err)
	require.False(t, res.IsError)
	var got []string
	for len(got) < 3 {
		select {
		case m := <-messages:
			got = append(got, m)
		case <-time.After(10 * time.Second):
			t.Fatalf("progress reports received: %v", got)
		}
	}
	assert.Equal(t, []string{"1 of 3", "2 of 3", "3 of 3"}, got)
}

func TestConfirmAsksAnMCPClient(t *testing.T) {
	srv := httptest.NewServer(newRouter(newExecutor("k")))
	defer srv.Close()
	var asked string
	session := connect(t, srv, &sdk.ClientOptions{
		ElicitationHandler: func(_ context.Context, req *sdk.ElicitRequest) (*sdk.ElicitResult, error) {
			asked = req.Params.Message
			return &sdk.ElicitResult{Action: "accept", Content: map[string]any{"ok": true}}, nil
		},
	})
	res, err := session.CallTool(context.Background(), &sdk.CallToolParams{Name: "confirm", Arguments: map[string]any{"action": "deploy"}})
	require.NoError(t, err)
	require.False(t, res.IsError)
	assert.Equal(t, "Go ahead and deploy?", asked)
	assert.JSONEq(t, `{"done":true}`, res.Content[0].(*sdk.TextContent).Text)
}

// Every surface on the one router, behind the one hook.

func do(t *testing.T, method, url, body string, key bool) (int, string) {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/json")
	if key {
		req.Header.Set("X-Api-Key", "k")
	}
	res, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	require.NoError(t, err)
	return res.StatusCode, string(b)
}

func TestEverySurfaceIsMountedBehindTheOneHook(t *testing.T) {
	srv := httptest.NewServer(newRouter(newExecutor("k")))
	defer srv.Close()
	for _, c := range []struct{ name, method, path, body string }{
		{"REST", http.MethodPost, "/api/tools/count/call", `{"to":2}`},
		{"OXP", http.MethodPost, "/oxp/tools/call", `{"tool_id":"Tools.count","input":{"to":2}}`},
		{"MCP", http.MethodPost, "/mcp", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"count","arguments":{"to":2}}}`},
		{"HandsAI", http.MethodPost, "/mcp/tools/call", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"count","arguments":{"to":2}}}`},
	} {
		status, body := do(t, c.method, srv.URL+c.path, c.body, false)
		assert.Contains(t, []int{http.StatusUnauthorized, http.StatusBadRequest}, status, "%s without the key: %s", c.name, body)
		status, body = do(t, c.method, srv.URL+c.path, c.body, true)
		assert.Equal(t, http.StatusOK, status, "%s: %s", c.name, body)
		assert.Contains(t, body, "counted", c.name)
	}
	status, body := do(t, http.MethodGet, srv.URL+"/api/", "", false)
	assert.Equal(t, http.StatusOK, status)
	assert.Contains(t, body, "<html")
	status, _ = do(t, http.MethodGet, srv.URL+"/healthz", "", false)
	assert.Equal(t, http.StatusOK, status, "the service's own routes live beside the tools")
}
