// Package sametool tells whether two tool descriptions would be listed
// alike, cheaply, for the caches of tool-list encodings (see
// internal/toolenc).
package sametool

import (
	"bytes"
	"slices"

	"github.com/toolexec/toolexec"
)

// Same reports whether b is described exactly as a on every surface: the
// same name, title, description, version, schemas, annotations and
// requirements. A tool with a _meta map is never the same as any tool, not
// even itself: its map may change in place, and comparing it is not cheap,
// so it is encoded on every use. Execution options are not compared: no
// surface lists them.
func Same(a, b *toolexec.Tool) bool {
	return a.Meta == nil && b.Meta == nil &&
		a.Name == b.Name && a.Title == b.Title && a.Description == b.Description && a.Version == b.Version &&
		bytes.Equal(a.InputSchema, b.InputSchema) && (a.InputSchema == nil) == (b.InputSchema == nil) &&
		bytes.Equal(a.OutputSchema, b.OutputSchema) && (a.OutputSchema == nil) == (b.OutputSchema == nil) &&
		Annotations(a.Annotations, b.Annotations) &&
		sameRequirements(&a.Requirements, &b.Requirements)
}

// Annotations reports whether a and b hold the same hints (nil only equals
// nil).
func Annotations(a, b *toolexec.ToolAnnotations) bool {
	if a == nil || b == nil {
		return a == b
	}
	return a.Title == b.Title && sameBool(a.ReadOnlyHint, b.ReadOnlyHint) && sameBool(a.DestructiveHint, b.DestructiveHint) &&
		sameBool(a.IdempotentHint, b.IdempotentHint) && sameBool(a.OpenWorldHint, b.OpenWorldHint)
}

func sameBool(a, b *bool) bool {
	if a == nil || b == nil {
		return a == b
	}
	return *a == *b
}

func sameRequirements(a, b *toolexec.Requirements) bool {
	return a.UserID == b.UserID && slices.Equal(a.Secrets, b.Secrets) &&
		slices.EqualFunc(a.Authorization, b.Authorization, func(x, y toolexec.AuthorizationRequirement) bool {
			return x.ID == y.ID && slices.Equal(x.Scopes, y.Scopes) && (x.Scopes == nil) == (y.Scopes == nil)
		})
}

// Clone copies t deeply enough for Same to see a later change the provider
// makes in place: the schemas, the annotations and the requirements are
// copied; strings cannot change. Meta is not copied: Same never matches a
// tool that has one.
func Clone(t *toolexec.Tool) toolexec.Tool {
	c := *t
	c.InputSchema = bytes.Clone(t.InputSchema)
	c.OutputSchema = bytes.Clone(t.OutputSchema)
	c.Annotations = CloneAnnotations(t.Annotations)
	c.Requirements.Secrets = slices.Clone(t.Requirements.Secrets)
	c.Requirements.Authorization = slices.Clone(t.Requirements.Authorization)
	for i := range c.Requirements.Authorization {
		c.Requirements.Authorization[i].Scopes = slices.Clone(c.Requirements.Authorization[i].Scopes)
	}
	c.Options = toolexec.ToolOptions{}
	return c
}

// CloneAnnotations copies a and the hints it points to.
func CloneAnnotations(a *toolexec.ToolAnnotations) *toolexec.ToolAnnotations {
	if a == nil {
		return nil
	}
	c := *a
	c.ReadOnlyHint = cloneBool(a.ReadOnlyHint)
	c.DestructiveHint = cloneBool(a.DestructiveHint)
	c.IdempotentHint = cloneBool(a.IdempotentHint)
	c.OpenWorldHint = cloneBool(a.OpenWorldHint)
	return &c
}

func cloneBool(b *bool) *bool {
	if b == nil {
		return nil
	}
	v := *b
	return &v
}
