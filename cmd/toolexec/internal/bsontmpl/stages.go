package bsontmpl

import "go.mongodb.org/mongo-driver/v2/bson"

// HasKey reports whether v, a BSON value (a filled payload, or a
// template's), has a document with one of keys, at any depth: inside
// $facet, $lookup and $unionWith pipelines, anywhere.
func HasKey(v any, keys ...string) bool {
	switch v := v.(type) {
	case bson.D:
		for _, e := range v {
			for _, k := range keys {
				if e.Key == k {
					return true
				}
			}
			if HasKey(e.Value, keys...) {
				return true
			}
		}
	case bson.A:
		for _, e := range v {
			if HasKey(e, keys...) {
				return true
			}
		}
	}
	return false
}

// Ref is a collection a pipeline names.
type Ref struct {
	Database, Collection string
}

// Collections returns the collections an aggregation pipeline names
// besides the one it runs on, at any depth: the from of $lookup and
// $graphLookup, $unionWith's collection, $out's and $merge's target, in
// database db unless the stage names another. A name that is not a
// string (a placeholder not filled yet) is not returned.
func Collections(v any, db string) []Ref {
	var out []Ref
	var walk func(v any)
	walk = func(v any) {
		switch v := v.(type) {
		case bson.D:
			for _, e := range v {
				switch e.Key {
				case "$lookup", "$graphLookup":
					if d, ok := e.Value.(bson.D); ok {
						out = appendRef(out, lookup(d, "from"), db)
					}
				case "$unionWith":
					if s, ok := e.Value.(string); ok {
						out = append(out, Ref{db, s})
					} else if d, ok := e.Value.(bson.D); ok {
						out = appendRef(out, lookup(d, "coll"), db)
					}
				case "$out":
					out = appendRef(out, e.Value, db)
				case "$merge":
					if d, ok := e.Value.(bson.D); ok {
						out = appendRef(out, lookup(d, "into"), db)
					} else {
						out = appendRef(out, e.Value, db)
					}
				}
				walk(e.Value)
			}
		case bson.A:
			for _, e := range v {
				walk(e)
			}
		}
	}
	walk(v)
	return out
}

// appendRef appends the collection v names: a name in db, or a document
// {db, coll}.
func appendRef(out []Ref, v any, db string) []Ref {
	switch v := v.(type) {
	case string:
		return append(out, Ref{db, v})
	case bson.D:
		c, ok := lookup(v, "coll").(string)
		if !ok {
			return out
		}
		if d, ok := lookup(v, "db").(string); ok {
			db = d
		}
		return append(out, Ref{db, c})
	}
	return out
}

func lookup(d bson.D, key string) any {
	for _, e := range d {
		if e.Key == key {
			return e.Value
		}
	}
	return nil
}

// Collections returns the collections the template names (see the
// function Collections), those its placeholders will name excepted.
func (t *Template) Collections(db string) []Ref { return Collections(t.value, db) }

// MaxDepth is the deepest nesting of documents and arrays a payload or an
// inserted document may have: MongoDB's own limit on BSON documents. The
// driver's Extended JSON parser recurses once per level, so text nested
// deeper than this is refused before it is parsed.
const MaxDepth = 100

// Depth returns how deeply the JSON text nests objects and arrays (0 for
// a scalar), counting brackets outside strings; it stops counting past
// MaxDepth + 1. It costs one pass over the text and allocates nothing.
func Depth(text string) int {
	depth, deepest := 0, 0
	for i := 0; i < len(text); i++ {
		switch text[i] {
		case '"':
			for i++; i < len(text) && text[i] != '"'; i++ {
				if text[i] == '\\' {
					i++
				}
			}
		case '{', '[':
			depth++
			if depth > deepest {
				deepest = depth
				if deepest > MaxDepth {
					return deepest
				}
			}
		case '}', ']':
			depth--
		}
	}
	return deepest
}
