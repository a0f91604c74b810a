// Package server serves a tools file: it builds the tools of a config into
// a Provider whose tool set can be swapped while it serves, mounts the
// library's REST, MCP and OXP surfaces on it, and reloads the file when it
// changes.
package server

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"

	"github.com/toolexec/toolexec"
)

// Provider is the ToolProvider, ToolLookup, ToolResultHandler and
// ToolsChangedNotifier of the Executors the command serves. Its tool set
// is swapped atomically by Swap: a call that started on the old set
// finishes on it (the old set's sources close only after it), and every
// call after the swap sees the new one.
//
// A Provider is scoped to one toolset when Toolset is set ("" is every
// tool); scoped providers share their parent's set through View.
type Provider struct {
	state   *state
	toolset string
}

type state struct {
	cur atomic.Pointer[Set]

	mu        sync.Mutex
	listeners map[int]func()
	next      int

	// stopped ends when StopCalls is called: the calls of tools that may
	// run as tasks run under it too.
	stopped context.Context
	stop    context.CancelCauseFunc
}

// NewProvider returns a Provider serving set.
func NewProvider(set *Set) *Provider {
	st := &state{listeners: map[int]func(){}}
	st.stopped, st.stop = context.WithCancelCause(context.Background())
	st.cur.Store(set)
	return &Provider{state: st}
}

// errStopped is the cause of the context of a call StopCalls ended.
var errStopped = errors.New("server: the server stopped")

// StopCalls cancels the calls still running of every tool whose calls may
// run as tasks (taskSupport optional or required), and every such call
// that starts later: a task outlives the request that started it, so the
// HTTP server's shutdown does not end it, and closing the sources (Set.Close)
// would wait for it to end at its timeout. Each call it ends is a tool
// error, "The server stopped while the call ran." (what a task shows to
// whoever polls it through a shared store). Calls of other tools are left
// to end with their requests. It applies to every view of the Provider;
// calling it again does nothing.
func (p *Provider) StopCalls() { p.state.stop(errStopped) }

// View returns a Provider over the same sets limited to toolset.
func (p *Provider) View(toolset string) *Provider {
	return &Provider{state: p.state, toolset: toolset}
}

// Current returns the set being served.
func (p *Provider) Current() *Set { return p.state.cur.Load() }

// Swap serves next from now on, notifies the OnToolsChanged subscribers,
// and returns the previous set; the caller closes it (Set.Close waits for
// the calls still running on it).
func (p *Provider) Swap(next *Set) *Set {
	old := p.state.cur.Swap(next)
	p.state.mu.Lock()
	fs := make([]func(), 0, len(p.state.listeners))
	for _, f := range p.state.listeners {
		fs = append(fs, f)
	}
	p.state.mu.Unlock()
	for _, f := range fs {
		f()
	}
	return old
}

// Tools implements toolexec.ToolProvider.
func (p *Provider) Tools() []toolexec.Tool { return p.Current().Tools(p.toolset) }

// LookupTool implements toolexec.ToolLookup. Tools are unversioned, so
// version must be "".
func (p *Provider) LookupTool(name, version string) (toolexec.Tool, bool) {
	if version != "" {
		return toolexec.Tool{}, false
	}
	return p.Current().Lookup(p.toolset, name)
}

// OnToolsChanged implements toolexec.ToolsChangedNotifier: f runs after
// every Swap, on the goroutine that swapped.
func (p *Provider) OnToolsChanged(f func()) (stop func()) {
	st := p.state
	st.mu.Lock()
	id := st.next
	st.next++
	st.listeners[id] = f
	st.mu.Unlock()
	var once sync.Once
	return func() {
		once.Do(func() {
			st.mu.Lock()
			delete(st.listeners, id)
			st.mu.Unlock()
		})
	}
}

// HandleCallResult implements toolexec.ToolResultHandler: it runs the
// named tool of the current set. A tool removed by a reload between the
// pipeline's lookup and this call is a tool error.
func (p *Provider) HandleCallResult(ctx context.Context, name string, args map[string]any) (*toolexec.CallToolResult, error) {
	for {
		set := p.Current()
		if !set.acquire() {
			continue // retired by a reload just now: take the new set
		}
		i, ok := set.byName[name]
		if !ok || (p.toolset != "" && !set.toolsets[p.toolset][name]) {
			set.release()
			return toolexec.ErrorResult("Tool not found: " + name), nil
		}
		res, err := p.run(ctx, set, i, args)
		set.release()
		return res, err
	}
}

// run calls the handler of set's tool i. A tool whose calls may run as
// tasks runs under StopCalls too, at the cost of a context and a callback
// per call; other tools' calls end with their requests and pay nothing.
func (p *Provider) run(ctx context.Context, set *Set, i int, args map[string]any) (*toolexec.CallToolResult, error) {
	handler := set.handlers[i]
	if ts := set.tools[i].Options.TaskSupport; ts != toolexec.TaskSupportOptional && ts != toolexec.TaskSupportRequired {
		return handler(ctx, args)
	}
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	unhook := context.AfterFunc(p.state.stopped, func() { cancel(errStopped) })
	defer unhook()
	if p.state.stopped.Err() != nil {
		// Stopped already: AfterFunc cancels ctx on a goroutine of its
		// own, which a quick call could outrun. The call does not start.
		return nil, stoppedError(errStopped)
	}
	res, err := handler(ctx, args)
	if err != nil && errors.Is(context.Cause(ctx), errStopped) {
		return nil, stoppedError(err)
	}
	return res, err
}

// stoppedError is the tool error of a call StopCalls ended, for err.
func stoppedError(err error) error {
	return &toolexec.ToolError{Message: "The server stopped while the call ran.", CanRetry: true, Err: err}
}

// HandleCall implements toolexec.ToolCallHandler for completeness; the
// pipeline calls HandleCallResult.
func (p *Provider) HandleCall(ctx context.Context, name string, args map[string]any) ([]toolexec.Content, bool, string, error) {
	res, err := p.HandleCallResult(ctx, name, args)
	if err != nil || res == nil {
		return nil, false, "", err
	}
	return res.Content, res.IsError, "", nil
}

var (
	_ toolexec.ToolProvider         = (*Provider)(nil)
	_ toolexec.ToolLookup           = (*Provider)(nil)
	_ toolexec.ToolResultHandler    = (*Provider)(nil)
	_ toolexec.ToolsChangedNotifier = (*Provider)(nil)
)
