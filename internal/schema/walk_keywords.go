package schema

import (
	"maps"
	"slices"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
)

// common reports whether s has no keyword that applies another schema to
// the same value, or depends on what others did (unevaluated*), other than
// $ref.
func common(s *jsonschema.Schema) bool {
	return s.RecursiveRef == nil && s.DynamicRef == nil &&
		s.Not == nil && len(s.AllOf) == 0 && len(s.AnyOf) == 0 && len(s.OneOf) == 0 &&
		s.If == nil && len(s.Extensions) == 0
}

// objectKeywordsOnly reports whether the walk takes s apart for an object.
func objectKeywordsOnly(s *jsonschema.Schema) bool {
	return common(s) && s.PropertyNames == nil && len(s.Dependencies) == 0 && len(s.DependentSchemas) == 0 &&
		s.UnevaluatedProperties == nil
}

// arrayKeywordsOnly reports whether the walk takes s apart for an array.
func arrayKeywordsOnly(s *jsonschema.Schema) bool {
	return common(s) && s.Contains == nil && s.UnevaluatedItems == nil
}

// scalarKeywordsOnly reports whether scalarFailures checks s for a scalar
// exactly: no $ref or content keywords.
func scalarKeywordsOnly(s *jsonschema.Schema) bool {
	return common(s) && s.Ref == nil &&
		s.ContentEncoding == nil && s.ContentMediaType == nil && s.ContentSchema == nil
}

// pureRef reports whether s does nothing to a scalar but apply its $ref.
func pureRef(s *jsonschema.Schema) bool {
	return s.Ref != nil && common(s) && s.Types == nil && s.Enum == nil && s.Const == nil &&
		s.Format == nil && s.MinLength == nil && s.MaxLength == nil && s.Pattern == nil &&
		s.ContentEncoding == nil && s.ContentMediaType == nil && s.ContentSchema == nil &&
		s.Minimum == nil && s.Maximum == nil && s.ExclusiveMinimum == nil &&
		s.ExclusiveMaximum == nil && s.MultipleOf == nil
}

// typeCheck reports whether s's type keyword fails v, adding the failure.
func (w *boundedWalk) typeCheck(s *jsonschema.Schema, v any) bool {
	if s.Types == nil || s.Types.IsEmpty() {
		return false
	}
	if w.types(s.Types).allows(v) {
		return false
	}
	w.fail("", false, "type", func() jsonschema.ErrorKind {
		return &kind.Type{Got: typeName(v), Want: s.Types.ToStrings()}
	})
	return true
}

// valueCheck reports whether s's const, enum or format keyword fails v,
// a container, adding the failure. The library checks them, and stops at
// the first that fails, before any other keyword but type; they are
// checked here by the library, on a schema of those keywords alone, whose
// answer is one failure at most.
func (w *boundedWalk) valueCheck(s *jsonschema.Schema, v any) bool {
	if s.Const == nil && s.Enum == nil && s.Format == nil {
		return false
	}
	vs, ok := w.cache.values[s]
	if !ok {
		vs = &jsonschema.Schema{DraftVersion: s.DraftVersion, Location: s.Location, Const: s.Const, Enum: s.Enum, Format: s.Format}
		w.cache.values[s] = vs
	}
	before := w.total
	w.library(vs, v)
	return w.total > before
}

// object validates an object against s, whose keywords objectKeywordsOnly
// allows, in the library's order.
func (w *boundedWalk) object(s *jsonschema.Schema, obj map[string]any) {
	if w.typeCheck(s, obj) || w.valueCheck(s, obj) {
		return
	}
	if s.Ref != nil {
		w.visit(s.Ref, obj)
		if s.DraftVersion < 2019 {
			return // before 2019-09, $ref replaces the keywords beside it
		}
	}
	if s.MinProperties != nil && len(obj) < *s.MinProperties {
		w.fail("", false, "minProperties", func() jsonschema.ErrorKind {
			return &kind.MinProperties{Got: len(obj), Want: *s.MinProperties}
		})
	}
	if s.MaxProperties != nil && len(obj) > *s.MaxProperties {
		w.fail("", false, "maxProperties", func() jsonschema.ErrorKind {
			return &kind.MaxProperties{Got: len(obj), Want: *s.MaxProperties}
		})
	}
	for _, name := range s.Required {
		if _, ok := obj[name]; !ok {
			w.fail(name, true, "required", func() jsonschema.ErrorKind { return &kind.Required{} })
		}
	}
	if w.failed {
		return
	}
	// The names in path order, on a stack the objects on the path share.
	start := len(w.names)
	for name := range obj {
		w.names = append(w.names, name)
	}
	names := w.names[start:]
	slices.SortFunc(names, compareTokens)
	defer func() { w.names = w.names[:start] }()
	var rc relCache
	for _, name := range names {
		if w.failed {
			return
		}
		if w.noKeep || w.stop {
			w.member(s, obj, name)
			continue
		}
		if next, rel := w.relation(&rc); rel == relBefore || rel == relPrefix && compareTokens(name, next) <= 0 {
			w.member(s, obj, name)
			continue
		}
		w.noKeep = true // every failure under this member comes after those kept
		w.member(s, obj, name)
		w.noKeep = false
	}
	if len(s.DependentRequired) == 0 {
		return
	}
	for _, prop := range slices.Sorted(maps.Keys(s.DependentRequired)) {
		if _, ok := obj[prop]; !ok {
			continue
		}
		for _, name := range s.DependentRequired[prop] {
			if _, ok := obj[name]; !ok {
				w.fail(name, true, "dependentRequired", func() jsonschema.ErrorKind {
					return &kind.DependentRequired{Prop: prop}
				})
			}
		}
	}
}

