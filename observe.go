package toolexec

import "context"

// Observer watches the calls an Executor runs, stage by stage, to trace
// them and count them: the hook that observability packages build on. The
// Executor calls StartCall once per call, before any stage; the
// CallObserver it returns follows that call to its end. WithObserver sets
// one; the module github.com/toolexec/toolexec/otel provides one that
// records OpenTelemetry spans and metrics.
//
// An Observer must be safe for concurrent use. It sees tool names, stages
// and outcomes, and the decoded arguments only through
// CallObserver.Arguments; what it records of them is its own choice.
type Observer interface {
	// StartCall begins observing one call. The context it returns is the
	// call's from then on (an OpenTelemetry observer puts the call's span
	// in it), so the stages, the auth hook, the interceptors and the
	// handler all see what it added.
	StartCall(ctx context.Context, info CallInfo) (context.Context, CallObserver)
}

// ArgumentsObserver is implemented by an Observer that records the decoded
// arguments a call's CallObserver.Arguments receives. A typed tool's
// arguments are decoded straight into its Go input type when nothing needs
// them as a map (see AddTool); an Observer whose ObservesArguments reports
// true is given the map on every call all the same. Without it, an
// Observer's Arguments is not called for a call that decoded no map.
type ArgumentsObserver interface {
	ObservesArguments() bool
}

// CallInfo describes a call as it starts, before its tool is resolved.
type CallInfo struct {
	// Name is the tool's name as the caller asked for it: an unknown name
	// is the caller's choice, so record it with care (bounded, and never
	// in a span's name).
	Name string
	// Version is the version asked for; "" is the latest.
	Version string
	// Surface names the protocol the call came by.
	Surface Surface
}

// CallObserver follows one call. Its methods are called in order, on the
// goroutines that run the call, never two at once, except that a stage
// left running by a timed-out call may end after End.
type CallObserver interface {
	// Resolved reports the tool the call runs, once it is found; a call
	// whose tool is unknown ends without it.
	Resolved(tool *Tool)
	// Arguments reports the decoded arguments, as the caller sent them
	// (before any input transform). The map must not be modified or kept.
	Arguments(args map[string]any)
	// StartStage begins one stage that does work (the auth hook, the
	// limit, a transform, validation, the cache, the handler), under ctx,
	// the call's context; the context it returns is the stage's.
	StartStage(ctx context.Context, stage StageInfo) (context.Context, StageObserver)
	// CacheHit reports, inside the cache stage (ctx is the stage's),
	// whether the cache answered the call.
	CacheHit(ctx context.Context, hit bool)
	// Resume returns ctx as the rest of the call should see it, for a
	// context that came back from host code run inside a stage (the auth
	// hook's request): what the host added stays, the stage's own part
	// (its span, say) gives way to the call's. It is called before the
	// stage ends.
	Resume(ctx context.Context) context.Context
	// End reports the call's outcome: a nil error and a result (IsError
	// set for a tool's own failure), or an *Error naming the failed stage.
	End(res *CallToolResult, err error)
	// TraceID returns the id a successful result without one carries in
	// _meta._trace_id so that its caller can find the call's trace; ""
	// leaves _meta alone.
	TraceID() string
}

// StageInfo describes a stage as it starts.
type StageInfo struct {
	// Stage is the stage: StageAuth, StageLimit, StageTransform,
	// StageValidate, StageCache or StageExecute.
	Stage Stage
	// Direction is "input" or "output" for StageTransform and
	// StageValidate (the arguments, or the result), "" otherwise.
	Direction string
	// LimitMax is the concurrency limit's maximum, for StageLimit.
	LimitMax int
}

// StageObserver follows one stage.
type StageObserver interface {
	// End reports the stage's outcome: its error, if it failed, and for
	// StageExecute the handler's result (IsError set for a tool's own
	// failure).
	End(res *CallToolResult, err error)
}

// WithObserver has o observe every call: a span per call and per stage, the
// call metrics, or whatever o records (see Observer). Without one, calls
// are not observed beyond the Executor's debug log line, and cost nothing
// more.
func WithObserver(o Observer) Option {
	return func(x *Executor) { x.observer = o }
}

// nopObserver observes nothing; it stands in when WithObserver was not
// given, so that the pipeline never checks for nil.
type nopObserver struct{}

func (nopObserver) StartCall(ctx context.Context, _ CallInfo) (context.Context, CallObserver) {
	return ctx, nopObserver{}
}
func (nopObserver) Resolved(*Tool)                             {}
func (nopObserver) Arguments(map[string]any)                   {}
func (nopObserver) CacheHit(context.Context, bool)             {}
func (nopObserver) Resume(ctx context.Context) context.Context { return ctx }
func (nopObserver) End(*CallToolResult, error)                 {}
func (nopObserver) TraceID() string                            { return "" }
func (nopObserver) StartStage(ctx context.Context, _ StageInfo) (context.Context, StageObserver) {
	return ctx, nopObserver{}
}

// observer returns the call's observer; a Call an interceptor made itself
// has none, and is observed by nothing.
func (c *Call) observer() CallObserver {
	if c.obs == nil {
		return nopObserver{}
	}
	return c.obs
}
