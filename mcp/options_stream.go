package mcp

import (
	"time"

	"github.com/toolexec/toolexec"
)

// WithLogLevel sets the lowest level of the log messages (toolexec.Log) a
// tools/call sends its client on protocol versions 2025-11-25, 2025-06-18
// and 2025-03-26 when the request's _meta does not name one with
// "io.modelcontextprotocol/logLevel". The default is toolexec.LogInfo;
// "off" sends none unless the request asks. logging/setLevel is
// acknowledged but cannot change it: the handler keeps no state between
// requests. On 2026-07-28 only the request's own _meta level counts, as
// that revision requires.
func WithLogLevel(level toolexec.LogLevel) Option {
	return func(h *handler) { h.logLevel = level }
}

// WithInputStateKey sets the HMAC-SHA256 key that signs the requestState
// of 2026-07-28's input-required results, so that any replica given the
// same key can resume a call another started, and a state the client
// altered is refused (-32602). Use at least 32 random bytes, shared by the
// replicas. Unset, each handler draws a random key when created: a call
// must then be resumed by the same process.
func WithInputStateKey(key []byte) Option {
	return func(h *handler) { h.stateKey = append([]byte(nil), key...) }
}

// WithInputTimeout bounds how long a call waits for its client's answer to
// an input request on 2025 versions (the call's toolexec.RequestInput then
// fails with an *toolexec.InputError of code toolexec.CodeInputTimeout),
// and how long a 2026-07-28 requestState stays valid. The default is
// DefaultInputTimeout; d <= 0 restores it.
func WithInputTimeout(d time.Duration) Option {
	return func(h *handler) { h.inputTimeout = d }
}
