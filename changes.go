package toolexec

import "sync"

// ToolsChangedNotifier is implemented by a ToolProvider whose tool set can
// change while it serves. Surfaces that tell clients about changes (MCP's
// notifications/tools/list_changed) subscribe through it, and the REST, MCP
// and OXP handlers keep their encoded tool lists from one reported change
// to the next: a change that is not reported (a tool's schema bytes or
// _meta map modified in place, say) is not seen by those lists until the
// next reported one.
//
// OnToolsChanged registers f to be called after every change, from the
// goroutine that made the change, and returns a function that unregisters
// f. f must not block: a subscriber that has work to do hands it to its own
// goroutine.
type ToolsChangedNotifier interface {
	OnToolsChanged(f func()) (stop func())
}

// changeListeners is a set of change callbacks. The zero value is empty and
// ready to use; it is safe for concurrent use.
type changeListeners struct {
	mu   sync.Mutex
	next uint64
	fns  map[uint64]func()
}

func (l *changeListeners) add(f func()) (stop func()) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.fns == nil {
		l.fns = make(map[uint64]func())
	}
	id := l.next
	l.next++
	l.fns[id] = f
	var once sync.Once
	return func() {
		once.Do(func() {
			l.mu.Lock()
			delete(l.fns, id)
			l.mu.Unlock()
		})
	}
}

// notify calls every registered callback. It copies the set first, so a
// callback may unregister itself.
func (l *changeListeners) notify() {
	l.mu.Lock()
	fns := make([]func(), 0, len(l.fns))
	for _, f := range l.fns {
		fns = append(fns, f)
	}
	l.mu.Unlock()
	for _, f := range fns {
		f()
	}
}

// OnToolsChanged implements ToolsChangedNotifier: f is called after every
// Add and every Remove that removed a tool.
func (r *Registry) OnToolsChanged(f func()) (stop func()) { return r.listeners.add(f) }

// onToolsChanged registers f to be called whenever the Executor's
// ToolProvider reports a change of its tool set, and returns a function that
// unregisters it. A provider that does not implement ToolsChangedNotifier
// never reports one: the returned function then does nothing.
func (x *Executor) onToolsChanged(f func()) (stop func()) {
	if n, ok := x.tools.(ToolsChangedNotifier); ok {
		return n.OnToolsChanged(f)
	}
	return func() {}
}

// notifiesToolsChanged reports whether the Executor's ToolProvider
// implements ToolsChangedNotifier, so that OnToolsChanged callbacks are ever
// called. Surfaces advertise change notifications only when it does.
func (x *Executor) notifiesToolsChanged() bool {
	_, ok := x.tools.(ToolsChangedNotifier)
	return ok
}
