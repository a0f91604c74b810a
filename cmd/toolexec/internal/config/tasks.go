package config

import (
	"strings"

	"go.yaml.in/yaml/v3"
)

// TaskSupport is a tool's taskSupport (a toolexec extension): whether its
// calls may run as tasks, long-running calls the caller polls (REST's and
// OXP's Prefer: respond-async, MCP's tasks) instead of holding its request
// until they end. The values are MCP's execution.taskSupport.
type TaskSupport string

// The values of taskSupport.
const (
	// TaskForbidden: every call holds its request until it ends (the
	// default, as is "").
	TaskForbidden TaskSupport = "forbidden"
	// TaskOptional: a call from a caller that can take a task becomes one
	// when it runs longer than the server's wait; other callers wait for
	// the outcome.
	TaskOptional TaskSupport = "optional"
	// TaskRequired: the tool runs only for callers that can take a task;
	// any other is refused.
	TaskRequired TaskSupport = "required"
)

// AllowsTasks reports whether s lets a call run as a task: optional or
// required.
func (s TaskSupport) AllowsTasks() bool { return s == TaskOptional || s == TaskRequired }

// taskSupport reads a tool's taskSupport: optional, required or
// forbidden. A problem is reported at the value, and reads as "" (the
// default).
func (p *parser) taskSupport(what string, n *yaml.Node) TaskSupport {
	if n.Kind != yaml.ScalarNode {
		p.errorf(n, "%s must be optional, required or forbidden", what)
		return ""
	}
	s := p.str(what, n)
	switch v := TaskSupport(strings.TrimSpace(s)); v {
	case TaskOptional, TaskRequired, TaskForbidden:
		return v
	}
	p.errorf(n, "%s must be optional, required or forbidden, not %s", what, p.show(s))
	return ""
}
