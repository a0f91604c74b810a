package mcp_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolexec/toolexec"
	"github.com/toolexec/toolexec/mcp"
)

// A 2025 call from a client that accepts event streams may stream (log
// messages at the default level, progress, input requests), so it gets a
// stream and a context the stream can cancel, resumable by default. A call
// that streams nothing and never asks for its context's Done channel pays
// only for the stream: one allocation more than the same call from a
// client that takes JSON alone.
func TestACallThatMayStreamButDoesNotCostsOneAllocation(t *testing.T) {
	for _, opts := range [][]mcp.Option{nil, {mcp.WithResumeWindow(-1)}} {
		h := mcp.NewHandler(addExecutor(), opts...)
		allocs := func(accept string) float64 {
			body := strings.NewReader(addCall)
			req := httptest.NewRequest(http.MethodPost, "/mcp", body)
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Accept", accept)
			req.Header.Set("MCP-Protocol-Version", "2025-11-25")
			w := &discardWriter{header: http.Header{}}
			serve := func() {
				body.Reset(addCall)
				req.Body = readCloser{body}
				clear(w.header)
				h.ServeHTTP(w, req)
			}
			serve()
			require.Equal(t, http.StatusOK, w.status)
			// AllocsPerRun counts the whole process's allocations, those of
			// goroutines earlier tests left winding down too; they only
			// add, so the least of a few measurements is the call's own.
			least := testing.AllocsPerRun(100, serve)
			for range 4 {
				least = min(least, testing.AllocsPerRun(100, serve))
			}
			return least
		}
		plain, streamable := allocs("application/json"), allocs("application/json, text/event-stream")
		assert.LessOrEqual(t, streamable, plain+1, "allocations per call: %v from a client that takes JSON alone, %v from one that also takes event streams", plain, streamable)
	}
}

// discardWriter is a ResponseWriter that keeps the status and nothing else.
type discardWriter struct {
	header http.Header
	status int
}

func (w *discardWriter) Header() http.Header         { return w.header }
func (w *discardWriter) Write(p []byte) (int, error) { return len(p), nil }
func (w *discardWriter) WriteHeader(code int)        { w.status = code }

// The context of a call that has streamed nothing ends when its client goes
// away, resumable or not, whether the tool waits on Done or polls Err.
func TestACallThatStreamedNothingIsCancelledWhenItsClientGoesAway(t *testing.T) {
	for _, tt := range []struct {
		name   string
		window time.Duration
		poll   bool
	}{
		{"resumable, waiting on Done", 0, false},
		{"resumable, polling Err", 0, true},
		{"not resumable, waiting on Done", -1, false},
		{"not resumable, polling Err", -1, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			started, canceled := make(chan struct{}), make(chan error, 1)
			reg := toolexec.NewRegistry()
			reg.MustAdd(toolexec.Tool{Name: "long", Description: "waits for its caller to leave"},
				func(ctx context.Context, _ string, _ map[string]any) ([]toolexec.Content, bool, string, error) {
					close(started)
					if tt.poll {
						for ctx.Err() == nil {
							time.Sleep(5 * time.Millisecond)
						}
					} else {
						<-ctx.Done()
					}
					canceled <- ctx.Err()
					return nil, false, "", ctx.Err()
				})
			var opts []mcp.Option
			if tt.window != 0 {
				opts = append(opts, mcp.WithResumeWindow(tt.window)) // 0: the default window, 30 seconds
			}
			srv := httptest.NewServer(mcp.NewHandler(toolexec.New(reg, reg, toolexec.WithAllowExecute(true), toolexec.WithLogger(quietLogger())), opts...))
			defer srv.Close()
			ctx, cancel := context.WithCancel(context.Background())
			done := make(chan struct{})
			go func() {
				defer close(done)
				req, _ := http.NewRequestWithContext(ctx, http.MethodPost, srv.URL, strings.NewReader(callBody("long", `{}`)))
				req.Header.Set("Content-Type", "application/json")
				req.Header.Set("Accept", "application/json, text/event-stream")
				if resp, err := http.DefaultClient.Do(req); err == nil {
					_ = resp.Body.Close()
				}
			}()
			<-started
			cancel()
			<-done
			select {
			case err := <-canceled:
				assert.True(t, errors.Is(err, context.Canceled), "%v", err)
			case <-time.After(10 * time.Second):
				t.Fatal("the tool's context did not end when the client went away")
			}
		})
	}
}

// Once a resumable stream has started, the client going away leaves the
// call running (for the client to resume it), also for a tool that only
// polls Err.
func TestAStartedResumableCallRunsOnWhenItsClientGoesAway(t *testing.T) {
	gone, result := make(chan struct{}), make(chan error, 1)
	reg := toolexec.NewRegistry()
	reg.MustAdd(toolexec.Tool{Name: "long", Description: "outlives its caller"},
		func(ctx context.Context, _ string, _ map[string]any) ([]toolexec.Content, bool, string, error) {
			_ = toolexec.ReportProgress(ctx, toolexec.Progress{Progress: 1})
			<-gone
			time.Sleep(100 * time.Millisecond) // the server sees the connection close
			result <- ctx.Err()
			return nil, false, "", nil
		})
	srv := httptest.NewServer(mcp.NewHandler(toolexec.New(reg, reg, toolexec.WithAllowExecute(true), toolexec.WithLogger(quietLogger()))))
	defer srv.Close()
	ctx, cancel := context.WithCancel(context.Background())
	resp := rpc(t, ctx, srv.URL, callWithMeta("long", `{"progressToken":"p"}`))
	require.Equal(t, "notifications/progress", newEvents(t, resp.Body).next()["method"])
	cancel()
	_ = resp.Body.Close()
	close(gone)
	select {
	case err := <-result:
		assert.NoError(t, err, "the call's context ended although its client may resume it")
	case <-time.After(10 * time.Second):
		t.Fatal("the tool did not finish")
	}
}
