package toolexec_test

import (
	"context"
	"net/http"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolexec/toolexec"
)

// gate is a handler whose calls block until released, reporting each start.
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

// multiExec serves several tools with one handler.
func multiExec(t *testing.T, h handlerFunc, tools []toolexec.Tool, opts ...toolexec.Option) *toolexec.Executor {
	t.Helper()
	reg := toolexec.NewRegistry()
	for _, tool := range tools {
		reg.MustAdd(tool, h)
	}
	return toolexec.New(reg, reg, append([]toolexec.Option{toolexec.WithAllowExecute(true)}, opts...)...)
}

// newExecWith is newExec with opts before the rest.
func newExecWith(t *testing.T, opts []toolexec.Option, tool toolexec.Tool, h handlerFunc, more ...toolexec.Option) *toolexec.Executor {
	t.Helper()
	return newExec(t, tool, h, append(append([]toolexec.Option(nil), opts...), more...)...)
}

// multiExecWith is multiExec with opts before the rest.
func multiExecWith(t *testing.T, opts []toolexec.Option, h handlerFunc, tools []toolexec.Tool, more ...toolexec.Option) *toolexec.Executor {
	t.Helper()
	return multiExec(t, h, tools, append(append([]toolexec.Option(nil), opts...), more...)...)
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

func TestLimitFailFastRefusesAtOnceWithRetryAfter(t *testing.T) {
	storeModes(t, func(t *testing.T, opts ...toolexec.Option) {
		g := newGate()
		x := newExecWith(t, opts, toolexec.Tool{Name: "busy"}, g.handle,
			toolexec.WithConcurrencyLimit(toolexec.ConcurrencyLimit{Max: 1, FailFast: true, RetryAfter: 3 * time.Second}))
		first := background(x, "busy")
		<-g.entered

		res, err := call(x, "busy", `{}`)

		assert.Nil(t, res)
		e := requireError(t, err, toolexec.StageLimit, toolexec.CodeUnavailable)
		assert.Equal(t, 3*time.Second, e.RetryAfter)
		assert.Contains(t, e.Message, "busy")

		close(g.release)
		require.NoError(t, <-first)
		_, err = call(x, "busy", `{}`)
		assert.NoError(t, err, "the slot is free again once the first call ends")
	})
}

func TestLimitRefusalOverRESTIs503WithRetryAfter(t *testing.T) {
	g := newGate()
	x := newExec(t, toolexec.Tool{Name: "busy"}, g.handle,
		toolexec.WithConcurrencyLimit(toolexec.ConcurrencyLimit{Max: 1, FailFast: true, RetryAfter: 2500 * time.Millisecond}))
	first := background(x, "busy")
	<-g.entered
	defer func() { close(g.release); <-first }()

	r := restCall(t, x, "busy", `{}`)

	assert.Equal(t, http.StatusServiceUnavailable, r.status)
	assert.Equal(t, "3", r.header.Get("Retry-After"), "rounded up to whole seconds")
	assert.Equal(t, true, r.body["isError"])
	assert.Contains(t, resultText(t, r.body), "Try again later")
}

func TestLimitRefusalDefaultsRetryAfter(t *testing.T) {
	storeModes(t, func(t *testing.T, opts ...toolexec.Option) {
		g := newGate()
		x := newExecWith(t, opts, toolexec.Tool{Name: "busy"}, g.handle,
			toolexec.WithConcurrencyLimit(toolexec.ConcurrencyLimit{Max: 1, FailFast: true}))
		first := background(x, "busy")
		<-g.entered
		defer func() { close(g.release); <-first }()

		_, err := call(x, "busy", `{}`)

		e := requireError(t, err, toolexec.StageLimit, toolexec.CodeUnavailable)
		assert.Equal(t, toolexec.DefaultRetryAfter, e.RetryAfter)
	})
}

func TestLimitMakesCallsWaitForASlot(t *testing.T) {
	storeModes(t, func(t *testing.T, opts ...toolexec.Option) {
		g := newGate()
		x := newExecWith(t, opts, toolexec.Tool{Name: "q"}, g.handle, toolexec.WithConcurrencyLimit(toolexec.ConcurrencyLimit{Max: 1}))
		first := background(x, "q")
		<-g.entered

		second := background(x, "q")
		select {
		case <-g.entered:
			t.Fatal("a second call ran while the only slot was taken")
		case err := <-second:
			t.Fatalf("the second call ended instead of waiting: %v", err)
		default:
		}

		close(g.release)
		require.NoError(t, <-first)
		require.NoError(t, <-second, "the waiting call runs once the slot frees")
		assert.Len(t, g.entered, 1, "the second call entered the handler once")
	})
}

func TestLimitNeverRunsMoreThanMax(t *testing.T) {
	storeModes(t, func(t *testing.T, opts ...toolexec.Option) {
		var running, peak atomic.Int32
		entered := make(chan struct{}, 20)
		release := make(chan struct{})
		h := func(context.Context, string, map[string]any) ([]toolexec.Content, bool, string, error) {
			n := running.Add(1)
			for p := peak.Load(); n > p && !peak.CompareAndSwap(p, n); p = peak.Load() {
			}
			entered <- struct{}{}
			<-release
			running.Add(-1)
			return nil, false, "", nil
		}
		x := newExecWith(t, opts, toolexec.Tool{Name: "n"}, h, toolexec.WithConcurrencyLimit(toolexec.ConcurrencyLimit{Max: 2}))

		var wg sync.WaitGroup
		errs := make(chan error, 20)
		for range 20 {
			wg.Go(func() {
				_, err := call(x, "n", `{}`)
				errs <- err
			})
		}
		<-entered
		<-entered // the limit admits two at once...
		select {
		case <-entered:
			t.Fatal("a third call entered while two held the slots")
		case <-time.After(50 * time.Millisecond): // ...and no third while they run
		}
		close(release)
		wg.Wait()
		close(errs)

		for err := range errs {
			require.NoError(t, err, "every call waits its turn and runs")
		}
		assert.Equal(t, int32(2), peak.Load(), "exactly Max ran at once: not more, and not fewer")
	})
}

func TestLimitWaitEndsWithTheCallersContext(t *testing.T) {
	storeModes(t, func(t *testing.T, opts ...toolexec.Option) {
		g := newGate()
		x := newExecWith(t, opts, toolexec.Tool{Name: "q"}, g.handle, toolexec.WithConcurrencyLimit(toolexec.ConcurrencyLimit{Max: 1}))
		first := background(x, "q")
		<-g.entered
		defer func() { close(g.release); <-first }()

		t.Run("deadline: unavailable, with a retry hint", func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), time.Millisecond)
			defer cancel()
			_, err := x.Call(ctx, toolexec.CallRequest{Name: "q"})
			e := requireError(t, err, toolexec.StageLimit, toolexec.CodeUnavailable)
			assert.Equal(t, toolexec.DefaultRetryAfter, e.RetryAfter)
		})
		t.Run("cancellation: canceled", func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			cancel()
			_, err := x.Call(ctx, toolexec.CallRequest{Name: "q"})
			requireError(t, err, toolexec.StageLimit, toolexec.CodeCanceled)
		})
		assert.Empty(t, g.entered, "no waiting call reached the handler")
	})
}

