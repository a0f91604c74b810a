package main

import (
	"context"
	"time"

	"github.com/toolexec/toolexec"
)

// AddInput is the input of math_add 1.0.0; its schema is inferred from the
// struct, so {"a": "x"} is refused before the handler runs.
type AddInput struct {
	A int64 `json:"a" jsonschema:"the first addend"`
	B int64 `json:"b" jsonschema:"the second addend"`
}

// AddOutput is what both versions of math_add answer: structuredContent,
// plus a text block with the same JSON.
type AddOutput struct {
	Sum int64 `json:"sum"`
}

// AddManyInput is the input of math_add 2.0.0, which adds any number of
// integers.
type AddManyInput struct {
	Numbers []int64 `json:"numbers" jsonschema:"the integers to add"`
}

// addTypedTools registers math_add in two versions. REST and MCP serve the
// latest (2.0.0); OXP can also reach 1.0.0 as "Tools.math_add@1". Results are
// cached for a minute: the same arguments never run the handler twice.
func addTypedTools(reg *toolexec.Registry) {
	cached := toolexec.ToolOptions{Cache: true, CacheShared: true, CacheTTL: time.Minute}
	toolexec.MustAddTool(reg, toolexec.Tool{
		Name:        "math_add",
		Version:     "1.0.0",
		Description: "Adds two integers a and b. A typed tool: its schemas are inferred from Go types.",
		Options:     cached,
	}, func(_ context.Context, in AddInput) (AddOutput, error) {
		return AddOutput{Sum: in.A + in.B}, nil
	})
	toolexec.MustAddTool(reg, toolexec.Tool{
		Name:        "math_add",
		Version:     "2.0.0",
		Description: "Adds a list of integers. Version 1.0.0 (two integers a and b) is still served over OXP.",
		Options:     cached,
	}, func(_ context.Context, in AddManyInput) (AddOutput, error) {
		var sum int64
		for _, n := range in.Numbers {
			sum += n
		}
		return AddOutput{Sum: sum}, nil
	})
}
