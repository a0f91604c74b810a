//lint:file-ignore SA1019 real clients are tested with log messages, sampling and roots as long as MCP carries them

package interop

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	mcpclient "github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	mcpgo "github.com/mark3labs/mcp-go/mcp"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolexec/toolexec"
	"github.com/toolexec/toolexec/mcp"
)

// The official Go SDK's client, at each 2025 version, gets a tool's
// progress and log messages on the call's stream and answers its
// elicitation: the request travels on the stream, the answer comes back as
// a POST routed to the waiting call.
func TestGoSDKClientReceivesProgressLogsAndAnswersElicitation(t *testing.T) {
	reg := toolexec.NewRegistry()
	reg.MustAdd(toolexec.Tool{Name: "signup", Description: "asks the user's name while reporting progress",
		InputSchema: json.RawMessage(`{"type":"object"}`)},
		func(ctx context.Context, _ string, _ map[string]any) ([]toolexec.Content, bool, string, error) {
			_ = toolexec.ReportProgress(ctx, toolexec.Progress{Progress: 1, Total: 2, Message: "asking"})
			_ = toolexec.Log(ctx, toolexec.LogMessage{Level: toolexec.LogWarning, Logger: "signup", Data: "about to ask"})
			res, err := toolexec.Elicit(ctx, "name", toolexec.ElicitRequest{Message: "Your name?",
				RequestedSchema: json.RawMessage(`{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}`)})
			if err != nil {
				return nil, false, "", err
			}
			_ = toolexec.ReportProgress(ctx, toolexec.Progress{Progress: 2, Total: 2, Message: "done"})
			name, _ := res.Content["name"].(string)
			return []toolexec.Content{toolexec.Text("welcome " + name)}, false, "", nil
		})
	x := toolexec.New(reg, reg, toolexec.WithAllowExecute(true), toolexec.WithLogger(slog.New(slog.NewTextHandler(io.Discard, nil))))
	srv := httptest.NewServer(mcp.NewHandler(x))
	t.Cleanup(srv.Close)

	for _, v := range []string{"2025-11-25", "2025-06-18", "2025-03-26"} {
		t.Run(v, func(t *testing.T) {
			var mu sync.Mutex
			var progress []float64
			var logs []string
			c := sdk.NewClient(&sdk.Implementation{Name: "interop-gosdk", Version: "1.0.0"}, &sdk.ClientOptions{
				ElicitationHandler: func(_ context.Context, req *sdk.ElicitRequest) (*sdk.ElicitResult, error) {
					assert.Equal(t, "Your name?", req.Params.Message)
					return &sdk.ElicitResult{Action: "accept", Content: map[string]any{"name": "Ada"}}, nil
				},
				ProgressNotificationHandler: func(_ context.Context, req *sdk.ProgressNotificationClientRequest) {
					mu.Lock()
					progress = append(progress, req.Params.Progress)
					mu.Unlock()
				},
				LoggingMessageHandler: func(_ context.Context, req *sdk.LoggingMessageRequest) {
					mu.Lock()
					logs = append(logs, string(req.Params.Level)+": "+req.Params.Data.(string))
					mu.Unlock()
				},
			})
			session, err := c.Connect(sdkCtx(t), &sdk.StreamableClientTransport{Endpoint: srv.URL}, &sdk.ClientSessionOptions{ProtocolVersion: v})
			require.NoError(t, err)
			t.Cleanup(func() { _ = session.Close() })

			params := &sdk.CallToolParams{Name: "signup", Arguments: map[string]any{}}
			params.SetProgressToken("signup-1")
			res, err := session.CallTool(sdkCtx(t), params)
			require.NoError(t, err)
			require.False(t, res.IsError, "%+v", res.Content)
			assert.Equal(t, "welcome Ada", res.Content[0].(*sdk.TextContent).Text)
			// The client hands notifications to their handlers on its own
			// goroutines, so the last may land just after the result.
			seen := func() int {
				mu.Lock()
				defer mu.Unlock()
				return len(progress)
			}
			require.Eventually(t, func() bool { return seen() == 2 }, 5*time.Second, time.Millisecond)
			mu.Lock()
			defer mu.Unlock()
			assert.ElementsMatch(t, []float64{1, 2}, progress) // order on the wire: mcp/stream_test.go
			assert.Equal(t, []string{"warning: about to ask"}, logs)
		})
	}
}

