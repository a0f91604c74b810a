package toolexec_test

import (
	"context"
	"errors"
	"net/http"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolexec/toolexec"
)

// counting is a handler that counts its calls and answers with the call
// number, structured content and _meta, so that every part of a result can
// be checked.
type counting struct{ n atomic.Int32 }

func (c *counting) handle(ctx context.Context, name string, args map[string]any) ([]toolexec.Content, bool, string, error) {
	n := c.n.Add(1)
	return []toolexec.Content{toolexec.Text("call " + string(rune('0'+n)))}, false, "trace-" + string(rune('0'+n)), nil
}

func cachedTool(name string) toolexec.Tool {
	return toolexec.Tool{Name: name, Options: toolexec.ToolOptions{Cache: true, CacheShared: true}}
}

func TestCacheHitDoesNotCallTheHandler(t *testing.T) {
	var c counting
	x := newExec(t, cachedTool("c"), c.handle)

	first, err := call(x, "c", `{"a":1,"b":[1,2]}`)
	require.NoError(t, err)
	second, err := call(x, "c", `{ "b":[1, 2.0], "a":1.0 }`) // same arguments, other key order and spelling

	require.NoError(t, err)
	assert.Equal(t, int32(1), c.n.Load(), "the handler ran once")
	assert.Equal(t, "call 1", second.Text())
	assert.Equal(t, "trace-1", first.TraceID())
	assert.Empty(t, second.TraceID(), "a hit never replays the trace id of the call that stored it")
	first.SetTraceID("")
	assert.Equal(t, first, second)
}

func TestCacheMissesOnOtherArgumentsAndVersions(t *testing.T) {
	var c counting
	reg := toolexec.NewRegistry()
	v1, v2 := cachedTool("c"), cachedTool("c")
	v1.Version, v2.Version = "1.0.0", "2.0.0"
	reg.MustAdd(v1, c.handle)
	reg.MustAdd(v2, c.handle)
	x := toolexec.New(reg, reg, toolexec.WithAllowExecute(true))
	run := func(version, args string) string {
		res, err := x.Call(context.Background(), toolexec.CallRequest{Name: "c", Version: version, Arguments: []byte(args)})
		require.NoError(t, err)
		return res.Text()
	}

	assert.Equal(t, "call 1", run("1.0.0", `{"a":1}`))
	assert.Equal(t, "call 2", run("1.0.0", `{"a":2}`), "other arguments: a miss")
	assert.Equal(t, "call 3", run("2.0.0", `{"a":1}`), "other version: a miss")
	assert.Equal(t, "call 1", run("1.0.0", `{"a":1}`))
	assert.Equal(t, "call 3", run("2.0.0", `{"a":1}`))
	assert.Equal(t, int32(3), c.n.Load())
}

func TestCacheIsOptIn(t *testing.T) {
	var c counting
	x := newExec(t, toolexec.Tool{Name: "plain"}, c.handle)

	_, err := call(x, "plain", `{}`)
	require.NoError(t, err)
	res, err := call(x, "plain", `{}`)

	require.NoError(t, err)
	assert.Equal(t, "call 2", res.Text())
}

func TestCacheDoesNotStoreErrorsOrIsErrorResults(t *testing.T) {
	var n atomic.Int32
	h := func(_ context.Context, name string, _ map[string]any) ([]toolexec.Content, bool, string, error) {
		n.Add(1)
		if name == "fails" {
			return nil, false, "", errors.New("down")
		}
		return []toolexec.Content{toolexec.Text("not found")}, true, "", nil
	}
	x := multiExec(t, h, []toolexec.Tool{cachedTool("fails"), cachedTool("iserr")})

	for range 2 {
		_, err := call(x, "fails", `{}`)
		requireError(t, err, toolexec.StageExecute, toolexec.CodeToolError)
		res, err := call(x, "iserr", `{}`)
		require.NoError(t, err)
		assert.True(t, res.IsError)
	}

	assert.Equal(t, int32(4), n.Load(), "every call ran the handler")
}