func TestLimitWaitCountsAgainstTheTimeout(t *testing.T) {
	storeModes(t, func(t *testing.T, opts ...toolexec.Option) {
		g := newGate()
		defer close(g.release)
		x := newExecWith(t, opts, toolexec.Tool{Name: "q"}, g.handle,
			toolexec.WithConcurrencyLimit(toolexec.ConcurrencyLimit{Max: 1}), toolexec.WithTimeout(5*time.Millisecond))
		held := background(x, "q")
		<-g.entered // the only slot is held until release: the call times out, its handler keeps the slot
		requireError(t, <-held, toolexec.StageTimeout, toolexec.CodeTimeout)

		_, err := call(x, "q", `{}`) // waits for the slot until its timeout passes

		requireError(t, err, toolexec.StageTimeout, toolexec.CodeTimeout)
		assert.Empty(t, g.entered, "the waiting call never reached the handler")
	})
}

func TestToolLimitReplacesExecutorLimit(t *testing.T) {
	storeModes(t, func(t *testing.T, opts ...toolexec.Option) {
		g := newGate()
		tools := []toolexec.Tool{
			{Name: "shared"},
			{Name: "own", Options: toolexec.ToolOptions{ConcurrencyLimit: &toolexec.ConcurrencyLimit{Max: 2, FailFast: true}}},
			{Name: "free", Options: toolexec.ToolOptions{ConcurrencyLimit: &toolexec.ConcurrencyLimit{Max: 0}}},
		}
		x := multiExecWith(t, opts, g.handle, tools, toolexec.WithConcurrencyLimit(toolexec.ConcurrencyLimit{Max: 1, FailFast: true}))
		var pending []<-chan error
		start := func(name string) {
			pending = append(pending, background(x, name))
			assert.Equal(t, name, <-g.entered)
		}
		defer func() {
			close(g.release)
			for _, p := range pending {
				assert.NoError(t, <-p)
			}
		}()

		start("shared") // the Executor's one slot is taken
		_, err := call(x, "shared", `{}`)
		requireError(t, err, toolexec.StageLimit, toolexec.CodeUnavailable)

		start("own") // "own" has two slots of its own, not counted against the Executor's
		start("own")
		_, err = call(x, "own", `{}`)
		requireError(t, err, toolexec.StageLimit, toolexec.CodeUnavailable)

		start("free") // Max 0: unlimited, whatever the Executor's limit
		start("free")
		start("free")
	})
}

func TestLimitSlotIsHeldUntilATimedOutHandlerReturns(t *testing.T) {
	storeModes(t, func(t *testing.T, opts ...toolexec.Option) {
		g := newGate()
		x := newExecWith(t, opts, toolexec.Tool{Name: "q"}, g.handle,
			// The timeout is long enough that a loaded machine still brings the
			// second call to the limit check before its own deadline.
			toolexec.WithConcurrencyLimit(toolexec.ConcurrencyLimit{Max: 1, FailFast: true}), toolexec.WithTimeout(250*time.Millisecond))

		_, err := call(x, "q", `{}`)
		requireError(t, err, toolexec.StageTimeout, toolexec.CodeTimeout)
		<-g.entered

		_, err = call(x, "q", `{}`)
		requireError(t, err, toolexec.StageLimit, toolexec.CodeUnavailable)

		close(g.release)
		require.Eventually(t, func() bool {
			_, err := call(x, "q", `{}`)
			return err == nil
		}, 5*time.Second, time.Millisecond, "the slot frees once the abandoned handler returns")
	})
}
