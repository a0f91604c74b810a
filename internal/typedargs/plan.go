package typedargs

import (
	"encoding"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"reflect"
	"slices"
	"strings"
)

// Plan checks JSON arguments against one schema inferred from one Go type.
// It is built by For, once per tool, and is safe for concurrent use.
type Plan struct {
	root   *node
	bounds Bounds
}

// Bounds are the validator's limits on the numbers it checks: a number
// with more digits before its exponent, or an exponent of larger
// magnitude, fails validation with its own failure, so Check leaves it to
// the validator.
type Bounds struct {
	MaxDigits   int
	MaxExponent int
}

// valueKind is the JSON type a node accepts (besides null, when nullable).
type valueKind uint8

const (
	kindBoolean valueKind = iota
	kindString
	kindInteger // a number whose value is an integer (3.0 and 1e2 are)
	kindNumber
	kindArray
	kindObject
)

// node is the plan of one schema: the JSON type it accepts and the
// constraints that type's values must meet.
type node struct {
	kind     valueKind
	nullable bool

	// kindInteger: "minimum" and "maximum".
	min, max       int64
	hasMin, hasMax bool

	// kindArray: "items", "minItems" and "maxItems" (-1 when absent).
	items              *node
	minItems, maxItems int

	// kindObject: "properties" (each with its "required"), and
	// "additionalProperties": false.
	fields []field
}

type field struct {
	name     string
	node     *node
	required bool
	index    int // the struct field's index, for decoding
}

// maxFields is the most properties one object of a plan may have: the
// check keeps which it has seen in one word.
const maxFields = 64

// For builds the plan of schema, the JSON Schema document inferred from t
// (a struct, or a pointer to one, describing a JSON object), for a
// validator that checks numbers within b.
//
// For refuses, with an error saying why, whenever the plan could differ from
// the validator or from encoding/json's decoding of t, so that the caller
// keeps the generic path. It supports: bool, string, every int and uint
// size (not uintptr), float32 and float64, slices and arrays of a supported
// type (not of bytes), pointers to a supported type (not to a pointer), and
// structs of supported exported fields with a plain JSON name (letters,
// digits, '_', '-', '.') and no option but omitempty and omitzero, at most
// 64 of them. It refuses maps, interfaces, embedded fields, types with
// their own UnmarshalJSON or UnmarshalText (time.Time among them),
// json.RawMessage, json.Number, ",string" and any schema keyword but type,
// properties, required, additionalProperties (false), items, minItems,
// maxItems, minimum, maximum (integers only), description and title.
func For(t reflect.Type, schema []byte, b Bounds) (*Plan, error) {
	var doc map[string]any
	if err := json.Unmarshal(schema, &doc); err != nil {
		return nil, fmt.Errorf("schema: %w", err)
	}
	if t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t.Kind() != reflect.Struct {
		return nil, fmt.Errorf("%s is not a struct", t)
	}
	root, err := nodeFor(t, doc)
	if err != nil {
		return nil, err
	}
	if root.nullable {
		return nil, errors.New("the root accepts null")
	}
	return &Plan{root: root, bounds: b}, nil
}

var (
	jsonUnmarshaler = reflect.TypeFor[json.Unmarshaler]()
	textUnmarshaler = reflect.TypeFor[encoding.TextUnmarshaler]()
)

// nodeFor builds the node of t, described by s.
func nodeFor(t reflect.Type, s map[string]any) (*node, error) {
	if ownDecoding(t) {
		return nil, fmt.Errorf("%s decodes itself", t)
	}
	types, err := typeList(s)
	if err != nil {
		return nil, err
	}
	n := &node{minItems: -1, maxItems: -1}
	if t.Kind() == reflect.Pointer {
		t = t.Elem()
		if t.Kind() == reflect.Pointer || ownDecoding(t) {
			return nil, fmt.Errorf("%s: unsupported pointer", t)
		}
		if !slices.Contains(types, "null") {
			return nil, fmt.Errorf("pointer to %s does not accept null", t)
		}
	}
	if i := slices.Index(types, "null"); i >= 0 {
		n.nullable = true
		types = slices.Delete(slices.Clone(types), i, i+1)
	}
	if len(types) != 1 {
		return nil, fmt.Errorf("%s: type %v", t, types)
	}
	want, keys := "", []string{"type", "description", "title"}
	switch t.Kind() {
	case reflect.Bool:
		want, n.kind = "boolean", kindBoolean
	case reflect.String:
		want, n.kind = "string", kindString
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		want, n.kind = "integer", kindInteger
		keys = append(keys, "minimum", "maximum")
		if n.min, n.hasMin, err = intBound(s, "minimum"); err != nil {
			return nil, err
		}
		if n.max, n.hasMax, err = intBound(s, "maximum"); err != nil {
			return nil, err
		}
	case reflect.Float32, reflect.Float64:
		want, n.kind = "number", kindNumber
	case reflect.Slice, reflect.Array:
		if t.Elem().Kind() == reflect.Uint8 {
			return nil, fmt.Errorf("%s: bytes", t)
		}
		if t.Kind() == reflect.Array && n.nullable {
			return nil, fmt.Errorf("%s: nullable array", t)
		}
		want, n.kind = "array", kindArray
		keys = append(keys, "items", "minItems", "maxItems")
		items, ok := s["items"].(map[string]any)
		if !ok {
			return nil, fmt.Errorf("%s: no items", t)
		}
		if n.items, err = nodeFor(t.Elem(), items); err != nil {
			return nil, err
		}
		if n.minItems, err = count(s, "minItems"); err != nil {
			return nil, err
		}
		if n.maxItems, err = count(s, "maxItems"); err != nil {
			return nil, err
		}
		if t.Kind() == reflect.Array && (n.minItems != t.Len() || n.maxItems != t.Len()) {
			return nil, fmt.Errorf("%s: length not fixed", t)
		}
	case reflect.Struct:
		want, n.kind = "object", kindObject
		keys = append(keys, "properties", "required", "additionalProperties")
		if n.fields, err = fieldsFor(t, s); err != nil {
			return nil, err
		}
	default:
		return nil, fmt.Errorf("%s is not supported", t)
	}
	if types[0] != want {
		return nil, fmt.Errorf("%s is described as %q", t, types[0])
	}
	for k := range s {
		if !slices.Contains(keys, k) {
			return nil, fmt.Errorf("%s: keyword %q", t, k)
		}
	}
	return n, nil
}

