package infer

import (
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
)

// Schema inference for typed tools: github.com/google/jsonschema-go (the
// inference of the official MCP Go SDK) with corrections so the schema
// describes what encoding/json actually reads and writes:
//
//   - time.Time is a string of format "date-time" (RFC 3339);
//   - json.RawMessage is any JSON value ({}), as is any;
//   - []byte is a base64 string (or null, as a nil slice is written), not
//     an array of numbers;
//   - a pointer field is optional even without omitempty: an absent
//     property decodes to nil exactly as null does;
//   - an embedded field that encoding/json would not flatten (an embedded
//     struct given a JSON name, or an embedded non-struct) is refused rather
//     than described wrongly.

// inferOptions are the type overrides of the inference. They are built per
// call, never shared, so no caller can change another's.
func inferOptions() *jsonschema.ForOptions {
	return &jsonschema.ForOptions{TypeSchemas: map[reflect.Type]*jsonschema.Schema{
		reflect.TypeFor[time.Time]():       {Type: "string", Format: "date-time"},
		reflect.TypeFor[json.RawMessage](): {},
		reflect.TypeFor[[]byte]():          {Types: []string{"null", "string"}, ContentEncoding: "base64"},
	}}
}

// inferSchema describes t, or says why it cannot be described.
func inferSchema(t reflect.Type) (*jsonschema.Schema, error) {
	if err := checkEmbedded(t, map[reflect.Type]bool{}); err != nil {
		return nil, err
	}
	s, err := jsonschema.ForType(t, inferOptions())
	if err != nil {
		return nil, err
	}
	fixNullOnly(s)
	relaxPointers(t, s)
	return s, nil
}

// ObjectSchema infers the schema of t, which must describe a JSON
// object: a struct, a map with string keys, or a pointer to one (the
// pointer's "or null" is dropped: arguments and structured content are
// always objects). allowAny lets a type with no constraint at all (any,
// json.RawMessage) stand for any object.
func ObjectSchema(t reflect.Type, allowAny bool) (json.RawMessage, error) {
	s, err := inferSchema(t)
	if err != nil {
		return nil, err
	}
	if len(s.Types) == 2 && s.Types[0] == "null" {
		s.Type, s.Types = s.Types[1], nil
	}
	switch {
	case s.Type == "object":
	case allowAny && s.Type == "" && len(s.Types) == 0:
		s.Type = "object"
	default:
		got := s.Type
		if got == "" {
			got = strings.Join(s.Types, " or ")
		}
		if got == "" {
			got = "any JSON value"
		}
		return nil, fmt.Errorf("%s is described as %s, but it must describe a JSON object: use a struct or a map with string keys", t, got)
	}
	data, err := json.Marshal(s)
	if err != nil {
		return nil, fmt.Errorf("the schema inferred for %s cannot be encoded: %w", t, err)
	}
	return data, nil
}

// fixNullOnly repairs the schema of a pointer to a type with an empty
// override (*json.RawMessage): the inference turns {} into {"type":
// ["null"]}, when the pointer adds nothing to "any value".
func fixNullOnly(s *jsonschema.Schema) {
	if s == nil {
		return
	}
	if s.Type == "" && len(s.Types) == 1 && s.Types[0] == "null" {
		s.Types = nil
	}
	for _, p := range s.Properties {
		fixNullOnly(p)
	}
	fixNullOnly(s.Items)
	fixNullOnly(s.AdditionalProperties)
}

// relaxPointers drops pointer fields from the required lists of s, the
// schema inferred for t, at every depth.
func relaxPointers(t reflect.Type, s *jsonschema.Schema) {
	if s == nil {
		return
	}
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.Slice, reflect.Array:
		relaxPointers(t.Elem(), s.Items)
	case reflect.Map:
		relaxPointers(t.Elem(), s.AdditionalProperties)
	case reflect.Struct:
		for _, f := range reflect.VisibleFields(t) {
			if f.Anonymous || !f.IsExported() {
				continue
			}
			name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			if name == "-" && f.Tag.Get("json") == "-" {
				continue
			}
			if name == "" {
				name = f.Name
			}
			ps := s.Properties[name]
			if ps == nil {
				continue
			}
			if f.Type.Kind() == reflect.Pointer {
				s.Required = slices.DeleteFunc(s.Required, func(r string) bool { return r == name })
			}
			relaxPointers(f.Type, ps)
		}
	}
}

// checkEmbedded refuses embedded fields whose JSON form the inference would
// get wrong: encoding/json flattens an embedded struct only when it has no
// JSON name, and never flattens an embedded non-struct.
func checkEmbedded(t reflect.Type, seen map[reflect.Type]bool) error {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if seen[t] {
		return nil
	}
	seen[t] = true
	switch t.Kind() {
	case reflect.Slice, reflect.Array, reflect.Map:
		return checkEmbedded(t.Elem(), seen)
	case reflect.Struct:
	default:
		return nil
	}
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		tag := f.Tag.Get("json")
		if tag == "-" {
			continue
		}
		if f.Anonymous {
			ft := f.Type
			for ft.Kind() == reflect.Pointer {
				ft = ft.Elem()
			}
			name, _, _ := strings.Cut(tag, ",")
			switch {
			case ft.Kind() != reflect.Struct && (f.IsExported() || name != ""):
				return fmt.Errorf("embedded field %s of %s is not a struct: give it a field name", f.Name, t)
			case ft.Kind() == reflect.Struct && name != "":
				return fmt.Errorf("embedded struct %s of %s has the JSON name %q: encoding/json does not flatten it, so give it a field name", f.Name, t, name)
			}
		} else if !f.IsExported() {
			continue
		}
		if err := checkEmbedded(f.Type, seen); err != nil {
			return err
		}
	}
	return nil
}
