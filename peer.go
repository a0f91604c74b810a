package toolexec

import (
	"context"
	"errors"
	"fmt"
)

// Peer is the caller's end of a running call, as the surface that received
// the call presents it to the tool: where progress and log messages go, and
// whom the tool may ask for input. A surface that can talk back to its
// caller (the MCP surface) installs one in the context it passes to
// Executor.Call with ContextWithPeer; a handler never uses it directly but calls
// ReportProgress, Log, RequestInput and their typed forms with its own ctx.
// A surface hands it to Executor.Call in CallRequest.Peer (or installs it
// in the call's context with ContextWithPeer).
//
// Every method must be safe for concurrent use and must return promptly
// once ctx ends.
type Peer interface {
	// Progress delivers one progress report, or drops it when the caller
	// did not ask for progress.
	Progress(ctx context.Context, p Progress) error
	// Log delivers one log message, or drops it when its level is below
	// the level the caller asked for (or the caller asked for none).
	Log(ctx context.Context, m LogMessage) error
	// RequestInput asks the caller every request of reqs and returns the
	// answers in the same order, or an error (see RequestInput). When the
	// caller did not declare it answers every kind of reqs, it asks nothing
	// and fails with ErrInputUnsupported. reqs are valid: each sets one
	// request and has its own key.
	RequestInput(ctx context.Context, reqs []InputRequest) ([]InputResponse, error)
	// InputSupported reports whether the caller declared that it can answer
	// requests of kind.
	InputSupported(kind InputKind) bool
}

type peerKey struct{}

// ContextWithPeer returns a copy of ctx in which p is the call's Peer, for a
// surface that cannot set CallRequest.Peer (one calling through another
// layer that only passes a context on); the pipeline passes it on to the
// handler unchanged. CallRequest.Peer, when set, wins.
func ContextWithPeer(ctx context.Context, p Peer) context.Context {
	return context.WithValue(ctx, peerKey{}, p)
}

// PeerFromContext returns the running call's Peer: the one its
// CallRequest carried, else the one installed by ContextWithPeer, else nil.
func PeerFromContext(ctx context.Context) Peer {
	if c := CallFromContext(ctx); c != nil && c.peer != nil {
		return c.peer
	}
	p, _ := ctx.Value(peerKey{}).(Peer)
	return p
}

// Progress is one progress report of a running call: Progress increases
// with every report, even when Total is unknown (0); a report that does not
// exceed the one before is dropped. Both may be fractional.
type Progress struct {
	Progress float64
	Total    float64 // 0: unknown, omitted on the wire
	Message  string  // optional, human readable
}

// ReportProgress sends p to the call's caller when it asked for progress
// (over MCP: a progressToken in the request's _meta). With no Peer (REST,
// OXP, an in-process call) or a caller that did not ask, it does nothing and
// returns nil; an error means the report could not be delivered, typically
// because the caller went away, and a tool may ignore it.
func ReportProgress(ctx context.Context, p Progress) error {
	if peer := PeerFromContext(ctx); peer != nil {
		return peer.Progress(ctx, p)
	}
	return nil
}

// LogLevel is the severity of a log message, in syslog's (RFC 5424) order
// from LogDebug, the lowest, to LogEmergency, the highest.
type LogLevel string

// The eight levels MCP takes from syslog, lowest first.
const (
	LogDebug     LogLevel = "debug"
	LogInfo      LogLevel = "info"
	LogNotice    LogLevel = "notice"
	LogWarning   LogLevel = "warning"
	LogError     LogLevel = "error"
	LogCritical  LogLevel = "critical"
	LogAlert     LogLevel = "alert"
	LogEmergency LogLevel = "emergency"
)

// Severity returns the rank of l, 0 for LogDebug to 7 for LogEmergency, and
// -1 for a string that is not one of the eight levels.
func (l LogLevel) Severity() int {
	switch l {
	case LogDebug:
		return 0
	case LogInfo:
		return 1
	case LogNotice:
		return 2
	case LogWarning:
		return 3
	case LogError:
		return 4
	case LogCritical:
		return 5
	case LogAlert:
		return 6
	case LogEmergency:
		return 7
	}
	return -1
}

// LogMessage is one log message for the caller of a running call.
type LogMessage struct {
	Level  LogLevel // "" is LogInfo; a string that is not a level is never sent
	Logger string   // optional name of the logger
	Data   any      // any JSON-encodable value; a string is the usual kind
}

// Log sends m to the call's caller when it asked for log messages at m's
// level or below (over MCP: a log level, see docs/mcp.md). With no Peer or a
// caller that did not ask, it does nothing and returns nil. Log messages
// reach the client: they must hold no secrets.
//
// Deprecated: MCP 2026-07-28 deprecates logging to the client
// (notifications/message, SEP-2577), which will be removed from a later
// revision. It keeps working on every protocol version toolexec serves.
// Tell the caller how the call is going with ReportProgress (its message),
// and log for operators with the host's *slog.Logger (WithLogger) or
// OpenTelemetry (WithObserver).
func Log(ctx context.Context, m LogMessage) error {
	if peer := PeerFromContext(ctx); peer != nil {
		if m.Level == "" {
			m.Level = LogInfo
		}
		return peer.Log(ctx, m)
	}
	return nil
}

// Logf is Log with a formatted string as Data.
//
// Deprecated: as Log, which MCP 2026-07-28 deprecates (SEP-2577).
func Logf(ctx context.Context, level LogLevel, format string, args ...any) error {
	if PeerFromContext(ctx) == nil {
		return nil // nothing formatted for nobody
	}
	return Log(ctx, LogMessage{Level: level, Data: fmt.Sprintf(format, args...)})
}

// ErrInputUnsupported is returned by RequestInput and its typed forms when
// the caller cannot be asked for input: the surface has no way to ask
// (REST, OXP, an in-process call), or the caller did not declare that it
// answers requests of that kind. A handler that returns it (or wraps it)
// fails the call with its message, which says exactly that, on every
// surface.
var ErrInputUnsupported = errors.New("toolexec: this tool needs input from its caller, and this caller cannot be asked for it")

// ErrInputRequired is returned by RequestInput when the surface answers the
// call with a request for input instead of waiting for it (MCP 2026-07-28's
// input-required result): the handler must return it (or an error wrapping
// it) at once. The surface then sends the questions, and runs the handler
// again, from the start, when the caller retries with the answers; that
// time RequestInput returns them. A handler that needs input must therefore
// do nothing it cannot repeat before its last RequestInput.
var ErrInputRequired = errors.New("toolexec: input required from the caller")

// InputError is the caller's refusal of an input request (RequestInput,
// Elicit), as the handler receives it: a JSON-RPC error the caller answered
// with (Code and Message are its own), or one the surface stands in for
// (CodeInputTimeout). Unlike Error and ToolError, it is about the caller's
// answer, not the call.
type InputError struct {
	Code    int
	Message string
}

// CodeInputTimeout is the InputError code for a request the caller did not
// answer in time.
const CodeInputTimeout = -32001

// Error returns the caller's refusal with its message and code.
func (e *InputError) Error() string {
	return fmt.Sprintf("toolexec: the caller refused the input request: %s (code %d)", e.Message, e.Code)
}

func noPeer(ctx context.Context) (Peer, error) {
	peer := PeerFromContext(ctx)
	if peer == nil {
		return nil, ErrInputUnsupported
	}
	return peer, nil
}
