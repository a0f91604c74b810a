package schema

import (
	"cmp"
	"container/heap"
	"encoding/json"
	"math/big"
	"slices"
	"strconv"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
)

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

	// uncheckable is set by valid when it refused a value of more than
	// MaxLibraryNodes values unchecked; the failure it leads to says so.
	uncheckable bool
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
	w.cache.uncheckable = false
	if !w.checkLarge(s, v) {
		w.failLarge()
	}
}

// failLarge lists the one failure of a large value that failed a check it
// was not taken apart for: too large to list every failure, or, when the
// library would have had to check more than MaxLibraryNodes values,
// uncheckable.
func (w *boundedWalk) failLarge() {
	if w.cache.uncheckable {
		w.cache.uncheckable = false
		w.fail("", false, "schema", func() jsonschema.ErrorKind { return uncheckable{} })
		return
	}
	w.fail("", false, "schema", func() jsonschema.ErrorKind { return tooLarge{} })
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
