package toolexec

import (
	"fmt"
	"log/slog"

	"github.com/toolexec/toolexec/internal/schema"
)

// DefaultMaxBodyBytes is the request body limit every surface applies unless
// WithMaxBodyBytes says otherwise: 1 MiB.
const DefaultMaxBodyBytes int64 = 1 << 20

// Executor runs tool calls through the one pipeline every surface shares:
// gate, resolve, decode, auth hook, interceptors, then the handler with
// panics recovered. Surfaces (NewHandler for REST, and the mcp and oxp
// packages) only translate their wire format to Call and back.
//
// An Executor holds no per-client state and is safe for concurrent use; it
// is configured once by New and never changes afterwards. Create one with
// New: the zero value is not usable.
type Executor struct {
	tools        ToolProvider
	handler      ToolCallHandler
	allowExecute bool
	authHook     AuthHook
	toolFilter   ToolFilter // WithToolFilter; nil shows every tool
	// rebinding is WithRebindingProtection's setting; nil when it is off.
	rebinding *RebindingProtection
	// uncachedWarned: the tools warned about for calls not cached for
	// want of an identity (cache_uncached.go).
	uncachedWarned uncachedWarnings
	// nameWarned: the names of a provider other than a Registry warned
	// about for not being of the form MCP recommends (toolname.go).
	nameWarned   nameWarnings
	logger       *slog.Logger
	maxBodyBytes int64
	interceptors []Interceptor

	pipelineConfig // timeout, limit, transforms, cache, telemetry (pipeline_config.go)

	openAPI      OpenAPI      // WithOpenAPI (openapi.go)
	panicDetails bool         // WithPanicDetails(true) (panic.go)
	noValidation bool         // WithValidation(false)
	schemas      schema.Cache // each tool's compiled schemas (validate.go)
	// registry is the provider when it is also the handler, the same
	// Registry (New(reg, reg)): a call then finds its tool and handler in
	// one lookup (Registry.resolve).
	registry *Registry
	// workers run calls under a timeout (timeout.go).
	workers *workers
}

// Option configures an Executor.
type Option func(*Executor)

// New returns an Executor serving the tools of provider, executed by handler.
//
// handler is either form of tool call handler, told apart by its Go type:
// a ToolCallHandler, a BasicToolCallHandler, or a plain function of either
// signature (see Registry.Add). A *Registry serves as both
// provider and handler: New(reg, reg).
//
// Execution is off until WithAllowExecute(true): an Executor mounted by
// accident answers discovery but runs nothing.
//
// New panics if provider is nil or handler is not a handler, as
// http.ServeMux.Handle panics on a nil handler: both are programming errors
// found on the first run.
func New(provider ToolProvider, handler any, opts ...Option) *Executor {
	if provider == nil {
		panic("toolexec: New: nil ToolProvider")
	}
	h, err := asToolCallHandler(handler)
	if err != nil {
		panic(fmt.Sprintf("toolexec: New: %v", err))
	}
	x := &Executor{tools: provider, handler: h, maxBodyBytes: DefaultMaxBodyBytes, workers: newWorkers()}
	for _, opt := range opts {
		opt(x)
	}
	if x.logger == nil {
		x.logger = slog.Default()
	}
	if r, ok := provider.(*Registry); ok && h == ToolCallHandler(r) {
		x.registry = r
	}
	x.buildPipeline()
	return x
}

// WithAllowExecute opens (true) or closes (false) the execution gate. Closed
// is the default: calls are refused with CodeExecutionDisabled while
// discovery and validation keep working.
func WithAllowExecute(allow bool) Option {
	return func(x *Executor) { x.allowExecute = allow }
}

// WithAuthHook guards every call, on every surface, with hook: ordinary
// net/http middleware (see AuthHook). Discovery and validation are never
// guarded.
func WithAuthHook(hook AuthHook) Option {
	return func(x *Executor) { x.authHook = hook }
}

// WithLogger sets where the Executor and its surfaces log: one debug line
// per call (never with argument values), auth rejections and timed-out
// calls at warning level, panics with their stack at error level. The
// default is slog.Default() as it is when New runs.
func WithLogger(l *slog.Logger) Option {
	return func(x *Executor) { x.logger = l }
}

// WithMaxBodyBytes sets the largest request body any surface reads; a larger
// one is refused (REST: 413) and the tool never runs. n <= 0 restores the
// default, DefaultMaxBodyBytes.
func WithMaxBodyBytes(n int64) Option {
	return func(x *Executor) {
		if n <= 0 {
			n = DefaultMaxBodyBytes
		}
		x.maxBodyBytes = n
	}
}

// WithInterceptors adds interceptors that run around every call, in the
// order given, inside the built-in ones and outside the tool's own (see
// Interceptor).
func WithInterceptors(ics ...Interceptor) Option {
	return func(x *Executor) { x.interceptors = append(x.interceptors, ics...) }
}
