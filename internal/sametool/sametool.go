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
//
// The strings and schema bytes a provider hands out are usually the very
// same memory every time, and comparing them stops at the address.
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
