package toolexec

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"

	semver "github.com/toolexec/toolexec/internal/version"
)

// Registry holds tools together with their own handlers. It is both the
// ToolProvider and the ToolCallHandler of an Executor: New(reg, reg).
//
// A tool may be registered in several versions under one name (set
// Tool.Version); calls reach the handler of the version the pipeline
// resolved, and discovery shows the latest.
//
// The zero value is an empty registry ready to use. A Registry is safe for
// concurrent use, and tools may be added or removed while it serves; every
// Add and Remove is reported to OnToolsChanged subscribers. A registered
// Tool is kept as given: to change one, Remove it and Add the new one, as
// modifying its schema bytes or annotations in place is no change the
// Registry can report (surfaces keep their tool lists between reported
// changes).
type Registry struct {
	mu      sync.RWMutex
	entries []registryEntry  // registration order, for Tools
	byName  map[string][]int // name -> indexes into entries, for lookups

	listeners changeListeners // OnToolsChanged subscribers

	strictNames bool         // WithStrictToolNames
	logger      *slog.Logger // WithRegistryLogger; nil is slog.Default()
	nameWarned  nameWarnings // names warned about (toolname.go)
}

type registryEntry struct {
	tool    Tool
	handler ToolCallHandler
}

// RegistryOption configures a Registry made by NewRegistry.
type RegistryOption func(*Registry)

// NewRegistry returns an empty Registry configured by opts.
func NewRegistry(opts ...RegistryOption) *Registry {
	r := &Registry{}
	for _, opt := range opts {
		opt(r)
	}
	return r
}

// WithStrictToolNames makes Add (and AddTool) refuse a tool whose name is not
// of the form MCP recommends (see CheckToolName) instead of warning about
// it: for a host whose tools must reach models through any MCP client
// unchanged.
func WithStrictToolNames() RegistryOption {
	return func(r *Registry) { r.strictNames = true }
}

// WithRegistryLogger sets where the Registry logs its warnings (a tool name not
// of the form MCP recommends). The default is slog.Default() at the time of
// the warning; pass the logger the Executor gets (WithLogger) to keep every
// line in one place.
func WithRegistryLogger(l *slog.Logger) RegistryOption {
	return func(r *Registry) { r.logger = l }
}

// Add registers tool, executed by handler: a ToolCallHandler, a
// BasicToolCallHandler, or a plain function of either signature. It fails
// on an empty name, a Version that is neither "" nor a semantic version
// (MAJOR.MINOR.PATCH with an optional pre-release and build metadata, no
// "v" prefix), a name and version already registered (versions equal by
// precedence, such as "1.0.0" and "1.0.0+build.2", count as the same), or a
// handler of another type.
//
// A name that is not of the form MCP recommends (CheckToolName: 1 to 128
// of A-Z a-z 0-9 _ - .), such as the namespaced "text/upper", is
// registered and served on every surface, and logged at warning level once
// per name, naming the tool and the rule (see WithRegistryLogger); with
// WithStrictToolNames, Add fails instead.
func (r *Registry) Add(tool Tool, handler any) error {
	var nameErr error
	if tool.Name != "" {
		nameErr = CheckToolName(tool.Name)
	}
	if nameErr != nil && r.strictNames {
		return fmt.Errorf("toolexec: Registry.Add: %w (WithStrictToolNames)", nameErr)
	}
	if err := r.add(tool, handler); err != nil {
		return err
	}
	if nameErr != nil {
		logger := r.logger
		if logger == nil {
			logger = slog.Default()
		}
		r.nameWarned.warn(context.Background(), logger,
			"toolexec: Registry.Add: the tool's name is not of the form MCP recommends; MCP clients and LLM APIs may rewrite or refuse it",
			tool.Name)
	}
	r.listeners.notify()
	return nil
}

