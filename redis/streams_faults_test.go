package redis_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolexec/toolexec"
	"github.com/toolexec/toolexec/internal/balancertest"
	"github.com/toolexec/toolexec/internal/ssetest"
	"github.com/toolexec/toolexec/mcp"
	"github.com/toolexec/toolexec/redis/redistest"
)

// startStream sends a 2025-11-25 tools/call of name with a progress
// token to url, reads the stream's first event (its progress), then drops
// the connection, and returns that event.
func startStream(t *testing.T, url, name string) ssetest.Event {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel() // the connection drops
	body := `{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"` + name + `","arguments":{},"_meta":{"progressToken":"p"}}}`
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, strings.NewReader(body))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("MCP-Protocol-Version", "2025-11-25")
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	first := ssetest.NewReader(t, resp.Body).Next()
	require.Equal(t, "notifications/progress", first.Msg["method"])
	require.NotEmpty(t, first.ID)
	return first
}

// resumeStream sends GET with Last-Event-ID to url, asking again while
// the answer is 503 (the store does not answer yet), and returns the
// stream; ctx bounds it all.
func resumeStream(t *testing.T, ctx context.Context, url, lastEventID string) *ssetest.Reader {
	t.Helper()
	for {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		require.NoError(t, err)
		req.Header.Set("Accept", "text/event-stream")
		req.Header.Set("Last-Event-ID", lastEventID)
		resp, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		if resp.StatusCode == http.StatusServiceUnavailable {
			resp.Body.Close()
			time.Sleep(100 * time.Millisecond)
			continue
		}
		t.Cleanup(func() { resp.Body.Close() })
		require.Equal(t, http.StatusOK, resp.StatusCode)
		return ssetest.NewReader(t, resp.Body)
	}
}

// A 2025 stream resumed on another replica after the replica running its
// call was killed ends with the documented JSON-RPC error, with the real
// timings (a 30 s resume window): the reader says so before the stream's
// log expires.
func TestAResumedStreamOfAKilledReplicaEndsWithTheDocumentedError(t *testing.T) {
	t.Parallel()
	srv := redistest.New(t)
	prefix := t.Name() + ":"
	doomed, cmd := replicaProcess(t, srv, prefix)
	survivor := mcpReplica(t, srv, prefix, taskRegistry(nil)) // mcp.DefaultResumeWindow
	lb := balancertest.New(t, strings.TrimSuffix(strings.TrimPrefix(doomed, "http://"), "/"), strings.TrimPrefix(survivor.URL, "http://"))

	first := startStream(t, doomed, "stream")
	require.NoError(t, cmd.Process.Kill()) // the replica running the call dies
	_ = cmd.Wait()

	ctx, cancel := context.WithTimeout(context.Background(), mcp.DefaultResumeWindow+10*time.Second)
	defer cancel()
	rd := resumeStream(t, ctx, lb.URL()+"/", first.ID)
	ev := rd.Next()
	require.NotNil(t, ev.Msg, "the stream ended without a word")
	assert.Equal(t, 5.0, ev.Msg["id"])
	assert.Equal(t, map[string]any{"code": -32603.0, "message": "Internal error: the server running the call stopped before it answered"}, ev.Msg["error"])
}

// A client that resumes, after a Redis pause, a stream whose call ended
// during it (its last events and its response could not be logged) reads
// the call's end at once, not a stream that waits for events that will
// never come.
func TestAStreamResumedAfterARedisPauseReadsTheCallsEnd(t *testing.T) {
	t.Parallel()
	srv := redistest.New(t)
	step, returned := make(chan struct{}), make(chan struct{})
	reg := toolexec.NewRegistry()
	reg.MustAdd(toolexec.Tool{Name: "steps"}, func(ctx context.Context, _ string, _ map[string]any) ([]toolexec.Content, bool, string, error) {
		defer close(returned)
		_ = toolexec.ReportProgress(ctx, toolexec.Progress{Progress: 1})
		<-step
		_ = toolexec.ReportProgress(ctx, toolexec.Progress{Progress: 2}) // the store does not take it
		return []toolexec.Content{toolexec.Text("finished")}, false, "", nil
	})
	x := toolexec.New(reg, reg, toolexec.WithAllowExecute(true), toolexec.WithLogger(discardLogger()),
		toolexec.WithStore(open(t, srv, t.Name()+":")))
	s := httptest.NewServer(mcp.NewHandler(x))
	t.Cleanup(s.Close)

	first := startStream(t, s.URL, "steps")
	time.Sleep(100 * time.Millisecond) // the server sees the client go
	srv.Pause()
	close(step)
	<-returned // the call ended while Redis did not answer
	srv.Resume()

	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second) // not the resume window's 30 s
	defer cancel()
	rd := resumeStream(t, ctx, s.URL, first.ID)
	ev := rd.Next()
	if ev.Msg["method"] == "notifications/progress" { // Redis may have run the append its caller gave up on
		ev = rd.Next()
	}
	require.NotNil(t, ev.Msg, "the stream ended, or waited, without the call's end")
	assert.Equal(t, 5.0, ev.Msg["id"], "the call's response: %v", ev.Msg)
}
