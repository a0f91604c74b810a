package schema

import (
	"encoding/json"
	"math"
)

// quick is a schema simple enough that a valid value is recognized without
// the validator: an object whose named properties each have a type and
// nothing else but annotations, some of them required, others perhaps
// refused (additionalProperties false). Most tools' input schemas are of
// this shape (every SQL tool's of the toolexec command, say). It only ever
// accepts: a value it does not accept goes to the validator, which says
// why it fails, or that it passes after all, so the failures a caller sees
// are the validator's whatever quick decides.
type quick struct {
	props    map[string]typeSet // each property's allowed types
	required []string
	closed   bool // additionalProperties: false
}

// annotations are the keywords that never change whether a value is valid
// (JSON Schema 2020-12's meta-data and comments).
var annotations = map[string]bool{"title": true, "description": true, "default": true, "examples": true,
	"deprecated": true, "readOnly": true, "writeOnly": true, "$comment": true}

// quickOf returns the quick form of the schema raw, or nil when raw is not
// of quick's shape (any keyword beyond type, properties, required,
// additionalProperties as a boolean, and annotations; a property with
// anything but a type and annotations; a draft named with $schema).
func quickOf(raw []byte) *quick {
	var doc map[string]json.RawMessage
	if json.Unmarshal(raw, &doc) != nil {
		return nil
	}
	q := &quick{props: map[string]typeSet{}}
	for k, v := range doc {
		switch {
		case k == "type":
			if ts, ok := types(v); !ok || ts != objectBit {
				return nil
			}
		case k == "properties":
			var props map[string]json.RawMessage
			if json.Unmarshal(v, &props) != nil {
				return nil
			}
			for name, p := range props {
				ts, ok := propertyTypes(p)
				if !ok {
					return nil
				}
				q.props[name] = ts
			}
		case k == "required":
			if json.Unmarshal(v, &q.required) != nil {
				return nil
			}
		case k == "additionalProperties":
			var open bool
			if json.Unmarshal(v, &open) != nil {
				return nil
			}
			q.closed = !open
		case !annotations[k]:
			return nil
		}
	}
	if _, ok := doc["type"]; !ok {
		return nil
	}
	return q
}

// propertyTypes reads a property's schema: a type, and annotations.
func propertyTypes(raw json.RawMessage) (typeSet, bool) {
	var doc map[string]json.RawMessage
	if json.Unmarshal(raw, &doc) != nil {
		return 0, false
	}
	var ts typeSet
	for k, v := range doc {
		switch {
		case k == "type":
			var ok bool
			if ts, ok = types(v); !ok {
				return 0, false
			}
		case !annotations[k]:
			return 0, false
		}
	}
	return ts, ts != 0
}

// types reads a type keyword: one type name, or a list of them.
func types(raw json.RawMessage) (typeSet, bool) {
	var names []string
	var one string
	if json.Unmarshal(raw, &one) == nil {
		names = []string{one}
	} else if json.Unmarshal(raw, &names) != nil || len(names) == 0 {
		return 0, false
	}
	var ts typeSet
	for _, n := range names {
		b := typeBit(n)
		if b == 0 {
			return 0, false
		}
		ts |= b
	}
	return ts, true
}

// accepts reports whether v, a value of the validator's JSON model, is
// valid, when that can be told at once; false means the validator must
// decide. A member that is an object, an array or a json.Number (a number
// float64 does not hold exactly) is left to the validator, which walks
// nested values and bounds numbers' size.
func (q *quick) accepts(v any) bool {
	m, ok := v.(map[string]any)
	if !ok {
		return false
	}
	for _, r := range q.required {
		if _, ok := m[r]; !ok {
			return false
		}
	}
	for k, x := range m {
		switch x := x.(type) {
		case json.Number, map[string]any, []any:
			return false // the validator walks nested values and bounds numbers' size
		case float64:
			if math.IsInf(x, 0) || math.IsNaN(x) {
				return false
			}
		}
		ts, ok := q.props[k]
		if !ok {
			if q.closed {
				return false
			}
			continue
		}
		if !ts.allows(x) {
			return false
		}
	}
	return true
}
