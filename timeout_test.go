package toolexec_test

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolexec/toolexec"
)

// cooperative waits for its context to end and returns its error, as a
// well-behaved handler does.
func cooperative(ctx context.Context, _ string, _ map[string]any) ([]toolexec.Content, bool, string, error) {
	<-ctx.Done()
	return nil, false, "", ctx.Err()
}

// stubborn returns a handler that ignores its context and only returns once
// release is closed; entered is closed when it starts.
func stubborn(entered chan<- struct{}, release <-chan struct{}) handlerFunc {
	return func(context.Context, string, map[string]any) ([]toolexec.Content, bool, string, error) {
		close(entered)
		<-release
		return []toolexec.Content{toolexec.Text("late")}, false, "", nil
	}
}

func TestTimeoutEndsCooperativeHandlerAsTimeoutError(t *testing.T) {
	handlerErr := make(chan error, 1)
	h := func(ctx context.Context, name string, args map[string]any) ([]toolexec.Content, bool, string, error) {
		c, isErr, id, err := cooperative(ctx, name, args)
		handlerErr <- err
		return c, isErr, id, err
	}
	x := newExec(t, toolexec.Tool{Name: "slow"}, h, toolexec.WithTimeout(10*time.Millisecond))

	res, err := call(x, "slow", `{}`)

	assert.Nil(t, res)
	e := requireError(t, err, toolexec.StageTimeout, toolexec.CodeTimeout)
	assert.Equal(t, "Tool slow timed out after 10ms", e.Message)
	assert.ErrorIs(t, err, context.DeadlineExceeded)
	assert.ErrorIs(t, <-handlerErr, context.DeadlineExceeded, "the handler's context is cancelled at the deadline")
}

func TestTimeoutEndsNonCooperativeHandlerAndLogsIt(t *testing.T) {
	logger, logs := newLogger(slog.LevelWarn)
	entered, release := make(chan struct{}), make(chan struct{})
	x := newExec(t, toolexec.Tool{Name: "stuck"}, stubborn(entered, release),
		toolexec.WithTimeout(10*time.Millisecond), toolexec.WithLogger(logger))

	res, err := call(x, "stuck", `{}`) // returns although the handler is still blocked

	<-entered
	assert.Nil(t, res)
	requireError(t, err, toolexec.StageTimeout, toolexec.CodeTimeout)
	abandoned := findLogs(t, logs, "left to finish")
	require.Len(t, abandoned, 1)
	assert.Equal(t, "WARN", abandoned[0]["level"])
	assert.Equal(t, "stuck", abandoned[0]["tool"])
	assert.Empty(t, findLogs(t, logs, "finished in the background"), "the handler has not returned yet")

	close(release)
	require.Eventually(t, func() bool { return len(findLogs(t, logs, "finished in the background")) == 1 },
		5*time.Second, time.Millisecond, "the abandoned handler's end is logged")
}

func TestTimeoutOverRESTIsToolError(t *testing.T) {
	x := newExec(t, toolexec.Tool{Name: "slow"}, cooperative, toolexec.WithTimeout(10*time.Millisecond))

	r := restCall(t, x, "slow", `{}`)

	assert.Equal(t, http.StatusInternalServerError, r.status)
	assert.Equal(t, true, r.body["isError"])
	assert.Equal(t, "Tool slow timed out after 10ms", resultText(t, r.body))
}

func TestTimeoutLetsCallsWithinTheDeadlineThrough(t *testing.T) {
	x := newExec(t, toolexec.Tool{Name: "fast"}, textHandler("done"), toolexec.WithTimeout(time.Hour))

	res, err := call(x, "fast", `{}`)

	require.NoError(t, err)
	assert.Equal(t, "done", res.Text())
}

