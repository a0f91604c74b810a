package schema

import (
	"maps"
	"slices"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"golang.org/x/text/message"
)

// FullValidationNodes is the most JSON values (objects, arrays and scalars,
// counted one each) an instance may hold for the whole instance to be
// checked by the validator library in one pass, as it always was. A larger
// instance is walked by boundedWalk, which keeps the memory of a validation
// bounded whatever the instance holds: the library builds its whole error
// tree (a few hundred bytes per failure) before the first MaxFailures are
// kept, the walk keeps only those.
//
// The same bound decides which parts of a larger instance the walk hands to
// the library whole: a value of at most this many nodes.
const FullValidationNodes = 256

// MaxLibraryNodes is the most JSON values the validator library is ever
// handed at once: it bounds the memory of the few checks only the library
// makes on a value whole (under unevaluatedProperties, unevaluatedItems,
// $dynamicRef or $recursiveRef, where its valid-or-not mode still holds
// ~100 bytes per failing array item, and its full mode a few hundred per
// failure). A larger value that needs such a check fails with one failure,
// keyword "schema" and uncheckableMessage, instead of costing memory in
// proportion to its size.
const MaxLibraryNodes = 16384

// uncheckableMessage is the failure of a value too large to check against
// the part of its schema only the library checks.
const uncheckableMessage = "cannot be checked: the value holds more than 16384 values and its schema uses a keyword checked only on the whole value (unevaluatedProperties, unevaluatedItems, $dynamicRef or $recursiveRef)"

// uncheckable is the error kind of the failure uncheckableMessage words.
type uncheckable struct{}

func (uncheckable) KeywordPath() []string                   { return []string{"schema"} }
func (uncheckable) LocalizedString(*message.Printer) string { return uncheckableMessage }

// tooLargeMessage is the one failure listed for a value that fails a part
// of the schema the walk does not take apart (anyOf, oneOf, allOf, not,
// if, contains, propertyNames, dependentSchemas, unevaluated*, ...) when
// the value holds more than FullValidationNodes values: listing every
// failure under it would cost the library's error tree.
const tooLargeMessage = "does not match the schema (the value is too large to list every failure)"

// tooLarge is the error kind of the failure tooLargeMessage words.
type tooLarge struct{}

func (tooLarge) KeywordPath() []string                   { return []string{"schema"} }
func (tooLarge) LocalizedString(*message.Printer) string { return tooLargeMessage }

// validateBounded validates v against sch with the library alone when v
// holds at most limit nodes (or the schema resolves references by dynamic
// scope, which only the library does right), else with boundedWalk.
func validateBounded(sch *jsonschema.Schema, v any, limit int) ([]Failure, int) {
	n := countNodes(v, max(limit, MaxLibraryNodes))
	if n <= limit || usesDynamicScope(sch) {
		if n > MaxLibraryNodes {
			return []Failure{{Path: "", Message: uncheckableMessage, Keyword: "schema"}}, 0
		}
		err := sch.Validate(v)
		if err == nil {
			return nil, 0
		}
		return validationFailures(err)
	}
	w := newWalk(limit, false)
	w.visit(sch, v)
	if w.total == 0 {
		return nil, 0
	}
	return w.failures()
}

// countNodes counts the values v holds, itself included, stopping once the
// count passes limit.
func countNodes(v any, limit int) int {
	n := 0
	var count func(v any)
	count = func(v any) {
		n++
		switch v := v.(type) {
		case map[string]any:
			for _, e := range v {
				if n > limit {
					return
				}
				count(e)
			}
		case []any:
			for _, e := range v {
				if n > limit {
					return
				}
				count(e)
			}
		}
	}
	count(v)
	return n
}

// small reports whether the library may validate v whole: a scalar (its
// errors are bounded by the schema, not the input) or a container of at
// most limit nodes.
func small(v any, limit int) bool {
	switch v.(type) {
	case map[string]any, []any:
		return countNodes(v, limit) <= limit
	}
	return true
}

// usesDynamicScope reports whether any schema reachable from sch uses
// $dynamicRef or $recursiveRef, whose target depends on the path taken from
// the root: the library gets them right only validating from the root.
func usesDynamicScope(sch *jsonschema.Schema) bool {
	seen := map[*jsonschema.Schema]bool{}
	var found bool
	var walk func(s *jsonschema.Schema)
	walk = func(s *jsonschema.Schema) {
		if s == nil || found || seen[s] {
			return
		}
		seen[s] = true
		if s.DynamicRef != nil || s.RecursiveRef != nil {
			found = true
			return
		}
		for _, c := range subschemas(s) {
			walk(c)
		}
	}
	walk(sch)
	return found
}

// subschemas lists the schemas s applies to its value or its value's parts.
func subschemas(s *jsonschema.Schema) []*jsonschema.Schema {
	out := []*jsonschema.Schema{s.Ref, s.Not, s.If, s.Then, s.Else, s.PropertyNames,
		s.UnevaluatedProperties, s.Contains, s.Items2020, s.UnevaluatedItems, s.ContentSchema}
	out = append(out, s.AllOf...)
	out = append(out, s.AnyOf...)
	out = append(out, s.OneOf...)
	out = append(out, s.PrefixItems...)
	out = slices.AppendSeq(out, maps.Values(s.Properties))
	out = slices.AppendSeq(out, maps.Values(s.PatternProperties))
	out = slices.AppendSeq(out, maps.Values(s.DependentSchemas))
	for _, d := range s.Dependencies {
		if d, ok := d.(*jsonschema.Schema); ok {
			out = append(out, d)
		}
	}
	for _, a := range []any{s.AdditionalProperties, s.AdditionalItems, s.Items} {
		switch a := a.(type) {
		case *jsonschema.Schema:
			out = append(out, a)
		case []*jsonschema.Schema:
			out = append(out, a...)
		}
	}
	if s.DynamicRef != nil {
		out = append(out, s.DynamicRef.Ref)
	}
	return out
}
