package sametool

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/toolexec/toolexec"
)

// Same must compare every field a surface lists. A field added to Tool
// fails this test until Same (and Clone) account for it.
func TestSameKnowsEveryListedField(t *testing.T) {
	known := map[string]bool{"Name": true, "Title": true, "Description": true, "InputSchema": true, "OutputSchema": true,
		"Annotations": true, "Meta": true, "Version": true, "Requirements": true, "Options": true}
	tool := reflect.TypeFor[toolexec.Tool]()
	for i := range tool.NumField() {
		assert.True(t, known[tool.Field(i).Name], "Tool.%s is not compared by Same", tool.Field(i).Name)
	}
	hints := map[string]bool{"Title": true, "ReadOnlyHint": true, "DestructiveHint": true, "IdempotentHint": true, "OpenWorldHint": true}
	ann := reflect.TypeFor[toolexec.ToolAnnotations]()
	for i := range ann.NumField() {
		assert.True(t, hints[ann.Field(i).Name], "ToolAnnotations.%s is not compared by Annotations", ann.Field(i).Name)
	}
}

func TestSameSeesEveryChange(t *testing.T) {
	yes, no := true, false
	base := toolexec.Tool{Name: "n", Title: "t", Description: "d", Version: "1.0.0",
		InputSchema: json.RawMessage(`{}`), OutputSchema: json.RawMessage(`{}`),
		Annotations:  &toolexec.ToolAnnotations{ReadOnlyHint: &yes},
		Requirements: toolexec.Requirements{Secrets: []string{"S"}, Authorization: []toolexec.AuthorizationRequirement{{ID: "g", Scopes: []string{"a"}}}}}
	clone := Clone(&base)
	assert.True(t, Same(&base, &clone))
	changes := []func(*toolexec.Tool){
		func(t *toolexec.Tool) { t.Name = "m" },
		func(t *toolexec.Tool) { t.Title = "u" },
		func(t *toolexec.Tool) { t.Description = "e" },
		func(t *toolexec.Tool) { t.Version = "2.0.0" },
		func(t *toolexec.Tool) { t.InputSchema[0] = '[' },
		func(t *toolexec.Tool) { t.OutputSchema = nil },
		func(t *toolexec.Tool) { *t.Annotations.ReadOnlyHint = false },
		func(t *toolexec.Tool) { t.Annotations.DestructiveHint = &no },
		func(t *toolexec.Tool) { t.Annotations = nil },
		func(t *toolexec.Tool) { t.Requirements.Secrets[0] = "T" },
		func(t *toolexec.Tool) { t.Requirements.Authorization[0].Scopes[0] = "b" },
		func(t *toolexec.Tool) { t.Requirements.UserID = true },
		func(t *toolexec.Tool) { t.Meta = map[string]any{} },
	}
	for i, change := range changes {
		changed := Clone(&base) // a fresh deep copy, changed in place
		change(&changed)
		assert.False(t, Same(&clone, &changed), "change %d", i)
	}
}
