// Package tooldef builds the definition of every tool the toolexec command
// declares, whatever its kind (sql, http, script, redis, mongodb): what
// clients see of it (its name, description, the input schema made from
// its parameters, its annotations) and the execution settings every kind
// takes from the file in the same way (timeout, cache, scopes, concurrency
// and rate limits, the bounds of numeric arguments, task support), and
// the caps of its results. A kind gives only what differs (Kind): its
// openWorldHint and destructiveHint defaults and its default timeout.
// The package also holds the result of rows (documents) built within
// those caps, which the database kinds answer.
package tooldef

import (
	"encoding/json"
	"log/slog"
	"time"

	"github.com/toolexec/toolexec"
	"github.com/toolexec/toolexec/cmd/toolexec/internal/config"
	"github.com/toolexec/toolexec/cmd/toolexec/internal/params"
)

// Result caps, used when a tool does not set its own.
const (
	// DefaultMaxRows caps the rows (documents, array elements) of a
	// result.
	DefaultMaxRows = 1000
	// DefaultMaxBytes caps the bytes of a result's text (an http tool's
	// response body, a script's JSON).
	DefaultMaxBytes = 1 << 20
	// DefaultTaskMaxBytes is the byte cap of a tool whose calls may run
	// as tasks (taskSupport optional or required): a task keeps its
	// result encoded, at most toolexec.DefaultMaxTaskResultBytes (512
	// KiB), and the text takes up to three times its bytes there (a text
	// block, escaped as a JSON string, and again a member of
	// structuredContent), plus about 40 bytes a row: 128 KiB and 1000
	// rows stay below it, so a long call ends with its result (cut, and
	// saying so, past the cap) rather than failing for its size.
	DefaultTaskMaxBytes = 128 << 10
)

// Caps returns t's result caps: its maxRows and maxBytes, or the
// defaults (DefaultTaskMaxBytes for a tool whose calls may run as tasks).
func Caps(t *config.Tool) (maxRows, maxBytes int) {
	maxRows, maxBytes = t.MaxRows, t.MaxBytes
	if maxRows == 0 {
		maxRows = DefaultMaxRows
	}
	if maxBytes == 0 {
		maxBytes = DefaultMaxBytes
		if t.TaskSupport.AllowsTasks() {
			maxBytes = DefaultTaskMaxBytes
		}
	}
	return maxRows, maxBytes
}

// Kind is what a kind of tool gives its definition where the file says
// nothing.
type Kind struct {
	// OpenWorld is the openWorldHint of a tool whose file gives none:
	// true for a tool that reaches outside its own source (an http tool,
	// a script that fetches).
	OpenWorld bool
	// Destructive announces a tool that writes with destructiveHint true
	// when the file gives none (the database kinds); false leaves the
	// hint out, which MCP reads as true as well.
	Destructive bool
	// Timeout bounds each call of a tool that sets no timeout (0: the
	// server's --timeout).
	Timeout time.Duration
}

// openSchema is the input schema of a tool that declares no parameters
// and takes any (a Hyperterse handler without inputs).
var openSchema = json.RawMessage(`{"type":"object"}`)

// Definition returns the toolexec.Tool clients see for t, a tool of kind
// k: its name and description; its input schema made from its
// parameters (any object for a tool with open inputs); annotations that
// say whether it writes (readOnlyHint; destructiveHint for a tool that
// writes, the file's, else as k says; idempotentHint when the file gives
// it; openWorldHint, the file's, else k's); and its options: its timeout
// (k's when it sets none), the cache for a read-only tool that asks for
// it, shared between callers (a declared tool's answer depends on its
// arguments only: nothing it runs sees who called), its scopes,
// concurrency limit and rate, the bounds of its numeric arguments, and
// its task support (config's values are MCP's, as the library's are: a
// call that became a task runs on when its request ends, and its context
// ends when the task is cancelled, which stops what it runs).
func Definition(t *config.Tool, k Kind) toolexec.Tool {
	ann := &toolexec.ToolAnnotations{
		ReadOnlyHint:   toolexec.Bool(t.ReadOnly),
		OpenWorldHint:  toolexec.Bool(k.OpenWorld),
		IdempotentHint: t.Idempotent,
	}
	if t.OpenWorld != nil {
		ann.OpenWorldHint = toolexec.Bool(*t.OpenWorld)
	}
	if !t.ReadOnly {
		switch {
		case t.Destructive != nil:
			ann.DestructiveHint = toolexec.Bool(*t.Destructive)
		case k.Destructive:
			ann.DestructiveHint = toolexec.Bool(true)
		}
	}
	timeout := t.Timeout
	if timeout == 0 {
		timeout = k.Timeout
	}
	opts := toolexec.ToolOptions{
		Timeout:     timeout,
		Cache:       t.Cache && t.ReadOnly,
		CacheShared: true,
		CacheTTL:    t.CacheTTL,
		Scopes:      t.Scopes,
		TaskSupport: toolexec.TaskSupport(t.TaskSupport),
	}
	if t.MaxConcurrency > 0 {
		opts.ConcurrencyLimit = &toolexec.ConcurrencyLimit{Max: t.MaxConcurrency}
	}
	if l := t.RateLimit; l != nil {
		// A zero l (rateLimit: none) is no limit, the server's included.
		opts.RateLimit = &toolexec.RateLimit{Rate: l.Rate, Per: l.Per, Burst: l.Burst}
	}
	ps := t.AllParams()
	if ic := params.Bounds(ps); ic != nil {
		opts.Interceptors = []toolexec.Interceptor{ic}
	}
	schema := params.Schema(ps)
	if t.OpenInputs {
		schema = openSchema
	}
	return toolexec.Tool{
		Name:        t.Name,
		Description: t.Description,
		InputSchema: schema,
		Annotations: ann,
		Options:     opts,
	}
}

// Base is what a tool bound to its source holds besides the source: its
// declaration, the logger of what callers are not shown, and its result
// caps.
type Base struct {
	Cfg               *config.Tool
	Logger            *slog.Logger
	MaxRows, MaxBytes int
}

// NewBase returns the Base of t: its caps (Caps), and logger, or a
// logger that discards, when nil.
func NewBase(t *config.Tool, logger *slog.Logger) Base {
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	maxRows, maxBytes := Caps(t)
	return Base{Cfg: t, Logger: logger, MaxRows: maxRows, MaxBytes: maxBytes}
}
