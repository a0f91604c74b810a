package main

import (
	"context"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The official MCP Go SDK's client, as docs/hosting.md shows it: its
// handlers receive count's progress and answer confirm's input request.
func TestAnMCPClientSeesProgressAndAnswersInputRequests(t *testing.T) {
	ctx := context.Background()
	x := newExecutor("k")
	var mu sync.Mutex
	var reports []string
	record := func(req *mcp.ProgressNotificationClientRequest) {
		mu.Lock()
		defer mu.Unlock()
		reports = append(reports, req.Params.Message)
	}

	srv := httptest.NewServer(newRouter(x))
	client := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, &mcp.ClientOptions{
		ProgressNotificationHandler: func(_ context.Context, req *mcp.ProgressNotificationClientRequest) { record(req) },
		ElicitationHandler: func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"ok": true}}, nil
		},
	})
	session, _ := client.Connect(ctx, &mcp.StreamableClientTransport{
		Endpoint:   srv.URL + "/mcp",
		HTTPClient: &http.Client{Transport: withKey{"k"}}, // adds X-Api-Key
	}, nil)
	params := &mcp.CallToolParams{Name: "count", Arguments: map[string]any{"to": 3}}
	params.SetProgressToken("count-1")
	res, err := session.CallTool(ctx, params)
	defer srv.Close()
	require.NotNil(t, session)
	defer func() { _ = session.Close() }()
	require.NoError(t, err)
	require.False(t, res.IsError)
	require.Eventually(t, func() bool { mu.Lock(); defer mu.Unlock(); return len(reports) == 3 }, 10*time.Second, 10*time.Millisecond)

	res, err = session.CallTool(ctx, &mcp.CallToolParams{Name: "confirm", Arguments: map[string]any{"action": "deploy"}})
	require.NoError(t, err)
	require.False(t, res.IsError)
	require.Len(t, res.Content, 1)
	text, ok := res.Content[0].(*mcp.TextContent)
	require.True(t, ok)
	assert.JSONEq(t, `{"done":true}`, text.Text)
}
