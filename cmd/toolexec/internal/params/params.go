// Package params turns declared tool parameters into a JSON Schema for the
// tool's inputSchema, and call arguments (already validated against that
// schema by the library) into Go values for a driver or a request.
package params

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"

	"github.com/toolexec/toolexec/cmd/toolexec/internal/config"
)

// Schema returns the JSON Schema of an arguments object with ps as its
// properties, in their declared order: types, descriptions, required,
// defaults, enums (from allowedValues, or a pattern when an entry is a
// regular expression, see config.AllowedEntryIsPattern; excludedValues as
// a "not" of the same), and bounds (minValue, maxValue; Bounds keeps
// numbers within what a driver can bind). Unknown properties are
// refused, so a misspelt argument fails validation instead of being
// ignored.
func Schema(ps []*config.Param) json.RawMessage {
	props := make(orderedProperties, 0, len(ps))
	required := []string{}
	for _, p := range ps {
		props = append(props, namedProperty{p.Name, property(p)})
		if p.Required {
			required = append(required, p.Name)
		}
	}
	s := map[string]any{
		"type":                 "object",
		"properties":           props,
		"additionalProperties": false,
	}
	if len(required) > 0 {
		s["required"] = required
	}
	b, err := json.Marshal(s)
	if err != nil {
		panic(err) // maps of strings, numbers and bools always marshal
	}
	return b
}

// orderedProperties are a schema's properties, encoded as a JSON object
// in their order (a map would sort them): clients that show or bind
// parameters by position (mcp-toolbox's SDKs build signatures from them)
// see them as the file declares them.
type orderedProperties []namedProperty

type namedProperty struct {
	name   string
	schema map[string]any
}

// MarshalJSON encodes the properties as one JSON object, in order.
func (o orderedProperties) MarshalJSON() ([]byte, error) {
	out := []byte{'{'}
	for i, p := range o {
		if i > 0 {
			out = append(out, ',')
		}
		k, err := json.Marshal(p.name)
		if err != nil {
			return nil, err
		}
		v, err := json.Marshal(p.schema)
		if err != nil {
			return nil, err
		}
		out = append(append(append(out, k...), ':'), v...)
	}
	return append(out, '}'), nil
}

func jsonType(t string) string {
	switch t {
	case config.TypeInteger:
		return "integer"
	case config.TypeFloat:
		return "number"
	case config.TypeBoolean:
		return "boolean"
	case config.TypeArray:
		return "array"
	case config.TypeMap:
		return "object"
	}
	return "string"
}

func property(p *config.Param) map[string]any {
	s := map[string]any{"type": jsonType(p.Type)}
	if p.Description != "" {
		s["description"] = p.Description
	}
	if p.HasDefault && p.Default != nil {
		s["default"] = p.Default
	}
	switch {
	case p.AllowedPattern != nil:
		s["pattern"] = p.AllowedPattern.String()
	case len(p.AllowedValues) > 0:
		s["enum"] = p.AllowedValues
	}
	switch {
	case p.ExcludedPattern != nil:
		s["not"] = map[string]any{"pattern": p.ExcludedPattern.String()}
	case len(p.ExcludedValues) > 0:
		s["not"] = map[string]any{"enum": p.ExcludedValues}
	}
	if p.MinValue != nil {
		s["minimum"] = *p.MinValue
	}
	if p.MaxValue != nil {
		s["maximum"] = *p.MaxValue
	}
	switch p.Type {
	case config.TypeArray:
		if p.Items != nil {
			s["items"] = property(p.Items)
		}
	case config.TypeMap:
		if p.ValueType != "" {
			s["additionalProperties"] = map[string]any{"type": jsonType(p.ValueType)}
		} else {
			s["additionalProperties"] = map[string]any{"type": []string{"string", "number", "boolean"}}
		}
	}
	return s
}

// Value returns the argument for p from args: the argument, else p's
// default, else nil. Integers come back as int64, floats as float64,
// arrays as []any of converted items, maps as map[string]any. It fails
// only on values the schema should have refused (validation off) or on
// integers beyond int64.
func Value(p *config.Param, args map[string]any) (any, error) {
	v, ok := args[p.Name]
	if !ok || v == nil {
		if p.HasDefault {
			v = p.Default
		} else {
			return nil, nil
		}
	}
	return convert(p.Name, p.Type, p.Items, v)
}

func convert(name, typ string, items *config.Param, v any) (any, error) {
	if v == nil {
		return nil, nil
	}
	switch typ {
	case config.TypeString:
		if s, ok := v.(string); ok {
			return s, nil
		}
	case config.TypeBoolean:
		if b, ok := v.(bool); ok {
			return b, nil
		}
	case config.TypeInteger:
		switch n := v.(type) {
		case float64:
			if n == math.Trunc(n) && n >= -(1<<63) && n < 1<<63 {
				return int64(n), nil
			}
		case json.Number:
			if i, err := strconv.ParseInt(string(n), 10, 64); err == nil {
				return i, nil
			}
			return nil, fmt.Errorf("argument %q: %s is not an integer in the range of a 64-bit integer", name, n)
		case int64:
			return n, nil
		case int:
			return int64(n), nil
		}
	case config.TypeFloat:
		switch n := v.(type) {
		case float64:
			return n, nil
		case json.Number:
			f, err := n.Float64()
			if err == nil {
				return f, nil
			}
		case int64:
			return float64(n), nil
		}
	case config.TypeArray:
		if a, ok := v.([]any); ok && items != nil {
			out := make([]any, len(a))
			for i, e := range a {
				c, err := convert(fmt.Sprintf("%s[%d]", name, i), items.Type, nil, e)
				if err != nil {
					return nil, err
				}
				out[i] = c
			}
			return out, nil
		}
	case config.TypeMap:
		if m, ok := v.(map[string]any); ok {
			return m, nil
		}
	}
	return nil, fmt.Errorf("argument %q is not a %s", name, typ)
}