// fieldsFor builds the fields of struct t from its schema s, and refuses
// whatever encoding/json could map differently from the schema.
func fieldsFor(t reflect.Type, s map[string]any) ([]field, error) {
	if ap, ok := s["additionalProperties"].(bool); !ok || ap {
		return nil, fmt.Errorf("%s: additionalProperties is not false", t)
	}
	props, _ := s["properties"].(map[string]any)
	if s["properties"] != nil && props == nil {
		return nil, fmt.Errorf("%s: properties", t)
	}
	var fields []field
	for i := range t.NumField() {
		f := t.Field(i)
		if f.Anonymous {
			return nil, fmt.Errorf("%s: embedded field %s", t, f.Name)
		}
		if !f.IsExported() {
			continue
		}
		tag := f.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		for o := range strings.SplitSeq(opts, ",") {
			if o != "" && o != "omitempty" && o != "omitzero" {
				return nil, fmt.Errorf("%s.%s: option %q", t, f.Name, o)
			}
		}
		if name == "" {
			name = f.Name
		}
		if !plainName(name) {
			return nil, fmt.Errorf("%s.%s: JSON name %q", t, f.Name, name)
		}
		if slices.ContainsFunc(fields, func(g field) bool { return strings.EqualFold(g.name, name) }) {
			return nil, fmt.Errorf("%s: two fields named %q", t, name)
		}
		ps, ok := props[name].(map[string]any)
		if !ok {
			return nil, fmt.Errorf("%s: no property %q", t, name)
		}
		fn, err := nodeFor(f.Type, ps)
		if err != nil {
			return nil, err
		}
		fields = append(fields, field{name: name, node: fn, index: i})
	}
	if len(fields) != len(props) || len(fields) > maxFields {
		return nil, fmt.Errorf("%s: %d fields for %d properties", t, len(fields), len(props))
	}
	req, _ := s["required"].([]any)
	if s["required"] != nil && req == nil {
		return nil, fmt.Errorf("%s: required", t)
	}
	for _, r := range req {
		name, _ := r.(string)
		i := slices.IndexFunc(fields, func(f field) bool { return f.name == name })
		if i < 0 {
			return nil, fmt.Errorf("%s: required %v is no property", t, r)
		}
		fields[i].required = true
	}
	return fields, nil
}

// plainName reports whether name is a JSON name that encoding/json takes
// from a tag as it is and that no schema tool escapes: letters, digits, '_',
// '-' and '.'.
func plainName(name string) bool {
	if name == "" {
		return false
	}
	for _, c := range name {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-' || c == '.') {
			return false
		}
	}
	return true
}

// ownDecoding reports whether t (or *t) decodes itself from JSON.
func ownDecoding(t reflect.Type) bool {
	for _, u := range []reflect.Type{t, reflect.PointerTo(t)} {
		if u.Implements(jsonUnmarshaler) || u.Implements(textUnmarshaler) {
			return true
		}
	}
	return false
}

// typeList reads s's "type", a name or a list of names.
func typeList(s map[string]any) ([]string, error) {
	switch v := s["type"].(type) {
	case string:
		return []string{v}, nil
	case []any:
		out := make([]string, 0, len(v))
		for _, e := range v {
			name, ok := e.(string)
			if !ok || slices.Contains(out, name) {
				return nil, fmt.Errorf("type %v", v)
			}
			out = append(out, name)
		}
		return out, nil
	}
	return nil, fmt.Errorf("type %v", s["type"])
}

// intBound reads an integer bound that fits an int64 exactly.
func intBound(s map[string]any, key string) (int64, bool, error) {
	v, ok := s[key]
	if !ok {
		return 0, false, nil
	}
	f, ok := v.(float64)
	if !ok || f != math.Trunc(f) || math.Abs(f) > 1<<53 {
		return 0, false, fmt.Errorf("%s %v", key, v)
	}
	return int64(f), true, nil
}

// count reads a non-negative integer keyword, -1 when absent.
func count(s map[string]any, key string) (int, error) {
	v, ok := s[key]
	if !ok {
		return -1, nil
	}
	f, ok := v.(float64)
	if !ok || f != math.Trunc(f) || f < 0 || f > 1<<31 {
		return 0, fmt.Errorf("%s %v", key, v)
	}
	return int(f), nil
}
