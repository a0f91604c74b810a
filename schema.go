package toolexec

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
	"golang.org/x/text/language"
	"golang.org/x/text/message"
)

// schemaLocation is the URL a tool's schema is compiled under. Each schema
// gets its own compiler, so one fixed location serves them all; a relative
// $ref resolves against it and is then refused by noLoader.
const schemaLocation = "toolexec:///schema.json"

// compileSchema compiles one JSON Schema document: 2020-12 unless its
// $schema names another draft (draft-07, say), formats asserted, and no
// $ref ever fetched from outside the document (no file, no network). The
// error says, in one line, why the schema cannot be used; the library's
// own panics are turned into errors too, so no schema can crash a call.
func compileSchema(raw []byte) (sch *jsonschema.Schema, err error) {
	defer func() {
		if p := recover(); p != nil {
			sch, err = nil, fmt.Errorf("the schema compiler failed: %v", p)
		}
	}()
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return nil, fmt.Errorf("not valid JSON: %v", err)
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	c.AssertFormat()
	c.UseLoader(noLoader{})
	if err := c.AddResource(schemaLocation, doc); err != nil {
		return nil, errors.New(oneLine(err.Error()))
	}
	sch, err = c.Compile(schemaLocation)
	if err != nil {
		return nil, compileError(err)
	}
	return sch, nil
}

// noLoader refuses every external reference: a tool's schema must be
// self-contained, and validating a call must never read a file or the
// network.
type noLoader struct{}

func (noLoader) Load(string) (any, error) {
	return nil, errors.New("external references are not loaded: a tool's schema must be self-contained")
}

// compileError reduces a compiler error to one line. A schema that breaks
// its meta-schema is described by the first rule it breaks.
func compileError(err error) error {
	var sve *jsonschema.SchemaValidationError
	if errors.As(err, &sve) {
		if fs := validationFailures(sve.Err); len(fs) > 0 {
			f := fs[0]
			at := f.Path
			if at == "" {
				at = "the root"
			}
			msg := fmt.Sprintf("at %s: %s", at, f.Message)
			if len(fs) > 1 {
				msg += fmt.Sprintf(" (and %d more)", len(fs)-1)
			}
			return errors.New(msg)
		}
	}
	return errors.New(oneLine(err.Error()))
}

// validateValue checks v, a value in the validator's JSON model (see
// jsonValue), against sch and lists every failure; nil means valid.
func validateValue(sch *jsonschema.Schema, v any) (failures []ValidationFailure) {
	defer func() {
		if p := recover(); p != nil {
			failures = []ValidationFailure{{Message: fmt.Sprintf("the validator failed: %v", p), Keyword: "schema"}}
		}
	}()
	err := sch.Validate(v)
	if err == nil {
		return nil
	}
	return validationFailures(err)
}

// validationFailures flattens the validator's error tree into its leaves,
// one ValidationFailure each, sorted by path. A missing required property is
// reported at the property's own pointer ("/location"), as is a property
// that additionalProperties forbids, so every failure names the exact field.
func validationFailures(err error) []ValidationFailure {
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		return []ValidationFailure{{Message: oneLine(err.Error()), Keyword: "schema"}}
	}
	p := message.NewPrinter(language.English)
	var out []ValidationFailure
	var walk func(e *jsonschema.ValidationError)
	walk = func(e *jsonschema.ValidationError) {
		if len(e.Causes) > 0 {
			for _, c := range e.Causes {
				walk(c)
			}
			return
		}
		at := jsonPointer(e.InstanceLocation)
		switch k := e.ErrorKind.(type) {
		case *kind.Required:
			for _, name := range k.Missing {
				out = append(out, ValidationFailure{Path: at + "/" + escapePointer(name),
					Message: (&kind.Required{Missing: []string{name}}).LocalizedString(p), Keyword: "required"})
			}
		case *kind.DependentRequired:
			for _, name := range k.Missing {
				out = append(out, ValidationFailure{Path: at + "/" + escapePointer(name),
					Message: (&kind.DependentRequired{Prop: k.Prop, Missing: []string{name}}).LocalizedString(p),
					Keyword: "dependentRequired"})
			}
		case *kind.AdditionalProperties:
			for _, name := range k.Properties {
				out = append(out, ValidationFailure{Path: at + "/" + escapePointer(name),
					Message: (&kind.AdditionalProperties{Properties: []string{name}}).LocalizedString(p),
					Keyword: "additionalProperties"})
			}
		default:
			out = append(out, ValidationFailure{Path: at, Message: e.ErrorKind.LocalizedString(p), Keyword: keywordOf(e.ErrorKind)})
		}
	}
	walk(ve)
	slices.SortStableFunc(out, func(a, b ValidationFailure) int {
		if c := strings.Compare(a.Path, b.Path); c != 0 {
			return c
		}
		if c := strings.Compare(a.Keyword, b.Keyword); c != 0 {
			return c
		}
		return strings.Compare(a.Message, b.Message)
	})
	return slices.Compact(out)
}

// keywordOf names the schema keyword an error kind stands for.
func keywordOf(k jsonschema.ErrorKind) string {
	if kp := k.KeywordPath(); len(kp) > 0 {
		return kp[0]
	}
	switch k.(type) {
	case *kind.FalseSchema:
		return "false"
	case *kind.InvalidJsonValue:
		return "type"
	}
	return "schema"
}

// jsonPointer joins reference tokens into a JSON Pointer (RFC 6901); no
// tokens is the root, "".
func jsonPointer(tokens []string) string {
	var b strings.Builder
	for _, t := range tokens {
		b.WriteByte('/')
		b.WriteString(escapePointer(t))
	}
	return b.String()
}

// escapePointer escapes one reference token: '~' as "~0", '/' as "~1".
func escapePointer(s string) string {
	if !strings.ContainsAny(s, "~/") {
		return s
	}
	return strings.NewReplacer("~", "~0", "/", "~1").Replace(s)
}

func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

// jsonValue turns v into the validator's JSON model: map[string]any, []any,
// string, bool, nil and numbers. Arguments the pipeline decoded are already
// in it (numbers are float64, which the validator reads exactly, so 3.0 is
// an integer and 3.5 is not) and pass through untouched. A json.RawMessage
// is decoded as arguments are, every number kept exact; anything else (an
// interceptor's []string, a struct) goes through encoding/json first.
func jsonValue(v any) (any, error) {
	switch v := v.(type) {
	case json.RawMessage:
		return decodeValue(v)
	}
	if isJSONModel(v) {
		return v, nil
	}
	data, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	return decodeValue(data)
}

// isJSONModel reports whether v is built only of the types encoding/json
// decodes into any (plus json.Number).
func isJSONModel(v any) bool {
	switch v := v.(type) {
	case nil, bool, string, json.Number:
		return true
	case float64:
		return !isNaNOrInf(v)
	case map[string]any:
		for _, e := range v {
			if !isJSONModel(e) {
				return false
			}
		}
		return true
	case []any:
		for _, e := range v {
			if !isJSONModel(e) {
				return false
			}
		}
		return true
	}
	return false
}

func isNaNOrInf(f float64) bool { return f != f || f-f != 0 }