func TestCacheHandsOutCopiesCallersCannotModify(t *testing.T) {
	var n atomic.Int32
	h := func(context.Context, string, map[string]any) ([]toolexec.Content, bool, string, error) {
		n.Add(1)
		return []toolexec.Content{toolexec.Text("original")}, false, "", nil
	}
	structured := func(_ context.Context, _ *toolexec.Call, res *toolexec.CallToolResult) (*toolexec.CallToolResult, error) {
		res.StructuredContent = map[string]any{"list": []any{"a"}, "nested": map[string]any{"k": "v"}}
		res.Meta = map[string]any{"note": "kept"}
		return res, nil
	}
	tool := cachedTool("c")
	tool.Options.OutputTransforms = []toolexec.OutputTransform{structured}
	x := newExec(t, tool, h)
	vandalize := func(res *toolexec.CallToolResult) {
		res.Content[0].(*toolexec.TextContent).Text = "changed"
		res.Content = append(res.Content, toolexec.Text("extra"))
		sc := res.StructuredContent.(map[string]any)
		sc["list"].([]any)[0] = "changed"
		sc["nested"].(map[string]any)["k"] = "changed"
		sc["added"] = true
		res.Meta["note"] = "changed"
		res.IsError = true
	}

	miss, err := call(x, "c", `{}`)
	require.NoError(t, err)
	vandalize(miss) // the result of the call that filled the cache
	hit, err := call(x, "c", `{}`)
	require.NoError(t, err)
	vandalize(hit) // a result served from the cache
	again, err := call(x, "c", `{}`)

	require.NoError(t, err)
	assert.Equal(t, int32(1), n.Load())
	assert.Equal(t, []toolexec.Content{toolexec.Text("original")}, again.Content)
	assert.Equal(t, map[string]any{"list": []any{"a"}, "nested": map[string]any{"k": "v"}}, again.StructuredContent)
	assert.Equal(t, map[string]any{"note": "kept"}, again.Meta)
	assert.False(t, again.IsError)
}

// recordingCache is a Cache that records what is stored, and can fail.
type recordingCache struct {
	mu     sync.Mutex
	data   map[string][]byte
	ttls   []time.Duration
	getErr error
	setErr error
}

func (c *recordingCache) Get(_ context.Context, key string) ([]byte, bool, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.getErr != nil {
		return nil, false, c.getErr
	}
	v, ok := c.data[key]
	return v, ok, nil
}

func (c *recordingCache) Set(_ context.Context, key string, value []byte, ttl time.Duration) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.ttls = append(c.ttls, ttl)
	if c.setErr != nil {
		return c.setErr
	}
	if c.data == nil {
		c.data = map[string][]byte{}
	}
	c.data[key] = value
	return nil
}

func TestCacheTTLIsGlobalWithPerToolOverride(t *testing.T) {
	tests := []struct {
		name          string
		global, tool  time.Duration
		want          time.Duration
		globalApplied bool
	}{
		{"default", 0, 0, toolexec.DefaultCacheTTL, false},
		{"global", 5 * time.Minute, 0, 5 * time.Minute, true},
		{"tool overrides global", 5 * time.Minute, 10 * time.Second, 10 * time.Second, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			store := new(recordingCache)
			tool := cachedTool("c")
			tool.Options.CacheTTL = tt.tool
			opts := []toolexec.Option{toolexec.WithCache(store)}
			if tt.globalApplied {
				opts = append(opts, toolexec.WithCacheTTL(tt.global))
			}
			x := newExec(t, tool, textHandler("x"), opts...)

			_, err := call(x, "c", `{}`)

			require.NoError(t, err)
			assert.Equal(t, []time.Duration{tt.want}, store.ttls)
		})
	}
}

func TestCacheKeysRevealNoArguments(t *testing.T) {
	store := new(recordingCache)
	x := newExec(t, cachedTool("c"), textHandler("x"), toolexec.WithCache(store))

	_, err := call(x, "c", `{"password":"hunter2"}`)

	require.NoError(t, err)
	require.Len(t, store.data, 1)
	for k := range store.data {
		assert.NotContains(t, k, "hunter2")
		assert.Regexp(t, `^toolexec:v1:[0-9a-f]{64}$`, k)
	}
}

