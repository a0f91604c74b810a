package toolexec

import (
	"context"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// stageLog is an Observer that keeps the stages calls went through, and
// gives every call the trace id traceID.
type stageLog struct {
	traceID string
	mu      sync.Mutex
	stages  []StageInfo
	errs    []error
}

func (l *stageLog) StartCall(ctx context.Context, _ CallInfo) (context.Context, CallObserver) {
	return ctx, stageLogCall{l}
}

type stageLogCall struct{ l *stageLog }

func (stageLogCall) Resolved(*Tool)                             {}
func (stageLogCall) Arguments(map[string]any)                   {}
func (stageLogCall) CacheHit(context.Context, bool)             {}
func (stageLogCall) Resume(ctx context.Context) context.Context { return ctx }
func (stageLogCall) End(*CallToolResult, error)                 {}
func (c stageLogCall) TraceID() string                          { return c.l.traceID }
func (c stageLogCall) StartStage(ctx context.Context, s StageInfo) (context.Context, StageObserver) {
	c.l.mu.Lock()
	defer c.l.mu.Unlock()
	c.l.stages = append(c.l.stages, s)
	c.l.errs = append(c.l.errs, nil)
	return ctx, stageLogEnd{c.l, len(c.l.stages) - 1}
}

type stageLogEnd struct {
	l *stageLog
	i int
}

func (e stageLogEnd) End(_ *CallToolResult, err error) {
	e.l.mu.Lock()
	e.l.errs[e.i] = err
	e.l.mu.Unlock()
}

// count returns how many stages matched stage and direction.
func (l *stageLog) count(stage Stage, direction string) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	n := 0
	for _, s := range l.stages {
		if s.Stage == stage && s.Direction == direction {
			n++
		}
	}
	return n
}

func TestObserverSeesEveryStageThatDoesWork(t *testing.T) {
	l := &stageLog{}
	reg := NewRegistry()
	MustAddTool(reg, Tool{Name: "t", Options: ToolOptions{Cache: true, CacheShared: true}}, func(_ context.Context, in struct {
		N int `json:"n"`
	}) (struct {
		M map[string]int `json:"m"`
	}, error) {
		return struct {
			M map[string]int `json:"m"`
		}{M: map[string]int{}}, nil
	})
	x := New(reg, reg, WithAllowExecute(true), WithObserver(l), WithConcurrencyLimit(ConcurrencyLimit{Max: 2}),
		WithInputTransforms(func(_ context.Context, c *Call) (map[string]any, error) { return c.Arguments, nil }),
		WithLogger(discardLogger()))
	_, err := x.Call(context.Background(), CallRequest{Name: "t", Arguments: []byte(`{"n":1}`)})
	require.NoError(t, err)
	l.mu.Lock()
	defer l.mu.Unlock()
	assert.Equal(t, []StageInfo{
		{Stage: StageLimit, LimitMax: 2},
		{Stage: StageTransform, Direction: "input"},
		{Stage: StageValidate, Direction: "input"},
		{Stage: StageCache},
		{Stage: StageExecute},
		{Stage: StageValidate, Direction: "output"},
	}, l.stages)
	for _, err := range l.errs {
		assert.NoError(t, err)
	}
}
