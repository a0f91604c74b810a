package typedargs

import (
	"encoding/json"
	"reflect"
)

// Decode checks raw with p and, when p accepts it, decodes it into a T,
// the Go type p was built for. ok is false when p leaves raw to the
// generic path (see Plan.Check), or when encoding/json refuses a value the
// schema accepts (2.0 for an int, 1e400 for a float64): the generic path
// then decides, and reports, as it always has.
func Decode[T any](p *Plan, raw []byte) (in T, ok bool) {
	if !DecodeInto(p, raw, &in) {
		var zero T
		return zero, false
	}
	return in, true
}

// DecodeInto is Decode into *in, which must hold T's zero value, so that a
// caller can decode into a T it has already allocated. On false, *in may
// hold part of raw and must not be used.
//
// The value is decoded as json.Unmarshal decodes it: by the plan itself
// where it can (see decodeChecked), by json.Unmarshal otherwise.
func DecodeInto[T any](p *Plan, raw []byte, in *T) bool {
	if !p.Check(raw) {
		return false
	}
	v := reflect.ValueOf(in).Elem()
	if v.Kind() == reflect.Pointer { // the plan of *S is S's: decode as encoding/json does, into a new S
		v.Set(reflect.New(v.Type().Elem()))
		v = v.Elem()
	}
	if p.decodeChecked(raw, v) {
		return true
	}
	var zero T
	*in = zero
	return json.Unmarshal(raw, in) == nil
}
