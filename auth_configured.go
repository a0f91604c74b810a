package toolexec

// AuthConfigured reports whether calls are guarded by an auth hook
// (WithAuthHook with a non-nil hook). Surfaces and tools built on the
// Executor use it to tell a caller that calls need credentials, as the
// explorer page does with its token field; it says nothing about which
// credentials the hook accepts.
func (x *Executor) AuthConfigured() bool { return x.authHook != nil }