// member validates the member name of obj against s's properties,
// patternProperties and additionalProperties.
func (w *boundedWalk) member(s *jsonschema.Schema, obj map[string]any, name string) {
	val := obj[name]
	evaluated := false
	if p, ok := s.Properties[name]; ok {
		evaluated = true
		w.child(p, val, name)
	}
	for re, p := range s.PatternProperties {
		if re.MatchString(name) {
			evaluated = true
			w.child(p, val, name)
		}
	}
	if !evaluated && s.AdditionalProperties != nil {
		switch a := s.AdditionalProperties.(type) {
		case bool:
			if !a {
				w.fail(name, true, "additionalProperties", func() jsonschema.ErrorKind { return &kind.AdditionalProperties{} })
			}
		case *jsonschema.Schema:
			w.child(a, val, name)
		}
	}
}

// array validates an array against s, whose keywords arrayKeywordsOnly
// allows, in the library's order.
func (w *boundedWalk) array(s *jsonschema.Schema, arr []any) {
	if w.typeCheck(s, arr) || w.valueCheck(s, arr) {
		return
	}
	if s.Ref != nil {
		w.visit(s.Ref, arr)
		if s.DraftVersion < 2019 {
			return // before 2019-09, $ref replaces the keywords beside it
		}
	}
	if w.failed {
		return
	}
	if s.MinItems != nil && len(arr) < *s.MinItems {
		w.fail("", false, "minItems", func() jsonschema.ErrorKind { return &kind.MinItems{Got: len(arr), Want: *s.MinItems} })
	}
	if s.MaxItems != nil && len(arr) > *s.MaxItems {
		w.fail("", false, "maxItems", func() jsonschema.ErrorKind { return &kind.MaxItems{Got: len(arr), Want: *s.MaxItems} })
	}
	if s.UniqueItems && len(arr) > 1 {
		// One failure at most, naming the first two equal items: the
		// library finds them, on a schema of that keyword alone.
		us, ok := w.cache.unique[s.DraftVersion]
		if !ok {
			us = &jsonschema.Schema{DraftVersion: s.DraftVersion, Location: s.Location, UniqueItems: true}
			w.cache.unique[s.DraftVersion] = us
		}
		w.library(us, arr)
	}
	var rc relCache
	each := func(from int, sch *jsonschema.Schema) {
		for i := from; i < len(arr) && !w.failed; i++ {
			w.item(sch, arr, i, &rc)
		}
	}
	if s.DraftVersion < 2020 {
		evaluated := 0
		switch items := s.Items.(type) {
		case *jsonschema.Schema:
			each(0, items)
			evaluated = len(arr)
		case []*jsonschema.Schema:
			evaluated = min(len(arr), len(items))
			for i := 0; i < evaluated && !w.failed; i++ {
				w.item(items[i], arr, i, &rc)
			}
		}
		switch a := s.AdditionalItems.(type) {
		case bool:
			if !a && evaluated != len(arr) {
				w.fail("", false, "additionalItems", func() jsonschema.ErrorKind {
					return &kind.AdditionalItems{Count: len(arr) - evaluated}
				})
			}
		case *jsonschema.Schema:
			each(evaluated, a)
		}
		return
	}
	evaluated := min(len(arr), len(s.PrefixItems))
	for i := 0; i < evaluated && !w.failed; i++ {
		w.item(s.PrefixItems[i], arr, i, &rc)
	}
	if s.Items2020 != nil {
		each(evaluated, s.Items2020)
	}
}

// scalar validates a string, number, boolean or null against s, whose
// keywords scalarKeywordsOnly allows: counted here without the library,
// and handed to the library for its words only when one of its failures is
// among the first MaxFailures.
func (w *boundedWalk) scalar(s *jsonschema.Schema, v any) {
	kws, n := scalarFailures(s, w.types, v, &w.rats)
	if n == 0 {
		return
	}
	if w.stop {
		w.total += n
		w.failed = true
		return
	}
	if !w.noKeep {
		w.materialize()
	}
	for _, kw := range kws[:n] {
		l := rankedLeaf{failureLeaf: failureLeaf{at: w.path, keyword: kw}}
		if !w.noKeep && (len(w.best) < MaxFailures || compareRanked(&l, w.best[0]) < 0) {
			w.library(s, v) // the same failures, in the library's words
			return
		}
	}
	w.total += n
	w.seq += n
}

// types returns the set a type keyword allows, computed once per schema.
func (w *boundedWalk) types(t *jsonschema.Types) typeSet {
	ts, ok := w.cache.types[t]
	if !ok {
		for _, name := range t.ToStrings() {
			ts |= typeBit(name)
		}
		w.cache.types[t] = ts
	}
	return ts
}
