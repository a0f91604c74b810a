package server

import (
	"github.com/toolexec/toolexec"
	"github.com/toolexec/toolexec/cmd/toolexec/internal/config"
)

// annotate applies the hints a tool's file gives (its annotations block,
// or readOnly, destructive and idempotent) to its definition, whatever
// its kind: what the file says wins over the kind's defaults.
func annotate(def *toolexec.Tool, t *config.Tool) {
	if def.Annotations == nil {
		def.Annotations = &toolexec.ToolAnnotations{}
	}
	a := def.Annotations
	if t.OpenWorld != nil {
		a.OpenWorldHint = toolexec.Bool(*t.OpenWorld)
	}
	if t.Idempotent != nil {
		a.IdempotentHint = toolexec.Bool(*t.Idempotent)
	}
	if t.Destructive != nil && !t.ReadOnly {
		a.DestructiveHint = toolexec.Bool(*t.Destructive)
	}
}
