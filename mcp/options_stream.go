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
	return optionFunc(func(h *handler) { h.logLevel = level })
}

// WithInputStateKey sets the HMAC-SHA256 key that signs the requestState
// of 2026-07-28's input-required results, so that any replica given the
// same key can resume a call another started, and a state the client
// altered is refused (-32602). Use at least 32 random bytes, shared by the
// replicas. Unset, each handler draws a random key when created: a call
// must then be resumed by the same process.
func WithInputStateKey(key []byte) Option {
	return optionFunc(func(h *handler) { h.stateKey = append([]byte(nil), key...) })
}

// WithInputTimeout bounds how long a call waits for its client's answer to
// an input request on 2025 versions (the call's toolexec.RequestInput then
// fails with an *toolexec.InputError of code toolexec.CodeInputTimeout),
// and how long a 2026-07-28 requestState stays valid. The default is
// DefaultInputTimeout; d <= 0 restores it.
func WithInputTimeout(d time.Duration) Option {
	return optionFunc(func(h *handler) { h.inputTimeout = d })
}

// DefaultStreamWriteTimeout bounds each write to an SSE stream unless
// WithStreamWriteTimeout says otherwise.
const DefaultStreamWriteTimeout = 10 * time.Second

// WithStreamWriteTimeout bounds how long one write to an SSE stream may
// take: each event of a call's stream (progress, log messages, 2025
// versions' input requests, the response), each event and keep-alive of a
// subscriptions/listen stream, and a response sent as a single event. A
// write to a call's stream is also bounded by the call's own deadline
// (toolexec.WithTimeout, ToolOptions.Timeout). A client that does not take
// a write in time is dropped: its stream ends, and the call it was
// following has its context cancelled, so the tool stops and frees its
// concurrency slot. The default is DefaultStreamWriteTimeout; d <= 0
// restores it.
//
// The deadline is set on the connection before each write and cleared
// after it (http.ResponseController.SetWriteDeadline), so an SSE response
// is bounded per write, not as a whole, whatever http.Server.WriteTimeout
// says; other responses keep the server's WriteTimeout. docs/security.md
// says what happens when a host's middleware hides the connection's
// deadlines.
func WithStreamWriteTimeout(d time.Duration) Option {
	return optionFunc(func(h *handler) { h.writeTimeout = d })
}

// The defaults of WithListenLimits.
const (
	// DefaultMaxListenStreams is how many subscriptions/listen streams a
	// handler holds open at once, all callers together.
	DefaultMaxListenStreams = 1000
	// DefaultMaxListenStreamsPerCaller is how many subscriptions/listen
	// streams one caller holds open at once.
	DefaultMaxListenStreamsPerCaller = 16
)

// WithListenLimits bounds the subscriptions/listen streams the handler
// holds open at once: total for all callers together, perCaller for any
// one. A caller is the identity the Executor's auth hook established
// (toolexec.ContextWithIdentity), or else the request's remote IP address (so
// clients behind one proxy or NAT share a caller's share: give them
// identities). A listen request over its caller's share is answered HTTP
// 429, one over the total 503, each with Retry-After and a JSON-RPC error
// (CodeRequestRejected); a stream's place is freed when it ends. The
// defaults are DefaultMaxListenStreams and DefaultMaxListenStreamsPerCaller;
// a value <= 0 restores its default. Resumed 2025 streams count as listen
// streams.
//
// total is this handler's, on every replica: it bounds what one process
// holds. perCaller counts across every replica sharing the Executor's store
// (toolexec.WithStore), so that a caller holds at most perCaller streams in
// the whole service: each stream holds a slot in the store under a digest
// of its caller (never the identity or address itself), a lease of the
// Executor's toolexec.WithLeaseTTL renewed while the stream is open and
// given back when it ends, so the slots of a replica that dies free
// themselves within that time. A listen request checks the total first,
// then its caller's slot (one round trip to the store). While the store
// cannot be reached, or takes more than two seconds to answer, each
// replica counts the caller's streams in its own process instead (the
// change is logged once), so nothing is refused for want of the store.
// Without a shared store both caps are counted in the process.
func WithListenLimits(total, perCaller int) Option {
	return optionFunc(func(h *handler) { h.maxListen, h.maxListenPerCaller = total, perCaller })
}
