package toolexec

import (
	"encoding/json"
	"time"
)

// Tool describes one tool in the MCP 2025-11-25 shape. The JSON fields are
// what clients see; Version, Requirements and Options never travel on the
// wire as fields of this shape.
//
// InputSchema and OutputSchema are JSON Schema documents kept as raw JSON,
// so what the host wrote is exactly what clients get back. A tool with no
// InputSchema accepts any JSON object.
type Tool struct {
	// Name identifies the tool. MCP recommends 1 to 128 characters of
	// A-Z a-z 0-9 _ - . (see CheckToolName), and models' function-calling
	// APIs accept only A-Z a-z 0-9 _ -: prefer "image_resize". Other names,
	// such as the namespaced "image/resize", are served on every surface,
	// but a Registry warns about them (or refuses them, with
	// WithStrictToolNames).
	Name string `json:"name"`
	// Title is an optional human-readable name for display.
	Title string `json:"title,omitempty"`
	// Description tells a model (and a person) what the tool does and when
	// to use it.
	Description string `json:"description,omitempty"`
	// InputSchema is the JSON Schema of the arguments object; every call is
	// validated against it unless validation is off.
	InputSchema json.RawMessage `json:"inputSchema,omitempty"`
	// OutputSchema is the JSON Schema of the tool's structuredContent, when
	// it has one.
	OutputSchema json.RawMessage `json:"outputSchema,omitempty"`
	// Annotations are hints about the tool's behaviour; nil omits them.
	Annotations *ToolAnnotations `json:"annotations,omitempty"`
	// Meta is the tool's _meta object; nil omits it.
	Meta map[string]any `json:"_meta,omitempty"`

	// Version is the tool's semantic version ("1.2.0"), used by surfaces
	// that address versions (OXP). Empty means unversioned. A name may be
	// registered in several versions; see Executor.Lookup for which one a
	// call gets.
	Version string `json:"-"`

	// Requirements declare the secrets, authorizations and user id the tool
	// needs from its caller (see Requirements). The zero value needs none.
	Requirements Requirements `json:"-"`

	// Options are per-tool execution settings that refine the Executor's
	// defaults for this tool.
	Options ToolOptions `json:"-"`
}

// ToolAnnotations are MCP's hints about a tool's behaviour (read-only,
// destructive, idempotent, open-world) and its title, set on Tool;
// Annotations, not these, describe one content block of a result. The hints are
// pointers because MCP gives each a default that differs from false when
// absent (destructiveHint and openWorldHint default to true).
type ToolAnnotations struct {
	// Title is a human-readable name for the tool.
	Title string `json:"title,omitempty"`
	// ReadOnlyHint says the tool changes nothing (default false).
	ReadOnlyHint *bool `json:"readOnlyHint,omitempty"`
	// DestructiveHint says a change it makes may destroy something (default
	// true; meaningful only when not read-only).
	DestructiveHint *bool `json:"destructiveHint,omitempty"`
	// IdempotentHint says repeating a call with the same arguments has no
	// further effect (default false).
	IdempotentHint *bool `json:"idempotentHint,omitempty"`
	// OpenWorldHint says the tool reaches beyond the host, such as the web
	// (default true).
	OpenWorldHint *bool `json:"openWorldHint,omitempty"`
}

// ToolOptions are per-tool execution settings. The zero value means "use the
// Executor's defaults". A setting given here replaces the Executor's for
// this tool (a tool's Timeout replaces WithTimeout, it does not nest inside
// it), except transforms and interceptors, which run in addition to the
// Executor's (see docs/pipeline.md for the order).
type ToolOptions struct {
	// Interceptors run around this tool's calls, inside the Executor's own
	// interceptors (see Interceptor for the order).
	Interceptors []Interceptor

	// Timeout bounds each call of this tool: 0 uses the Executor's
	// (WithTimeout), a negative value means no timeout for this tool.
	Timeout time.Duration
	// ConcurrencyLimit, when set, gives this tool's calls their own limit in
	// place of the Executor's (WithConcurrencyLimit); its calls then do not
	// count against the Executor's limit. A limit whose Max is 0 means
	// unlimited for this tool.
	ConcurrencyLimit *ConcurrencyLimit
	// RateLimit, when set, bounds how often each caller may call this tool
	// in place of the Executor's rate (WithRateLimit); its calls then do
	// not count against the Executor's rate. A RateLimit whose Rate is 0
	// means no rate limit for this tool.
	RateLimit *RateLimit

	// InputTransforms run after the Executor's input transforms, in order,
	// each replacing the arguments (see InputTransform).
	InputTransforms []InputTransform
	// OutputTransforms run before the Executor's output transforms, in
	// order, each replacing the result (see OutputTransform).
	OutputTransforms []OutputTransform

	// SkipValidation turns argument validation off for this tool only.
	SkipValidation bool

	// Cache opts this tool into the read-through result cache (see Cache):
	// a call whose tool name, version and arguments match an earlier
	// successful call gets that call's result without running the handler.
	// Only tools whose results depend on their arguments alone should opt in.
	//
	// A cached result is only served to a call with the same identity (see
	// ContextWithIdentity) and the same variants (see ContextWithCacheVariant) as the call
	// that stored it; a call without an identity is not cached at all,
	// unless CacheShared says the results are the same for everyone.
	Cache bool
	// CacheShared declares that this tool's results depend on its arguments
	// alone, whoever calls: cached results are then shared between callers,
	// and calls without an identity are cached too. Leave it off for
	// anything that depends on the caller.
	CacheShared bool
	// CacheTTL is how long this tool's results stay cached: 0 uses the
	// Executor's (WithCacheTTL).
	CacheTTL time.Duration

	// TaskSupport says whether this tool's calls may run as tasks, which
	// callers poll instead of waiting for (see TaskSupport and
	// docs/tasks.md); "" is TaskSupportForbidden. The handler is the same
	// function either way.
	TaskSupport TaskSupport

	// Scopes are the OAuth scopes a caller must hold, every one of them, to
	// call this tool; none means any caller the auth hook admits. The auth
	// hook enforces them, since only it knows what the caller holds: it
	// finds the tool with CallFromContext, and oauth.Verifier refuses a
	// token without them with 403 insufficient_scope on every surface. With
	// per-caller lists on (WithToolFilter), a caller without them does not
	// see the tool either. The pipeline itself does not read them.
	Scopes []string
}

// ToolProvider supplies the tool list. The Executor asks it on every
// discovery request and every call, and never caches the answer, so a
// provider may change its tools at any time. Tools must be safe for
// concurrent use.
type ToolProvider interface {
	Tools() []Tool
}

// StaticTools is a fixed tool list; it is the ToolProvider for hosts whose
// tools never change.
type StaticTools []Tool

// Tools returns the list itself.
func (s StaticTools) Tools() []Tool { return s }

// ToolProviderFunc adapts a function to ToolProvider.
type ToolProviderFunc func() []Tool

// Tools calls f.
func (f ToolProviderFunc) Tools() []Tool { return f() }

// inputSchemaOrDefault returns the input schema clients see: InputSchema,
// or {"type":"object"} (any object) for a tool without one.
func (t *Tool) inputSchemaOrDefault() json.RawMessage {
	if len(t.InputSchema) == 0 {
		return json.RawMessage(`{"type":"object"}`)
	}
	return t.InputSchema
}

// Bool returns a pointer to b, for the optional hints of ToolAnnotations.
func Bool(b bool) *bool { return &b }
