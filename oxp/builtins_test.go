package oxp_test

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolexec/toolexec"
	"github.com/toolexec/toolexec/internal/observetest"
)

// The pipeline's built-in interceptors act on OXP calls exactly as on the
// other surfaces; these tests check how each outcome reads over OXP.

func TestConcurrencyLimitRefusalIsRetryableOverOXP(t *testing.T) {
	release := make(chan struct{})
	started := make(chan struct{}, 1)
	reg := &toolexec.Registry{}
	require.NoError(t, reg.Add(toolexec.Tool{Name: "busy", Options: toolexec.ToolOptions{
		ConcurrencyLimit: &toolexec.ConcurrencyLimit{Max: 1, FailFast: true, RetryAfter: 1500 * time.Millisecond},
	}}, func(context.Context, string, map[string]any) ([]toolexec.Content, bool, string, error) {
		started <- struct{}{}
		<-release
		return []toolexec.Content{toolexec.Text("done")}, false, "", nil
	}))
	h := newHandler(t, reg, nil)

	first := make(chan map[string]any, 1)
	go func() { first <- callBody(t, call(h, `{"tool_id":"Tools.busy"}`)) }()
	<-started

	m := callBody(t, call(h, `{"call_id":"c2","tool_id":"Tools.busy"}`))
	assert.Equal(t, false, m["success"])
	e := m["error"].(map[string]any)
	assert.Equal(t, true, e["can_retry"])
	assert.EqualValues(t, 1500, e["retry_after_ms"])
	assert.NotEmpty(t, e["message"])

	close(release)
	assert.Equal(t, true, (<-first)["success"], "the call holding the slot still succeeds")
}

func TestTimeoutIsAToolFailureOverOXP(t *testing.T) {
	reg := &toolexec.Registry{}
	unblock := make(chan struct{})
	t.Cleanup(func() { close(unblock) })
	require.NoError(t, reg.Add(toolexec.Tool{Name: "stuck", Options: toolexec.ToolOptions{Timeout: 20 * time.Millisecond}},
		func(context.Context, string, map[string]any) ([]toolexec.Content, bool, string, error) {
			<-unblock // ignores its context on purpose
			return nil, false, "", nil
		}))
	m := callBody(t, call(newHandler(t, reg, nil), `{"tool_id":"Tools.stuck"}`))
	assert.Equal(t, false, m["success"])
	assert.Contains(t, m["error"].(map[string]any)["message"], "timed out")
}

func TestTransformFailureIsAToolFailureOverOXP(t *testing.T) {
	reg := seedRegistry(t)
	fail := func(context.Context, *toolexec.Call) (map[string]any, error) {
		return nil, errors.New("rewrite failed")
	}
	m := callBody(t, call(newHandler(t, reg, []toolexec.Option{toolexec.WithInputTransforms(fail)}),
		`{"tool_id":"Calculator.Add","input":{"a":1,"b":2}}`))
	assert.Equal(t, false, m["success"])
	assert.Contains(t, m["error"].(map[string]any)["message"], "rewrite failed")
}

func TestCacheHitSkipsTheHandlerOverOXP(t *testing.T) {
	var runs atomic.Int64
	reg := &toolexec.Registry{}
	require.NoError(t, reg.Add(toolexec.Tool{Name: "lookup", Options: toolexec.ToolOptions{Cache: true, CacheShared: true}},
		func(_ context.Context, _ string, args map[string]any) ([]toolexec.Content, bool, string, error) {
			runs.Add(1)
			return []toolexec.Content{toolexec.Text("value for " + args["k"].(string))}, false, "", nil
		}))
	h := newHandler(t, reg, nil)
	for i := 0; i < 3; i++ {
		m := callBody(t, call(h, `{"tool_id":"Tools.lookup","input":{"k":"x"}}`))
		assert.Equal(t, "value for x", m["value"])
	}
	assert.EqualValues(t, 1, runs.Load(), "two of three calls were answered by the cache")
	callBody(t, call(h, `{"tool_id":"Tools.lookup","input":{"k":"y"}}`))
	assert.EqualValues(t, 2, runs.Load(), "other arguments miss")
}

func TestCallsNameTheOXPSurface(t *testing.T) {
	rec := &observetest.Recorder{}
	reg := seedRegistry(t)
	callBody(t, call(newHandler(t, reg, []toolexec.Option{toolexec.WithObserver(rec)}),
		`{"tool_id":"Calculator.Add","input":{"a":1,"b":2}}`))

	calls := rec.Calls()
	require.Len(t, calls, 1)
	assert.Equal(t, toolexec.SurfaceOXP, calls[0].Info.Surface)
	require.NotNil(t, calls[0].Tool)
	assert.Equal(t, "Calculator.Add", calls[0].Tool.Name)
}
