package typedargs

import (
	"reflect"
	"strconv"
	"unicode/utf8"
)

// decodeChecked decodes raw, which p.Check accepted, into v, a settable
// value of the type p was built for holding its zero value, exactly as
// json.Unmarshal would, but without encoding/json's second scan of raw and
// its per-byte state machine: the plan already knows where each key goes.
//
// It reports false, leaving v in an unspecified state, for any value it
// leaves to encoding/json (a string with escapes or invalid UTF-8, a number
// that strconv refuses for the field's type, anything unexpected); the
// caller then zeroes v and asks json.Unmarshal. Every step mirrors
// encoding/json's own (decode.go: literalStore, array, object), so the
// two agree on every value they both decode (FuzzDecodeIntoMatchesUnmarshal).
func (p *Plan) decodeChecked(raw []byte, v reflect.Value) bool {
	s := scanner{data: raw}
	if !decodeValue(&s, p.root, v, 0) {
		return false
	}
	return s.skipSpace() == 0 && s.pos == len(raw)
}

func decodeValue(s *scanner, n *node, v reflect.Value, depth int) bool {
	if depth > maxDepth {
		return false
	}
	c := s.skipSpace()
	if c == 'n' {
		if !s.literal("null") {
			return false
		}
		switch v.Kind() {
		case reflect.Interface, reflect.Pointer, reflect.Map, reflect.Slice:
			v.SetZero()
		} // otherwise null leaves the value as it is
		return true
	}
	if v.Kind() == reflect.Pointer {
		if v.IsNil() {
			v.Set(reflect.New(v.Type().Elem()))
		}
		v = v.Elem()
	}
	switch n.kind {
	case kindBoolean:
		if v.Kind() != reflect.Bool {
			return false
		}
		switch {
		case c == 't' && s.literal("true"):
			v.SetBool(true)
		case c == 'f' && s.literal("false"):
			v.SetBool(false)
		default:
			return false
		}
		return true
	case kindString:
		if c != '"' || v.Kind() != reflect.String {
			return false
		}
		raw, escaped, ok := s.str()
		if !ok || escaped || !utf8.Valid(raw) {
			return false // encoding/json's unquoting decides
		}
		v.SetString(string(raw))
		return true
	case kindInteger, kindNumber:
		if c != '-' && (c < '0' || c > '9') {
			return false
		}
		text, ok := s.number()
		if !ok {
			return false
		}
		return storeNumber(text, v)
	case kindArray:
		return c == '[' && decodeArray(s, n, v, depth)
	case kindObject:
		return c == '{' && v.Kind() == reflect.Struct && decodeObject(s, n, v, depth)
	}
	return false
}

// storeNumber stores a number as encoding/json's literalStore does.
func storeNumber(text []byte, v reflect.Value) bool {
	switch v.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		n, err := strconv.ParseInt(string(text), 10, 64)
		if err != nil || v.OverflowInt(n) {
			return false
		}
		v.SetInt(n)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		n, err := strconv.ParseUint(string(text), 10, 64)
		if err != nil || v.OverflowUint(n) {
			return false
		}
		v.SetUint(n)
	case reflect.Float32, reflect.Float64:
		n, err := strconv.ParseFloat(string(text), v.Type().Bits())
		if err != nil || v.OverflowFloat(n) {
			return false
		}
		v.SetFloat(n)
	default:
		return false
	}
	return true
}

// decodeArray decodes an array, its '[' next, into a slice or an array as
// encoding/json's array does: a slice grows one element at a time, and an
// empty JSON array makes an empty, non-nil slice.
func decodeArray(s *scanner, n *node, v reflect.Value, depth int) bool {
	kind := v.Kind()
	if kind != reflect.Slice && kind != reflect.Array {
		return false
	}
	s.pos++
	i := 0
	if s.skipSpace() == ']' {
		s.pos++
	} else {
		for {
			if kind == reflect.Slice {
				if i >= v.Cap() {
					v.Grow(1)
				}
				if i >= v.Len() {
					v.SetLen(i + 1)
				}
			}
			if i >= v.Len() || !decodeValue(s, n.items, v.Index(i), depth+1) {
				return false // (an array longer than a Go array is left to encoding/json)
			}
			i++
			c := s.skipSpace()
			s.pos++
			if c == ']' {
				break
			}
			if c != ',' {
				return false
			}
		}
	}
	if i < v.Len() {
		if kind == reflect.Array {
			for ; i < v.Len(); i++ {
				v.Index(i).SetZero()
			}
		} else {
			v.SetLen(i)
		}
	}
	if i == 0 && kind == reflect.Slice {
		v.Set(reflect.MakeSlice(v.Type(), 0, 0))
	}
	return true
}

// decodeObject decodes an object, its '{' next, into struct v: each key is
// one of the plan's fields, spelled exactly, and goes to that field.
func decodeObject(s *scanner, n *node, v reflect.Value, depth int) bool {
	s.pos++
	if s.skipSpace() == '}' {
		s.pos++
		return true
	}
	for {
		if s.skipSpace() != '"' {
			return false
		}
		key, escaped, ok := s.str()
		if !ok || escaped {
			return false
		}
		i := n.field(key)
		if i < 0 || !s.consume(':') {
			return false
		}
		f := &n.fields[i]
		if !decodeValue(s, f.node, v.Field(f.index), depth+1) {
			return false
		}
		c := s.skipSpace()
		s.pos++
		if c == '}' {
			return true
		}
		if c != ',' {
			return false
		}
	}
}
