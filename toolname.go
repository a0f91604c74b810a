package toolexec

import (
	"context"
	"fmt"
	"log/slog"
	"strconv"
	"sync"
	"unicode/utf8"
)

// maxToolNameLen is the longest tool name MCP recommends, in characters.
const maxToolNameLen = 128

// toolNameRule is MCP's recommendation for tool names, as log lines and
// errors state it.
const toolNameRule = "1 to 128 characters, each A-Z, a-z, 0-9, '_', '-' or '.' (MCP 2025-11-25, \"Tool names\")"

// CheckToolName reports whether name has the form MCP recommends for tool
// names (MCP 2025-11-25, "Tool names"): 1 to 128 characters, each
// an ASCII letter or digit, '_', '-' or '.'. It returns nil for such a name,
// else an error that names the rule and what breaks it.
//
// toolexec accepts other names, such as the namespaced "text/upper", on
// every surface. But MCP clients that hand tools to a model pass the name on
// as a function name, and the models' function-calling APIs are stricter
// still: OpenAI's and Anthropic's both document ^[a-zA-Z0-9_-]{1,64}$. A
// client then rewrites such a name, or the model refuses the whole tool
// list. "text_upper" passes everywhere; "text.upper" passes MCP's rule but
// a client still has to rewrite its '.' for those APIs.
//
// Registry.Add warns about a name that fails this check, or refuses it
// with WithStrictToolNames; an Executor warns about such a name from any other
// provider the first time a surface lists it.
func CheckToolName(name string) error {
	problem := ""
	for i := 0; i < len(name) && problem == ""; i++ {
		if c := name[i]; !toolNameByte(c) {
			r, _ := utf8.DecodeRuneInString(name[i:])
			what := strconv.QuoteRune(r)
			if r == utf8.RuneError {
				what = fmt.Sprintf("byte %#x", c)
			}
			problem = fmt.Sprintf("it contains %s at byte %d", what, i)
		}
	}
	switch {
	case name == "":
		problem = "it is empty"
	case problem == "" && len(name) > maxToolNameLen:
		problem = fmt.Sprintf("it is %d characters long", len(name))
	}
	if problem == "" {
		return nil
	}
	return fmt.Errorf("tool name %q is not of the form MCP recommends, %s: %s", name, toolNameRule, problem)
}

// toolNameByte reports whether c may appear in a name CheckToolName
// accepts.
func toolNameByte(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_' || c == '-' || c == '.'
}

// conformingToolName is CheckToolName without the error: the check of
// every listed name, which allocates nothing.
func conformingToolName(name string) bool {
	if name == "" || len(name) > maxToolNameLen {
		return false
	}
	for i := 0; i < len(name); i++ {
		if !toolNameByte(name[i]) {
			return false
		}
	}
	return true
}

// maxNameWarnings bounds the names a Registry or an Executor remembers
// having warned about, so that a provider with ever new names cannot grow
// the set; past it, further names are logged at debug level.
const maxNameWarnings = 1024

// nameWarnings remembers the tool names warned about, so that each is
// warned about once. The zero value is ready to use; it is safe for
// concurrent use.
type nameWarnings struct {
	mu    sync.Mutex
	names map[string]struct{}
}

// warn logs that name is not of the form MCP recommends: at warning level
// the first time, at debug level after (or once maxNameWarnings names are
// remembered).
func (n *nameWarnings) warn(ctx context.Context, logger *slog.Logger, msg, name string) {
	level := slog.LevelDebug
	n.mu.Lock()
	if _, seen := n.names[name]; !seen && len(n.names) < maxNameWarnings {
		if n.names == nil {
			n.names = make(map[string]struct{})
		}
		n.names[name] = struct{}{}
		level = slog.LevelWarn
	}
	n.mu.Unlock()
	if logger.Enabled(ctx, level) {
		logger.Log(ctx, level, msg, "tool", name, "rule", toolNameRule, "error", CheckToolName(name))
	}
}

// checkListedNames warns, once per name, about each name of tools that is
// not of the form MCP recommends, when the provider is not a Registry
// (which warns when a tool is added). Surfaces list tools through
// latestTools and SurfaceKit.AllTools, which call it.
func (x *Executor) checkListedNames(tools []Tool) {
	if _, ok := x.tools.(*Registry); ok {
		return
	}
	for i := range tools {
		if name := tools[i].Name; !conformingToolName(name) {
			x.nameWarned.warn(context.Background(), x.logger,
				"toolexec: a listed tool's name is not of the form MCP recommends; MCP clients and LLM APIs may rewrite or refuse it",
				name)
		}
	}
}
