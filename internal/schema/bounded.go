package schema

import (
	"cmp"
	"container/heap"
	"encoding/json"
	"maps"
	"math/big"
	"slices"
	"strconv"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
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
	if countNodes(v, limit) <= limit || usesDynamicScope(sch) {
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

// rankedLeaf is a failure leaf kept by boundedWalk, with the order it was
// found in, which breaks ties as the library's error tree order does.
type rankedLeaf struct {
	failureLeaf
	seq int
}

func compareRanked(a, b *rankedLeaf) int {
	if c := compareLeaves(&a.failureLeaf, &b.failureLeaf); c != 0 {
		return c
	}
	return cmp.Compare(a.seq, b.seq)
}

// worstFirst is a heap of the leaves kept so far, the last in failure order
// on top, so the walk can drop it when a better one comes.
type worstFirst []*rankedLeaf

func (h worstFirst) Len() int           { return len(h) }
func (h worstFirst) Less(i, j int) bool { return compareRanked(h[i], h[j]) > 0 }
func (h worstFirst) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *worstFirst) Push(x any)        { *h = append(*h, x.(*rankedLeaf)) }
func (h *worstFirst) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// boundedWalk validates an instance against a schema, walking both
// together, and finds exactly the failures the library would list (the
// first MaxFailures in failure order, the rest counted) while holding at
// most MaxFailures leaves, the path to the value it is at, and the error
// tree of one value of at most limit nodes it hands to the library.
//
// It takes apart the schema keywords whose failures do not depend on
// other keywords of the same schema (type, properties, required, items and
// the like; see the predicates below); a schema with any other keyword is
// handed to the library whole when its value is small, and is otherwise
// checked for validity only (checkLarge), failing with one tooLarge
// failure. In check mode (stop) the walk stops at the first failure and
// keeps none.
type boundedWalk struct {
	limit int
	stop  bool
	// failed is set, in check mode, by the first failure.
	failed bool
	// noKeep is set while visiting a value whose failures all come after
	// those kept: they are counted only.
	noKeep bool

	path  []string // the tokens of the value being visited
	index []int    // for each token, its array index, or -1
	names []string // the names of the objects on the path, each sorted
	total int      // the failures found, kept or not
	seq   int
	best  worstFirst
	// version counts the changes to best, for relCache.
	version int
	// shared is the copy of a path the leaves kept last share.
	shared []string
	// formatted is how many tokens of the path materialize has formatted.
	formatted int

	// chain holds the schemas applied to the value being visited through
	// $ref and the combinators, from chainStart, to stop reference cycles.
	chain      []*jsonschema.Schema
	chainStart int

	cache *walkCache
	rats  [2]big.Rat // scratch for scalarFailures
}

// walkCache holds what a walk derives from the schema, shared by the walks
// one validation makes.
type walkCache struct {
	types    map[*jsonschema.Types]typeSet
	wrappers map[*jsonschema.Schema]*jsonschema.Schema
	stripped map[*jsonschema.Schema]*jsonschema.Schema
	values   map[*jsonschema.Schema]*jsonschema.Schema
	unique   map[int]*jsonschema.Schema // by draft
}

func newWalk(limit int, stop bool) *boundedWalk {
	return &boundedWalk{limit: limit, stop: stop, cache: &walkCache{
		types:    map[*jsonschema.Types]typeSet{},
		wrappers: map[*jsonschema.Schema]*jsonschema.Schema{},
		stripped: map[*jsonschema.Schema]*jsonschema.Schema{},
		values:   map[*jsonschema.Schema]*jsonschema.Schema{},
		unique:   map[int]*jsonschema.Schema{},
	}}
}

// failures words the leaves kept, as validationFailures does.
func (w *boundedWalk) failures() ([]Failure, int) {
	ls := slices.Clone([]*rankedLeaf(w.best))
	slices.SortFunc(ls, compareRanked)
	leaves := make([]*failureLeaf, len(ls))
	for i, l := range ls {
		leaves[i] = &l.failureLeaf
	}
	return wordLeaves(leaves), w.total - len(leaves)
}

// admit counts one failure, at the current path (plus prop, with hasProp)
// for keyword, and reports whether it is among the first MaxFailures so
// far: then the caller builds its error and calls keep.
func (w *boundedWalk) admit(l *rankedLeaf) bool {
	w.total++
	if w.stop {
		w.failed = true
		return false
	}
	w.seq++
	l.seq = w.seq
	if w.noKeep {
		return false
	}
	w.materialize() // l.at is the path, or extends it
	if len(w.best) < MaxFailures {
		return true
	}
	return compareRanked(l, w.best[0]) < 0
}

// keep keeps an admitted leaf, dropping the last kept one if there are too
// many. l.at is copied.
func (w *boundedWalk) keep(l rankedLeaf, k jsonschema.ErrorKind) {
	if !l.hasProp && len(l.at) > 0 {
		// The leaves kept from one array or object share the copy of its
		// path: the value's own token is held as prop, which orders and
		// words it the same.
		parent := l.at[:len(l.at)-1]
		if !slices.Equal(w.shared, parent) {
			w.shared = slices.Clone(parent)
		}
		l.prop, l.hasProp = l.at[len(l.at)-1], true
		l.at = w.shared
	} else {
		l.at = slices.Clone(l.at)
	}
	l.e = &jsonschema.ValidationError{ErrorKind: k}
	heap.Push(&w.best, &l)
	if len(w.best) > MaxFailures {
		heap.Pop(&w.best)
	}
	w.version++
}

// fail counts, and keeps if it is among the first, one failure at the
// current path; k is called only then.
func (w *boundedWalk) fail(prop string, hasProp bool, keyword string, k func() jsonschema.ErrorKind) {
	l := rankedLeaf{failureLeaf: failureLeaf{at: w.path, prop: prop, hasProp: hasProp, keyword: keyword}}
	if w.admit(&l) {
		w.keep(l, k())
	}
}

// child visits v, the value at token tok of the current value, against s.
func (w *boundedWalk) child(s *jsonschema.Schema, v any, tok string) {
	w.childAt(s, v, tok, -1)
}

// childAt visits v against s, at token tok or, with index >= 0, at that
// array index, formatted only if a failure under it is kept (materialize).
func (w *boundedWalk) childAt(s *jsonschema.Schema, v any, tok string, index int) {
	w.path = append(w.path, tok)
	w.index = append(w.index, index)
	start := w.chainStart
	w.chainStart = len(w.chain)
	w.visit(s, v)
	w.chain = w.chain[:w.chainStart]
	w.chainStart = start
	w.path = w.path[:len(w.path)-1]
	w.index = w.index[:len(w.index)-1]
	w.formatted = min(w.formatted, len(w.index))
}

// materialize formats the array indexes of the path not formatted yet.
func (w *boundedWalk) materialize() {
	for k := w.formatted; k < len(w.index); k++ {
		if i := w.index[k]; i >= 0 && w.path[k] == "" {
			w.path[k] = strconv.Itoa(i)
		}
	}
	w.formatted = len(w.index)
}

// item visits arr[i] against s. Once every failure under it would come
// after those kept, its index is not even formatted: its failures are
// counted only. rc caches where the array stands against the last failure
// kept.
func (w *boundedWalk) item(s *jsonschema.Schema, arr []any, i int, rc *relCache) {
	if w.noKeep || w.stop {
		w.child(s, arr[i], "") // no failure under it is compared or kept
		return
	}
	if wt, rel := w.relation(rc); rel == relBefore || rel == relPrefix && compareIndexToken(i, wt) <= 0 {
		w.childAt(s, arr[i], "", i)
		return
	}
	w.noKeep = true
	w.child(s, arr[i], "")
	w.noKeep = false
}

// Where the current path stands against the tokens of the last failure
// kept (relation).
const (
	relBefore = iota // some failure under the path may be kept
	relPrefix        // the path is a proper prefix of the last kept's tokens
	relAfter         // every failure under the path comes after it
)

// relCache is relation's answer for one container, kept until the failures
// kept change.
type relCache struct {
	version int // of w.best; 0 is none
	rel     int
	next    string // with relPrefix, the last kept's token after the path
}

// relation tells where every failure under a child of the current value
// stands against the last failure kept: relBefore (may be kept), relAfter
// (counted only), or relPrefix, when the child's token decides: a child
// whose token comes after next is relAfter. It compares the path once per
// change of the failures kept, so a long path is not compared for every
// child.
func (w *boundedWalk) relation(rc *relCache) (next string, rel int) {
	if len(w.best) < MaxFailures {
		return "", relBefore
	}
	if rc.version == w.version {
		return rc.next, rc.rel
	}
	rc.version, rc.next, rc.rel = w.version, "", relAfter
	w.materialize()
	worst := &w.best[0].failureLeaf
	for k, tok := range w.path {
		wt, ok := worst.token(k)
		if !ok {
			return "", relAfter // the last kept is a prefix of the path, so before it
		}
		if c := compareTokens(tok, wt); c != 0 {
			if c < 0 {
				rc.rel = relBefore
			}
			return "", rc.rel
		}
	}
	wt, ok := worst.token(len(w.path))
	if !ok {
		return "", relAfter // the last kept is at the path: a child comes after it
	}
	rc.next, rc.rel = wt, relPrefix
	return wt, relPrefix
}

// compareIndexToken is compareTokens(strconv.Itoa(i), t), without
// formatting i as a string.
func compareIndexToken(i int, t string) int {
	var buf [20]byte
	d := strconv.AppendInt(buf[:0], int64(i), 10)
	if isIndex(t) && len(d) != len(t) {
		return len(d) - len(t)
	}
	for k := 0; k < len(d) && k < len(t); k++ {
		if d[k] != t[k] {
			return cmp.Compare(d[k], t[k])
		}
	}
	return len(d) - len(t)
}

// enter records that s is applied to the current value, and reports false
// if it already was on the way here (a reference cycle).
func (w *boundedWalk) enter(s *jsonschema.Schema) bool {
	if slices.Contains(w.chain[w.chainStart:], s) {
		return false
	}
	w.chain = append(w.chain, s)
	return true
}

func (w *boundedWalk) leave() { w.chain = w.chain[:len(w.chain)-1] }

// visit validates v, the value at the current path, against s.
func (w *boundedWalk) visit(s *jsonschema.Schema, v any) {
	if w.failed {
		return
	}
	if s.Bool != nil {
		if !*s.Bool {
			w.fail("", false, "false", func() jsonschema.ErrorKind { return &kind.FalseSchema{} })
		}
		return
	}
	if !w.enter(s) {
		// A reference cycle: the library reports it when it can list it,
		// and it makes the value invalid.
		if !w.stop && small(v, w.limit) {
			w.library(s, v)
		} else {
			w.fail("", false, "schema", func() jsonschema.ErrorKind { return tooLarge{} })
		}
		return
	}
	defer w.leave()
	switch v := v.(type) {
	case map[string]any:
		if objectKeywordsOnly(s) {
			w.object(s, v)
			return
		}
	case []any:
		if arrayKeywordsOnly(s) {
			w.array(s, v)
			return
		}
	case string, float64, json.Number, bool, nil:
		if pureRef(s) {
			w.visit(s.Ref, v)
			return
		}
		if scalarKeywordsOnly(s) {
			w.scalar(s, v)
			return
		}
	}
	w.whole(s, v)
}

// whole validates v against s as one: by the library when v is small, else
// for validity only.
func (w *boundedWalk) whole(s *jsonschema.Schema, v any) {
	if small(v, w.limit) {
		if w.stop {
			if !w.valid(s, v) {
				w.failed = true
				w.total++
			}
			return
		}
		w.library(s, v)
		return
	}
	if !w.checkLarge(s, v) {
		w.fail("", false, "schema", func() jsonschema.ErrorKind { return tooLarge{} })
	}
}

// library validates v against s with the validator library and counts,
// and keeps the first of, its failures, at the current path. v is small:
// the error tree is bounded.
func (w *boundedWalk) library(s *jsonschema.Schema, v any) {
	err := s.Validate(v)
	if err == nil {
		return
	}
	ve, ok := err.(*jsonschema.ValidationError)
	if !ok {
		w.fail("", false, "schema", func() jsonschema.ErrorKind { return tooLarge{} })
		return
	}
	base := len(w.path)
	for _, l := range appendLeaves(nil, ve) {
		w.path = append(w.path[:base], l.at...)
		r := rankedLeaf{failureLeaf: l}
		r.at = w.path
		if w.admit(&r) {
			k := l.e.ErrorKind
			w.keep(r, k)
		}
	}
	w.path = w.path[:base]
}

// valid reports whether v, small, is valid against s, by the library in
// its valid-or-not mode, which builds no error tree.
func (w *boundedWalk) valid(s *jsonschema.Schema, v any) bool {
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
// dependentSchemas, dependencies, propertyNames and contains. Any other
// (unevaluatedProperties, unevaluatedItems) by the library's valid-or-not
// mode, which stops early in objects but not in arrays: it holds an empty
// error for each item of an array that fails.
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
		return c.objectApplicators(s, v, ok)
	case []any:
		return c.contains(s, v)
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
	var out *jsonschema.Schema
	if objectKeywordsOnly(&r) && arrayKeywordsOnly(&r) {
		out = &r
	}
	w.cache.stripped[s] = out
	return out
}

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
