package config

import (
	"go.yaml.in/yaml/v3"
)

// annotations are the hints of a tool's annotations block (toolbox's
// field), each nil when the block does not give it.
type annotations struct {
	node                                         *yaml.Node
	readOnly, destructive, idempotent, openWorld *bool
}

// annotations reads a tool's annotations block: readOnlyHint,
// destructiveHint, idempotentHint and openWorldHint, as toolbox names
// them.
func (p *parser) annotations(what string, n *yaml.Node) *annotations {
	a := &annotations{node: n}
	p.fields(what+" annotations", n, func(key string, k, v *yaml.Node) bool {
		var dst **bool
		switch key {
		case "readOnlyHint":
			dst = &a.readOnly
		case "destructiveHint":
			dst = &a.destructive
		case "idempotentHint":
			dst = &a.idempotent
		case "openWorldHint":
			dst = &a.openWorld
		default:
			return false
		}
		b := p.boolean(what+" annotations "+key, v)
		*dst = &b
		return true
	})
	return a
}

// mergeAnnotations applies a tool's annotations block to the tool: each
// hint sets what its toolexec field (readOnly, destructive, idempotent)
// sets, and the two may not disagree.
func (p *parser) mergeAnnotations(what string, a *annotations, t *Tool) {
	if a == nil {
		return
	}
	merge := func(field string, dst **bool, hint *bool, name string) {
		if hint == nil {
			return
		}
		if *dst != nil && **dst != *hint {
			p.errorf(a.node, "%s: %s is %t but annotations %s is %t: give one of them", what, field, **dst, name, *hint)
			return
		}
		*dst = hint
	}
	merge("readOnly", &t.declaredReadOnly, a.readOnly, "readOnlyHint")
	merge("destructive", &t.Destructive, a.destructive, "destructiveHint")
	merge("idempotent", &t.Idempotent, a.idempotent, "idempotentHint")
	t.OpenWorld = a.openWorld
}
