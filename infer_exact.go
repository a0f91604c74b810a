package toolexec

import (
	"encoding"
	"encoding/json"
	"reflect"
	"strings"
	"time"
)

// encodesExactly reports whether every value of t that encoding/json can
// encode is accepted by the schema inferred for t, so that checking a typed
// tool's output against its own inferred schema would be wasted work. It
// answers false, and validation stays, wherever the encoding can stray from
// the inferred description:
//
//   - a map (a nil map encodes as null, which the inferred "object" refuses);
//   - a type with its own MarshalJSON or MarshalText (it is described by its
//     Go structure, not by what it writes), except time.Time and
//     json.RawMessage, whose inferred schemas are what they write;
//   - a field with the ",string" option (a number written as a string);
//   - json.Number (written as a number, described as a string);
//   - a slice of bytes other than []byte itself (a named byte slice is
//     written as base64 text, described as an array of integers);
//   - an embedded pointer to a struct (when nil, its fields are left out,
//     though the description may require them);
//   - an interface with methods, a channel, a function, a complex number.
//
// seen stops the walk on recursive types (which inference refuses anyway).
func encodesExactly(t reflect.Type, seen map[reflect.Type]bool) bool {
	switch t {
	case reflect.TypeFor[time.Time](), reflect.TypeFor[json.RawMessage](), reflect.TypeFor[[]byte]():
		return true
	case reflect.TypeFor[json.Number]():
		return false
	}
	if seen[t] {
		return true
	}
	seen[t] = true
	if hasOwnEncoding(t) {
		return false
	}
	switch t.Kind() {
	case reflect.Bool, reflect.String,
		reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr,
		reflect.Float32, reflect.Float64:
		return true
	case reflect.Slice:
		if t.Elem().Kind() == reflect.Uint8 {
			return false // a byte slice of another name, or of named bytes: written as base64
		}
		return encodesExactly(t.Elem(), seen)
	case reflect.Pointer, reflect.Array:
		return encodesExactly(t.Elem(), seen)
	case reflect.Interface:
		return t.NumMethod() == 0 // any: inferred as {}, which accepts every value
	case reflect.Struct:
		for i := 0; i < t.NumField(); i++ {
			f := t.Field(i)
			if !f.IsExported() && !f.Anonymous {
				continue
			}
			tag := f.Tag.Get("json")
			if tag == "-" {
				continue
			}
			if f.Anonymous && f.Type.Kind() == reflect.Pointer {
				return false // a nil embedded pointer drops its fields
			}
			if _, opts, _ := strings.Cut(tag, ","); hasOption(opts, "string") {
				return false
			}
			if !encodesExactly(f.Type, seen) {
				return false
			}
		}
		return true
	}
	return false // maps, channels, functions, complex numbers
}

// hasOwnEncoding reports whether t (or *t) writes itself to JSON.
func hasOwnEncoding(t reflect.Type) bool {
	for _, u := range []reflect.Type{t, reflect.PointerTo(t)} {
		if u.Implements(reflect.TypeFor[json.Marshaler]()) || u.Implements(reflect.TypeFor[encoding.TextMarshaler]()) {
			return true
		}
	}
	return false
}

func hasOption(opts, name string) bool {
	for opts != "" {
		var o string
		o, opts, _ = strings.Cut(opts, ",")
		if o == name {
			return true
		}
	}
	return false
}

// sameBytes reports whether a and b are the very same bytes, not merely
// equal ones.
func sameBytes(a, b []byte) bool {
	return len(a) > 0 && len(a) == len(b) && &a[0] == &b[0]
}
