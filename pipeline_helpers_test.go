package toolexec_test

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/toolexec/toolexec"
	"github.com/toolexec/toolexec/internal/testlog"
)

// handlerFunc is the context form of a tool handler.
type handlerFunc = func(ctx context.Context, name string, args map[string]any) ([]toolexec.Content, bool, string, error)

// echoArgs answers with the JSON of its arguments.
func echoArgs(_ context.Context, _ string, args map[string]any) ([]toolexec.Content, bool, string, error) {
	data, err := json.Marshal(args)
	if err != nil {
		return nil, false, "", err
	}
	return []toolexec.Content{toolexec.Text(string(data))}, false, "", nil
}

// textHandler answers with a fixed text.
func textHandler(s string) handlerFunc {
	return func(context.Context, string, map[string]any) ([]toolexec.Content, bool, string, error) {
		return []toolexec.Content{toolexec.Text(s)}, false, "", nil
	}
}

// newExec returns an Executor with execution on, serving tool with h.
func newExec(t *testing.T, tool toolexec.Tool, h handlerFunc, opts ...toolexec.Option) *toolexec.Executor {
	t.Helper()
	reg := toolexec.NewRegistry()
	reg.MustAdd(tool, h)
	return toolexec.New(reg, reg, append([]toolexec.Option{toolexec.WithAllowExecute(true)}, opts...)...)
}

// call runs name with the JSON arguments args through the Go API.
func call(x *toolexec.Executor, name, args string) (*toolexec.CallToolResult, error) {
	return x.Call(context.Background(), toolexec.CallRequest{Name: name, Arguments: json.RawMessage(args)})
}

// requireError asserts err is an *Error of stage and code, and returns it.
func requireError(t *testing.T, err error, stage toolexec.Stage, code toolexec.Code) *toolexec.Error {
	t.Helper()
	require.Error(t, err)
	e, ok := toolexec.AsError(err)
	require.True(t, ok, "want *toolexec.Error, got %T: %v", err, err)
	require.Equal(t, stage, e.Stage, "stage of %v", err)
	require.Equal(t, code, e.Code, "code of %v", err)
	return e
}

// restResponse is a recorded REST answer.
type restResponse struct {
	status int
	header http.Header
	body   map[string]any
	raw    string
}

// restCall POSTs body to /tools/{name}/call on the REST surface of x.
func restCall(t *testing.T, x *toolexec.Executor, name, body string) restResponse {
	t.Helper()
	srv := httptest.NewServer(toolexec.NewHandler(x))
	defer srv.Close()
	resp, err := http.Post(srv.URL+"/tools/"+name+"/call", "application/json", strings.NewReader(body))
	require.NoError(t, err)
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	var m map[string]any
	require.NoError(t, json.Unmarshal(raw, &m), "body: %s", raw)
	return restResponse{status: resp.StatusCode, header: resp.Header, body: m, raw: string(raw)}
}

// resultText is the text of the first content block of a REST result body.
func resultText(t *testing.T, body map[string]any) string {
	t.Helper()
	content, ok := body["content"].([]any)
	require.True(t, ok, "no content in %v", body)
	require.NotEmpty(t, content)
	text, _ := content[0].(map[string]any)["text"].(string)
	return text
}

// logBuffer collects what a slog.Logger writes, safely across goroutines.
type logBuffer = testlog.Buffer

// logRecords returns the JSON log records written to b so far.
func logRecords(t *testing.T, b *logBuffer) []map[string]any {
	t.Helper()
	var out []map[string]any
	for _, line := range strings.Split(strings.TrimSpace(b.String()), "\n") {
		if line == "" {
			continue
		}
		var m map[string]any
		require.NoError(t, json.Unmarshal([]byte(line), &m))
		out = append(out, m)
	}
	return out
}

// find returns the records whose message contains msg.
func findLogs(t *testing.T, b *logBuffer, msg string) []map[string]any {
	t.Helper()
	var out []map[string]any
	for _, r := range logRecords(t, b) {
		if s, _ := r["msg"].(string); strings.Contains(s, msg) {
			out = append(out, r)
		}
	}
	return out
}

// newLogger returns a JSON logger at level writing to a fresh logBuffer.
func newLogger(level slog.Level) (*slog.Logger, *logBuffer) {
	b := new(logBuffer)
	return slog.New(slog.NewJSONHandler(b, &slog.HandlerOptions{Level: level})), b
}

// discard is a logger that writes nothing.
func discard() *slog.Logger { return slog.New(slog.DiscardHandler) }
