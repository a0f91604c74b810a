// Package observetest records what a toolexec.Observer is told, for tests
// of the pipeline and its surfaces that need no OpenTelemetry.
package observetest

import (
	"context"
	"sync"

	"github.com/toolexec/toolexec"
)

// Recorder is a toolexec.Observer that keeps every call it observed.
type Recorder struct {
	// TraceIDs, when set, is the trace id every call reports.
	TraceIDs string

	mu    sync.Mutex
	calls []*Call
}

// Call is what one call told its observer.
type Call struct {
	Info         toolexec.CallInfo        // what StartCall was told
	TraceContext toolexec.TraceContext    // from the context StartCall got
	HasTrace     bool                     // whether that context had one
	EndUser      string                   // from the context Resume got
	Tool         *toolexec.Tool           // from Resolved; nil until then
	Stages       []Stage                  // in the order they started
	Ended        bool                     // whether End was called
	Result       *toolexec.CallToolResult // End's result
	Err          error                    // End's error

	r *Recorder
}

// Stage is one stage a call went through.
type Stage struct {
	toolexec.StageInfo
	Err   error // the stage's error
	Ended bool  // whether End was called
}

// Calls returns the calls observed so far.
func (r *Recorder) Calls() []*Call {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]*Call(nil), r.calls...)
}

// Stages returns every stage of every call, in the order they started.
func (r *Recorder) Stages() []Stage {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []Stage
	for _, c := range r.calls {
		out = append(out, c.Stages...)
	}
	return out
}

// StartCall implements toolexec.Observer.
func (r *Recorder) StartCall(ctx context.Context, info toolexec.CallInfo) (context.Context, toolexec.CallObserver) {
	c := &Call{Info: info, r: r}
	c.TraceContext, c.HasTrace = toolexec.TraceContextFromContext(ctx)
	r.mu.Lock()
	r.calls = append(r.calls, c)
	r.mu.Unlock()
	return ctx, c
}

// Resolved implements toolexec.CallObserver.
func (c *Call) Resolved(t *toolexec.Tool) { c.r.mu.Lock(); c.Tool = t; c.r.mu.Unlock() }

// Arguments implements toolexec.CallObserver.
func (c *Call) Arguments(map[string]any) {}

// CacheHit implements toolexec.CallObserver.
func (c *Call) CacheHit(context.Context, bool) {}

// TraceID implements toolexec.CallObserver.
func (c *Call) TraceID() string { return c.r.TraceIDs }

// Resume implements toolexec.CallObserver: it keeps the end user.
func (c *Call) Resume(ctx context.Context) context.Context {
	if id, ok := toolexec.EndUserFromContext(ctx); ok {
		c.r.mu.Lock()
		c.EndUser = id
		c.r.mu.Unlock()
	}
	return ctx
}

// End implements toolexec.CallObserver.
func (c *Call) End(res *toolexec.CallToolResult, err error) {
	c.r.mu.Lock()
	c.Ended, c.Result, c.Err = true, res, err
	c.r.mu.Unlock()
}

// StartStage implements toolexec.CallObserver.
func (c *Call) StartStage(ctx context.Context, info toolexec.StageInfo) (context.Context, toolexec.StageObserver) {
	c.r.mu.Lock()
	defer c.r.mu.Unlock()
	c.Stages = append(c.Stages, Stage{StageInfo: info})
	return ctx, stageEnd{c, len(c.Stages) - 1}
}

type stageEnd struct {
	c *Call
	i int
}

func (s stageEnd) End(_ *toolexec.CallToolResult, err error) {
	s.c.r.mu.Lock()
	s.c.Stages[s.i].Err, s.c.Stages[s.i].Ended = err, true
	s.c.r.mu.Unlock()
}