// The official Go SDK's client at 2026-07-28 (its default) answers an
// elicitation given as an input-required result: it retries the call with
// the answer and the signed requestState, and the tool, run again, finishes.
// Progress comes on each round's stream.
func TestGoSDKClientAnswersAnInputRequiredResultAt2026(t *testing.T) {
	reg := toolexec.NewRegistry()
	var rounds int
	var roundsMu sync.Mutex
	reg.MustAdd(toolexec.Tool{Name: "signup", Description: "asks the user's name",
		InputSchema: json.RawMessage(`{"type":"object"}`)},
		func(ctx context.Context, _ string, _ map[string]any) ([]toolexec.Content, bool, string, error) {
			roundsMu.Lock()
			rounds++
			roundsMu.Unlock()
			_ = toolexec.ReportProgress(ctx, toolexec.Progress{Progress: 1, Total: 2, Message: "asking"})
			res, err := toolexec.Elicit(ctx, "name", toolexec.ElicitRequest{Message: "Your name?",
				RequestedSchema: json.RawMessage(`{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}`)})
			if err != nil {
				return nil, false, "", err
			}
			_ = toolexec.ReportProgress(ctx, toolexec.Progress{Progress: 2, Total: 2, Message: "done"})
			name, _ := res.Content["name"].(string)
			return []toolexec.Content{toolexec.Text("welcome " + name)}, false, "", nil
		})
	x := toolexec.New(reg, reg, toolexec.WithAllowExecute(true), toolexec.WithLogger(slog.New(slog.NewTextHandler(io.Discard, nil))))
	srv := httptest.NewServer(mcp.NewHandler(x))
	t.Cleanup(srv.Close)

	var mu sync.Mutex
	var progress []float64
	c := sdk.NewClient(&sdk.Implementation{Name: "interop-gosdk", Version: "1.0.0"}, &sdk.ClientOptions{
		ElicitationHandler: func(_ context.Context, req *sdk.ElicitRequest) (*sdk.ElicitResult, error) {
			assert.Equal(t, "Your name?", req.Params.Message)
			return &sdk.ElicitResult{Action: "accept", Content: map[string]any{"name": "Ada"}}, nil
		},
		ProgressNotificationHandler: func(_ context.Context, req *sdk.ProgressNotificationClientRequest) {
			mu.Lock()
			progress = append(progress, req.Params.Progress)
			mu.Unlock()
		},
	})
	session, err := c.Connect(sdkCtx(t), &sdk.StreamableClientTransport{Endpoint: srv.URL}, &sdk.ClientSessionOptions{ProtocolVersion: "2026-07-28"})
	require.NoError(t, err)
	t.Cleanup(func() { _ = session.Close() })

	params := &sdk.CallToolParams{Name: "signup", Arguments: map[string]any{}}
	params.SetProgressToken("signup-1")
	res, err := session.CallTool(sdkCtx(t), params)
	require.NoError(t, err)
	require.False(t, res.IsError, "%+v", res.Content)
	assert.Equal(t, "welcome Ada", res.Content[0].(*sdk.TextContent).Text)
	roundsMu.Lock()
	assert.Equal(t, 2, rounds, "one round to ask, one to finish")
	roundsMu.Unlock()
	require.Eventually(t, func() bool { mu.Lock(); defer mu.Unlock(); return len(progress) == 3 }, 5*time.Second, time.Millisecond)
	mu.Lock()
	defer mu.Unlock()
	assert.ElementsMatch(t, []float64{1, 1, 2}, progress, "each round reports its own progress")
}