// deadlineOf answers with the time left until its context's deadline, or
// "none".
func deadlineOf(got chan<- time.Duration) handlerFunc {
	return func(ctx context.Context, _ string, _ map[string]any) ([]toolexec.Content, bool, string, error) {
		d, ok := ctx.Deadline()
		if !ok {
			got <- -1
		} else {
			got <- time.Until(d)
		}
		return nil, false, "", nil
	}
}

func TestToolTimeoutReplacesExecutorTimeout(t *testing.T) {
	tests := []struct {
		name            string
		global, perTool time.Duration
		check           func(t *testing.T, left time.Duration)
	}{
		{"shorter tool timeout applies", time.Hour, time.Minute, func(t *testing.T, left time.Duration) {
			assert.Greater(t, left, time.Duration(0))
			assert.LessOrEqual(t, left, time.Minute)
		}},
		{"longer tool timeout replaces, not nests in, the shorter global one", time.Minute, time.Hour, func(t *testing.T, left time.Duration) {
			assert.Greater(t, left, 30*time.Minute)
		}},
		{"negative tool timeout turns it off", time.Minute, -1, func(t *testing.T, left time.Duration) {
			assert.Equal(t, time.Duration(-1), left, "no deadline")
		}},
		{"zero tool timeout uses the global one", time.Minute, 0, func(t *testing.T, left time.Duration) {
			assert.Greater(t, left, time.Duration(0))
			assert.LessOrEqual(t, left, time.Minute)
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := make(chan time.Duration, 1)
			tool := toolexec.Tool{Name: "t", Options: toolexec.ToolOptions{Timeout: tt.perTool}}
			x := newExec(t, tool, deadlineOf(got), toolexec.WithTimeout(tt.global))

			_, err := call(x, "t", `{}`)

			require.NoError(t, err)
			tt.check(t, <-got)
		})
	}
}

func TestNoTimeoutByDefault(t *testing.T) {
	got := make(chan time.Duration, 1)
	x := newExec(t, toolexec.Tool{Name: "t"}, deadlineOf(got))

	_, err := call(x, "t", `{}`)

	require.NoError(t, err)
	assert.Equal(t, time.Duration(-1), <-got)
}

func TestTimeoutRecoversPanicOfAbandonedHandler(t *testing.T) {
	logger, logs := newLogger(slog.LevelWarn)
	entered, release := make(chan struct{}), make(chan struct{})
	h := func(context.Context, string, map[string]any) ([]toolexec.Content, bool, string, error) {
		close(entered)
		<-release
		panic("boom after the deadline")
	}
	x := newExec(t, toolexec.Tool{Name: "p"}, h, toolexec.WithTimeout(time.Millisecond), toolexec.WithLogger(logger))

	_, err := call(x, "p", `{}`)
	<-entered
	requireError(t, err, toolexec.StageTimeout, toolexec.CodeTimeout)

	close(release) // the panic happens on the abandoned goroutine; the test binary must survive it
	require.Eventually(t, func() bool { return len(findLogs(t, logs, "finished in the background")) == 1 }, 5*time.Second, time.Millisecond)
	panics := findLogs(t, logs, "tool panicked")
	require.Len(t, panics, 1)
	assert.Equal(t, "boom after the deadline", panics[0]["panic"])
	assert.Equal(t, "ERROR", panics[0]["level"])
}

func TestTimeoutRecoversPanicOfAbandonedInterceptor(t *testing.T) {
	logger, logs := newLogger(slog.LevelWarn)
	entered, release := make(chan struct{}), make(chan struct{})
	panicky := func(next toolexec.CallFunc) toolexec.CallFunc {
		return func(ctx context.Context, c *toolexec.Call) (*toolexec.CallToolResult, error) {
			close(entered)
			<-release
			panic("interceptor boom")
		}
	}
	tool := toolexec.Tool{Name: "p", Options: toolexec.ToolOptions{Interceptors: []toolexec.Interceptor{panicky}}}
	x := newExec(t, tool, textHandler("never"), toolexec.WithTimeout(time.Millisecond), toolexec.WithLogger(logger))

	_, err := call(x, "p", `{}`)
	<-entered
	requireError(t, err, toolexec.StageTimeout, toolexec.CodeTimeout)

	close(release)
	require.Eventually(t, func() bool { return len(findLogs(t, logs, "finished in the background")) == 1 }, 5*time.Second, time.Millisecond)
	panics := findLogs(t, logs, "interceptor panicked")
	require.Len(t, panics, 1)
	assert.Equal(t, "interceptor boom", panics[0]["panic"])
}

