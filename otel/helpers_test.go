package toolexecotel_test

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
	toolexecotel "github.com/toolexec/toolexec/otel"
)

// observe is the option that has an Executor observed by an Observer made
// with opts.
func observe(opts ...toolexecotel.Option) toolexec.Option {
	return toolexec.WithObserver(toolexecotel.NewObserver(opts...))
}

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
	return multiExec(t, h, []toolexec.Tool{tool}, opts...)
}

// multiExec serves several tools with one handler.
func multiExec(t *testing.T, h handlerFunc, tools []toolexec.Tool, opts ...toolexec.Option) *toolexec.Executor {
	t.Helper()
	reg := toolexec.NewRegistry()
	for _, tool := range tools {
		reg.MustAdd(tool, h)
	}
	return toolexec.New(reg, reg, append([]toolexec.Option{toolexec.WithAllowExecute(true)}, opts...)...)
}

// call runs name with the JSON arguments args through the Go API.
func call(x *toolexec.Executor, name, args string) (*toolexec.CallToolResult, error) {
	return x.Call(context.Background(), toolexec.CallRequest{Name: name, Arguments: json.RawMessage(args)})
}

// background starts a call and returns where its error will arrive.
func background(x *toolexec.Executor, name string) <-chan error {
	done := make(chan error, 1)
	go func() {
		_, err := call(x, name, `{}`)
		done <- err
	}()
	return done
}

// gate holds every call until released.
type gate struct {
	entered chan string // the tool name of each call that starts
	release chan struct{}
}

func newGate() *gate {
	return &gate{entered: make(chan string, 64), release: make(chan struct{})}
}

func (g *gate) handle(_ context.Context, name string, _ map[string]any) ([]toolexec.Content, bool, string, error) {
	g.entered <- name
	<-g.release
	return []toolexec.Content{toolexec.Text("ok")}, false, "", nil
}

func cachedTool(name string) toolexec.Tool {
	return toolexec.Tool{Name: name, Options: toolexec.ToolOptions{Cache: true, CacheShared: true}}
}

func discard() *slog.Logger { return slog.New(slog.DiscardHandler) }

func discardLogger() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

// cooperative waits for its context to end, then returns its error.
func cooperative(ctx context.Context, _ string, _ map[string]any) ([]toolexec.Content, bool, string, error) {
	<-ctx.Done()
	return nil, false, "", ctx.Err()
}

// restResponse is a REST call's answer.
type restResponse struct {
	status int
	header http.Header
	body   map[string]any
	raw    string
}

// restCall posts body to the REST surface's call route of name.
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