// mcpSampler answers sampling requests for mark3labs/mcp-go's client.
type mcpgoSampler struct{}

func (mcpgoSampler) CreateMessage(_ context.Context, req mcpgo.CreateMessageRequest) (*mcpgo.CreateMessageResult, error) {
	return &mcpgo.CreateMessageResult{
		SamplingMessage: mcpgo.SamplingMessage{Role: mcpgo.RoleAssistant, Content: mcpgo.NewTextContent("Paris")},
		Model:           "test-model",
	}, nil
}

// mark3labs/mcp-go's client, at its default version (2026-07-28), answers
// a sampling request given as an input-required result by retrying the
// call with its answer and the signed requestState, and receives the call's
// log messages on each round's stream once it declared a level.
func TestMCPGoClientAnswersSamplingAndReceivesLogs(t *testing.T) {
	reg := toolexec.NewRegistry()
	reg.MustAdd(toolexec.Tool{Name: "capital", Description: "asks the client's model", InputSchema: json.RawMessage(`{"type":"object"}`)},
		func(ctx context.Context, _ string, _ map[string]any) ([]toolexec.Content, bool, string, error) {
			_ = toolexec.Log(ctx, toolexec.LogMessage{Level: toolexec.LogInfo, Data: "sampling"})
			res, err := toolexec.Sample(ctx, "", toolexec.CreateMessageRequest{
				Messages:  []toolexec.SamplingMessage{{Role: "user", Content: toolexec.Text("Capital of France?")}},
				MaxTokens: 10,
			})
			if err != nil {
				return nil, false, "", err
			}
			return []toolexec.Content{toolexec.Text("model says " + res.Text())}, false, "", nil
		})
	x := toolexec.New(reg, reg, toolexec.WithAllowExecute(true), toolexec.WithLogger(slog.New(slog.NewTextHandler(io.Discard, nil))))
	srv := httptest.NewServer(mcp.NewHandler(x))
	t.Cleanup(srv.Close)

	tr, err := transport.NewStreamableHTTP(srv.URL)
	require.NoError(t, err)
	c := mcpclient.NewClient(tr, mcpclient.WithSamplingHandler(mcpgoSampler{}))
	t.Cleanup(func() { _ = c.Close() })
	var mu sync.Mutex
	var logs []string
	c.OnNotification(func(n mcpgo.JSONRPCNotification) {
		if n.Method == "notifications/message" {
			mu.Lock()
			logs = append(logs, fmt.Sprint(n.Params.AdditionalFields["data"]))
			mu.Unlock()
		}
	})
	require.NoError(t, c.Start(mcpgoCtx(t)))
	_, err = c.Initialize(mcpgoCtx(t), mcpgo.InitializeRequest{Params: mcpgo.InitializeParams{
		ClientInfo: mcpgo.Implementation{Name: "interop-mcpgo", Version: "1.0.0"},
	}})
	require.NoError(t, err)
	// At 2026-07-28, the client's default, log messages are sent only to a
	// request whose _meta names a level; SetLevel makes every later
	// request carry it.
	require.NoError(t, c.SetLevel(mcpgoCtx(t), mcpgo.SetLevelRequest{Params: mcpgo.SetLevelParams{Level: mcpgo.LoggingLevelInfo}}))
	res, err := mcpgoCall(t, c, "capital", map[string]any{})
	require.NoError(t, err)
	require.False(t, res.IsError, "%+v", res.Content)
	assert.Equal(t, "model says Paris", mcpgoText(t, res))
	// At 2026-07-28 the sampling request is an input-required result, and
	// the tool runs again from the start with the answer: it logs once per
	// round, and each round's stream carries its message.
	require.Eventually(t, func() bool { mu.Lock(); defer mu.Unlock(); return len(logs) == 2 }, 5*time.Second, time.Millisecond)
	mu.Lock()
	defer mu.Unlock()
	assert.Equal(t, []string{"sampling", "sampling"}, logs)
}