func TestTimeoutReportsCallerCancellation(t *testing.T) {
	entered, release := make(chan struct{}), make(chan struct{})
	defer close(release)
	x := newExec(t, toolexec.Tool{Name: "stuck"}, stubborn(entered, release), toolexec.WithTimeout(time.Hour))
	ctx, cancel := context.WithCancel(context.Background())
	go func() { <-entered; cancel() }()

	_, err := x.Call(ctx, toolexec.CallRequest{Name: "stuck"})

	requireError(t, err, toolexec.StageTimeout, toolexec.CodeCanceled)
	assert.True(t, errors.Is(err, context.Canceled))
}

func TestTimeoutReportsCallerDeadlineAsTimeout(t *testing.T) {
	x := newExec(t, toolexec.Tool{Name: "slow"}, cooperative, toolexec.WithTimeout(time.Hour))
	ctx, cancel := context.WithTimeout(context.Background(), time.Millisecond)
	defer cancel()

	_, err := x.Call(ctx, toolexec.CallRequest{Name: "slow"})

	e := requireError(t, err, toolexec.StageTimeout, toolexec.CodeTimeout)
	assert.Contains(t, e.Message, "timed out")
}

func TestHandlerGivingUpOnItsContextWithoutATimeout(t *testing.T) {
	x := newExec(t, toolexec.Tool{Name: "slow"}, cooperative)

	t.Run("caller's deadline: a timeout", func(t *testing.T) {
		ctx, cancel := context.WithTimeout(context.Background(), time.Millisecond)
		defer cancel()
		_, err := x.Call(ctx, toolexec.CallRequest{Name: "slow"})
		e := requireError(t, err, toolexec.StageTimeout, toolexec.CodeTimeout)
		assert.Equal(t, "Tool slow timed out: the caller's deadline passed", e.Message)
	})
	t.Run("caller went away: canceled", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		_, err := x.Call(ctx, toolexec.CallRequest{Name: "slow"})
		requireError(t, err, toolexec.StageExecute, toolexec.CodeCanceled)
	})
}

func TestACanceledCallIsNotLoggedAsTimedOut(t *testing.T) {
	logger, logs := newLogger(slog.LevelDebug)
	entered, release := make(chan struct{}), make(chan struct{})
	x := newExec(t, toolexec.Tool{Name: "stuck"}, stubborn(entered, release),
		toolexec.WithTimeout(time.Hour), toolexec.WithLogger(logger))

	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() {
		_, err := x.Call(ctx, toolexec.CallRequest{Name: "stuck", Arguments: []byte(`{}`)})
		errc <- err
	}()
	<-entered
	cancel()
	requireError(t, <-errc, toolexec.StageTimeout, toolexec.CodeCanceled)
	close(release)
	require.Eventually(t, func() bool { return len(findLogs(t, logs, "canceled call finished in the background")) == 1 },
		5*time.Second, time.Millisecond, "the handler's end is logged, as a cancellation")
	abandoned := findLogs(t, logs, "call canceled; its handler is left to finish")
	require.Len(t, abandoned, 1)
	assert.Equal(t, "DEBUG", abandoned[0]["level"], "a caller that went away is no warning")
	assert.Empty(t, findLogs(t, logs, "deadline"), "nor said to be a timeout")
	assert.Empty(t, findLogs(t, logs, "timed-out"))
}