func TestCacheFailuresNeverFailTheCall(t *testing.T) {
	var c counting
	store := &recordingCache{getErr: errors.New("store down"), setErr: errors.New("store down")}
	logger, logs := newLogger(0)
	x := newExec(t, cachedTool("c"), c.handle, toolexec.WithCache(store), toolexec.WithLogger(logger))

	for range 2 {
		res, err := call(x, "c", `{}`)
		require.NoError(t, err)
		assert.False(t, res.IsError)
	}

	assert.Equal(t, int32(2), c.n.Load(), "a failing store is a miss")
	warnings := findLogs(t, logs, "toolexec: the cache failed; calls run their tools uncached until it answers")
	require.Len(t, warnings, 1, "an outage is logged once, not once per call")
	assert.Equal(t, "WARN", warnings[0]["level"])
	assert.Equal(t, "store down", warnings[0]["error"])

	store.getErr, store.setErr = nil, nil
	_, err := call(x, "c", `{}`)
	require.NoError(t, err)
	assert.Len(t, findLogs(t, logs, "toolexec: the cache answers again"), 1)
}

func TestCacheKeyIsTakenAfterInputTransforms(t *testing.T) {
	var c counting
	lower := func(_ context.Context, call *toolexec.Call) (map[string]any, error) {
		return map[string]any{"q": "same"}, nil
	}
	tool := cachedTool("c")
	tool.Options.InputTransforms = []toolexec.InputTransform{lower}
	x := newExec(t, tool, c.handle)

	_, err := call(x, "c", `{"q":"First"}`)
	require.NoError(t, err)
	res, err := call(x, "c", `{"q":"Second"}`)

	require.NoError(t, err)
	assert.Equal(t, "call 1", res.Text(), "both calls' arguments transform to the same, so the second hits")
}

func TestCacheHitSkipsInterceptorsAndOutputTransforms(t *testing.T) {
	var interceptions, transforms atomic.Int32
	ic := func(next toolexec.CallFunc) toolexec.CallFunc {
		return func(ctx context.Context, c *toolexec.Call) (*toolexec.CallToolResult, error) {
			interceptions.Add(1)
			return next(ctx, c)
		}
	}
	out := func(_ context.Context, _ *toolexec.Call, res *toolexec.CallToolResult) (*toolexec.CallToolResult, error) {
		transforms.Add(1)
		res.Content = append(res.Content, toolexec.Text("transformed"))
		return res, nil
	}
	x := newExec(t, cachedTool("c"), textHandler("x"), toolexec.WithInterceptors(ic), toolexec.WithOutputTransforms(out))

	first, err := call(x, "c", `{}`)
	require.NoError(t, err)
	second, err := call(x, "c", `{}`)

	require.NoError(t, err)
	assert.Equal(t, int32(1), interceptions.Load())
	assert.Equal(t, int32(1), transforms.Load())
	assert.Equal(t, "x\ntransformed", second.Text(), "the cache holds the transformed result")
	assert.Equal(t, first.Text(), second.Text())
}

func TestCacheOverREST(t *testing.T) {
	var c counting
	x := newExec(t, cachedTool("c"), c.handle)

	first := restCall(t, x, "c", `{"city":"Oslo"}`)
	second := restCall(t, x, "c", `{"city":"Oslo"}`)

	assert.Equal(t, http.StatusOK, first.status)
	assert.Equal(t, http.StatusOK, second.status)
	assert.JSONEq(t, `{"content":[{"type":"text","text":"call 1"}],"isError":false,"_meta":{"_trace_id":"trace-1"}}`, first.raw)
	assert.JSONEq(t, `{"content":[{"type":"text","text":"call 1"}],"isError":false}`, second.raw, "the hit has the result, not the first call's trace id")
	assert.Equal(t, int32(1), c.n.Load())
}