func (r *Registry) add(tool Tool, handler any) error {
	if tool.Name == "" {
		return errors.New("toolexec: Registry.Add: tool has no name")
	}
	if tool.Version != "" && !semver.Valid(tool.Version) {
		return fmt.Errorf("toolexec: Registry.Add %q: version %q is not a semantic version (MAJOR.MINOR.PATCH, such as \"1.0.0\")", tool.Name, tool.Version)
	}
	h, err := asToolCallHandler(handler)
	if err != nil {
		return fmt.Errorf("toolexec: Registry.Add %q: %w", tool.Name, err)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, i := range r.byName[tool.Name] {
		if v := r.entries[i].tool.Version; v == tool.Version || semver.Same(v, tool.Version) {
			return fmt.Errorf("toolexec: Registry.Add: tool %q version %q is already registered", tool.Name, v)
		}
	}
	if r.byName == nil {
		r.byName = make(map[string][]int)
	}
	r.byName[tool.Name] = append(r.byName[tool.Name], len(r.entries))
	r.entries = append(r.entries, registryEntry{tool: tool, handler: h})
	return nil
}

// reindex rebuilds byName after a removal shifted the entries.
func (r *Registry) reindex() {
	r.byName = make(map[string][]int, len(r.entries))
	for i, e := range r.entries {
		r.byName[e.tool.Name] = append(r.byName[e.tool.Name], i)
	}
}

// MustAdd is Add that panics on error, for registrations fixed at compile
// time.
func (r *Registry) MustAdd(tool Tool, handler any) {
	if err := r.Add(tool, handler); err != nil {
		panic(err)
	}
}

// Remove unregisters the tool of that name and version ("" is the
// unversioned one, never "the latest") and reports whether it was there. A
// version matches as in Lookup: the same string, or equal by precedence.
func (r *Registry) Remove(name, version string) bool {
	r.mu.Lock()
	i, ok := r.indexOf(name, version)
	if ok {
		r.entries = append(r.entries[:i:i], r.entries[i+1:]...)
		r.reindex()
	}
	r.mu.Unlock()
	if ok {
		r.listeners.notify()
	}
	return ok
}

// Tools returns every registered tool, every version, in registration
// order. The slice is the caller's own.
func (r *Registry) Tools() []Tool {
	r.mu.RLock()
	defer r.mu.RUnlock()
	out := make([]Tool, len(r.entries))
	for i, e := range r.entries {
		out[i] = e.tool
	}
	return out
}

// LookupTool implements ToolLookup, resolving versions as Executor.Lookup
// documents: version "" is the latest release.
func (r *Registry) LookupTool(name, version string) (Tool, bool) {
	e, ok := r.find(name, version)
	return e.tool, ok
}

func (r *Registry) find(name, version string) (registryEntry, bool) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	idx := r.byName[name]
	i := matchTool(len(idx), func(i int) *Tool { return &r.entries[idx[i]].tool }, name, version)
	if i < 0 {
		return registryEntry{}, false
	}
	return r.entries[idx[i]], true
}

// resolve finds what LookupTool finds, with its handler, and returns the
// entry itself rather than a copy. An entry never changes once added (Add
// appends past every entry there is, Remove builds a new slice), so it may
// be read after the lock is released.
func (r *Registry) resolve(name, version string) *registryEntry {
	r.mu.RLock()
	defer r.mu.RUnlock()
	idx := r.byName[name]
	i := matchTool(len(idx), func(i int) *Tool { return &r.entries[idx[i]].tool }, name, version)
	if i < 0 {
		return nil
	}
	return &r.entries[idx[i]]
}

// indexOf returns the index into entries of the tool of that name and
// version: "" is the unversioned one, any other version matches as in
// Lookup. The caller holds r.mu.
func (r *Registry) indexOf(name, version string) (int, bool) {
	idx := r.byName[name]
	if version == "" {
		for _, i := range idx {
			if r.entries[i].tool.Version == "" {
				return i, true
			}
		}
		return 0, false
	}
	i := matchTool(len(idx), func(i int) *Tool { return &r.entries[idx[i]].tool }, name, version)
	if i < 0 {
		return 0, false
	}
	return idx[i], true
}

// HandleCall implements ToolCallHandler: it runs the handler registered for
// exactly the tool version the pipeline resolved (CallFromContext), or for
// the latest version of name when called outside the pipeline.
func (r *Registry) HandleCall(ctx context.Context, name string, args map[string]any) ([]Content, bool, string, error) {
	h, err := r.handlerFor(ctx, name)
	if err != nil {
		return nil, false, "", err
	}
	return h.HandleCall(ctx, name, args)
}

// handlerFor finds the handler HandleCall and HandleCallResult run: the
// one registered for exactly the version the pipeline resolved, or the
// latest version's outside the pipeline.
func (r *Registry) handlerFor(ctx context.Context, name string) (ToolCallHandler, error) {
	if c := CallFromContext(ctx); c != nil && c.Tool.Name == name {
		r.mu.RLock()
		defer r.mu.RUnlock()
		for _, i := range r.byName[name] {
			if r.entries[i].tool.Version == c.Tool.Version {
				return r.entries[i].handler, nil
			}
		}
	} else if e, ok := r.find(name, ""); ok {
		return e.handler, nil
	}
	return nil, fmt.Errorf("tool %q is not registered", name)
}
