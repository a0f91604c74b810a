package schema

import (
	"slices"
	"strconv"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// valid reports whether v is valid against s, by the library in its
// valid-or-not mode, which builds no error tree (but for an empty error per
// failing array item). A value of more than MaxLibraryNodes values is not
// handed to it: valid reports false and marks the walk's cache uncheckable,
// so the failure says why.
func (w *boundedWalk) valid(s *jsonschema.Schema, v any) bool {
	if !small(v, MaxLibraryNodes) {
		w.cache.uncheckable = true
		return false
	}
	wr, ok := w.cache.wrappers[s]
	if !ok {
		no := false
		// if s then (nothing) else false: the library checks an if
		// subschema for validity only, stopping at its first failure.
		wr = &jsonschema.Schema{DraftVersion: 2020, Location: s.Location, If: s, Else: &jsonschema.Schema{Location: s.Location, Bool: &no}}
		w.cache.wrappers[s] = wr
	}
	return wr.Validate(v) == nil
}

// checkLarge reports whether v, a container of more than limit nodes, is
// valid against s, which the walk does not take apart. A schema whose other
// keywords the walk takes apart is checked part by part, each in check
// mode: its combinators (allOf, anyOf, oneOf, not, if/then/else),
// dependentSchemas, dependencies, propertyNames and contains; then, if it
// has unevaluatedProperties or unevaluatedItems, s as a whole by the
// library's valid-or-not mode. That mode stops early in objects but not in
// arrays, holding an empty error for each item of an array that fails: with
// every other keyword passed first, only an anyOf or oneOf branch that
// fails (or unevaluatedItems itself) can cost that. A schema with any other
// keyword ($dynamicRef aside, which never gets here) goes to the library's
// valid-or-not mode whole.
func (w *boundedWalk) checkLarge(s *jsonschema.Schema, v any) bool {
	rest := w.stripped(s)
	if rest == nil {
		return w.valid(s, v)
	}
	c := &boundedWalk{limit: w.limit, stop: true, path: w.path, cache: w.cache,
		chain: w.chain, chainStart: w.chainStart}
	ok := func(sub *jsonschema.Schema) bool {
		c.failed = false
		c.visit(sub, v)
		return !c.failed
	}
	if !ok(rest) {
		return false
	}
	for _, a := range s.AllOf {
		if !ok(a) {
			return false
		}
	}
	if len(s.AnyOf) > 0 && !slices.ContainsFunc(s.AnyOf, ok) {
		return false
	}
	if len(s.OneOf) > 0 {
		n := 0
		for _, o := range s.OneOf {
			if ok(o) {
				n++
			}
		}
		if n != 1 {
			return false
		}
	}
	if s.Not != nil && ok(s.Not) {
		return false
	}
	if s.If != nil {
		if ok(s.If) {
			if s.Then != nil && !ok(s.Then) {
				return false
			}
		} else if s.Else != nil && !ok(s.Else) {
			return false
		}
	}
	switch v := v.(type) {
	case map[string]any:
		if !c.objectApplicators(s, v, ok) {
			return false
		}
	case []any:
		if !c.contains(s, v) {
			return false
		}
	}
	if s.UnevaluatedProperties != nil || s.UnevaluatedItems != nil {
		// What the other keywords evaluated decides what is left: the
		// library checks that, once everything else passed, so the large
		// failures are found above, stopping at the first.
		return w.valid(s, v)
	}
	return true
}

// objectApplicators reports whether obj passes s's keywords that apply
// schemas to it or its names when it has some property: dependentSchemas,
// dependencies and propertyNames.
func (c *boundedWalk) objectApplicators(s *jsonschema.Schema, obj map[string]any, ok func(*jsonschema.Schema) bool) bool {
	for name, dep := range s.DependentSchemas {
		if _, has := obj[name]; has && !ok(dep) {
			return false
		}
	}
	for name, dep := range s.Dependencies {
		if _, has := obj[name]; !has {
			continue
		}
		switch dep := dep.(type) {
		case []string:
			for _, d := range dep {
				if _, has := obj[d]; !has {
					return false
				}
			}
		case *jsonschema.Schema:
			if !ok(dep) {
				return false
			}
		}
	}
	if s.PropertyNames != nil && s.DraftVersion > 4 {
		for name := range obj {
			c.failed = false
			c.child(s.PropertyNames, name, name)
			if c.failed {
				return false
			}
		}
	}
	return true
}

// contains reports whether arr passes s's contains, minContains and
// maxContains.
func (c *boundedWalk) contains(s *jsonschema.Schema, arr []any) bool {
	if s.Contains == nil {
		return true
	}
	matched := 0
	for i, item := range arr {
		c.failed = false
		c.child(s.Contains, item, strconv.Itoa(i))
		if !c.failed {
			matched++
		}
	}
	c.failed = false
	if s.MinContains != nil {
		if matched < *s.MinContains {
			return false
		}
	} else if matched == 0 {
		return false
	}
	return s.MaxContains == nil || matched <= *s.MaxContains
}

// stripped returns s without its combinators and the keywords
// objectApplicators and contains check when what is left is a schema
// the walk takes apart for v's kind of value, and nil if it is not.
func (w *boundedWalk) stripped(s *jsonschema.Schema) *jsonschema.Schema {
	if r, ok := w.cache.stripped[s]; ok {
		return r
	}
	r := *s
	r.AllOf, r.AnyOf, r.OneOf, r.Not, r.If, r.Then, r.Else = nil, nil, nil, nil, nil, nil, nil
	r.DependentSchemas, r.Dependencies, r.PropertyNames = nil, nil, nil
	r.Contains, r.MinContains, r.MaxContains = nil, nil, nil
	r.UnevaluatedProperties, r.UnevaluatedItems = nil, nil
	var out *jsonschema.Schema
	if objectKeywordsOnly(&r) && arrayKeywordsOnly(&r) {
		out = &r
	}
	w.cache.stripped[s] = out
	return out
}
