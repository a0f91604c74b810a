package toolexec

// NotifiesToolsChanged reports whether the Executor's ToolProvider
// implements ToolsChangedNotifier, so that OnToolsChanged callbacks are ever
// called. Surfaces advertise change notifications only when it does.
func (x *Executor) NotifiesToolsChanged() bool {
	_, ok := x.tools.(ToolsChangedNotifier)
	return ok
}
