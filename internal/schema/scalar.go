package schema

import (
	"encoding/json"
	"fmt"
	"math"
	"math/big"
	"slices"
	"strconv"
	"unicode/utf8"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// typeSet is the JSON types a type keyword allows, one bit each.
type typeSet uint8

const (
	nullBit typeSet = 1 << iota
	booleanBit
	numberBit
	integerBit
	stringBit
	arrayBit
	objectBit
)

// typeBit is the bit of one type keyword's type name.
func typeBit(name string) typeSet {
	switch name {
	case "null":
		return nullBit
	case "boolean":
		return booleanBit
	case "number":
		return numberBit
	case "integer":
		return integerBit
	case "string":
		return stringBit
	case "array":
		return arrayBit
	case "object":
		return objectBit
	}
	return 0
}

// typeName is the JSON type of v, a value of the validator's JSON model, as
// the library names it in a type failure ("number" for every number).
func typeName(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean"
	case float64, json.Number:
		return "number"
	case string:
		return "string"
	case []any:
		return "array"
	case map[string]any:
		return "object"
	}
	return ""
}

// allows reports whether the type keyword passes v, as the library decides
// it: an integer type passes a number with no fractional part.
func (ts typeSet) allows(v any) bool {
	name := typeName(v)
	if ts&typeBit(name) != 0 {
		return true
	}
	return name == "number" && ts&integerBit != 0 && isInteger(v)
}

// isInteger reports whether the number v has no fractional part. A finite
// float64's shortest decimal form, which the library reads, is an integer
// exactly when the float64 is.
func isInteger(v any) bool {
	switch v := v.(type) {
	case float64:
		return v == math.Trunc(v)
	case json.Number:
		r, ok := new(big.Rat).SetString(string(v))
		return ok && r.IsInt()
	}
	return false
}

// scalarFailures returns the keywords of s that v, a scalar, fails, in the
// order the library reports them, and how many there are. s holds no
// keyword but those scalarKeywordsOnly allows; the library stops at a
// failing type, const, enum or format, and otherwise reports every string or number
// keyword that fails.
//
// rats are two rationals scalarFailures may reuse.
func scalarFailures(s *jsonschema.Schema, types func(*jsonschema.Types) typeSet, v any, rats *[2]big.Rat) (kws [5]string, n int) {
	add := func(kw string) {
		kws[n] = kw
		n++
	}
	if s.Types != nil && !s.Types.IsEmpty() && !types(s.Types).allows(v) {
		add("type")
		return kws, n
	}
	if s.Const != nil && !scalarEquals(v, *s.Const) {
		add("const")
		return kws, n
	}
	if s.Enum != nil && !slices.ContainsFunc(s.Enum.Values, func(e any) bool { return scalarEquals(v, e) }) {
		add("enum")
		return kws, n
	}
	if s.Format != nil && s.Format.Validate(v) != nil {
		add("format")
		return kws, n
	}
	switch v := v.(type) {
	case string:
		if s.MinLength != nil || s.MaxLength != nil {
			runes := utf8.RuneCountInString(v)
			if s.MinLength != nil && runes < *s.MinLength {
				add("minLength")
			}
			if s.MaxLength != nil && runes > *s.MaxLength {
				add("maxLength")
			}
		}
		if s.Pattern != nil && !s.Pattern.MatchString(v) {
			add("pattern")
		}
	case float64, json.Number:
		if s.Minimum == nil && s.Maximum == nil && s.ExclusiveMinimum == nil &&
			s.ExclusiveMaximum == nil && s.MultipleOf == nil {
			return kws, n
		}
		// The number as the library reads it: its shortest decimal form,
		// exactly.
		var digits string
		switch v := v.(type) {
		case float64:
			var buf [32]byte
			digits = string(strconv.AppendFloat(buf[:0], v, 'g', -1, 64)) // the digits of %v
		case json.Number:
			digits = string(v)
		}
		num, ok := rats[0].SetString(digits)
		if !ok {
			add("type")
			return kws, n
		}
		if s.Minimum != nil && num.Cmp(s.Minimum) < 0 {
			add("minimum")
		}
		if s.Maximum != nil && num.Cmp(s.Maximum) > 0 {
			add("maximum")
		}
		if s.ExclusiveMinimum != nil && num.Cmp(s.ExclusiveMinimum) <= 0 {
			add("exclusiveMinimum")
		}
		if s.ExclusiveMaximum != nil && num.Cmp(s.ExclusiveMaximum) >= 0 {
			add("exclusiveMaximum")
		}
		if s.MultipleOf != nil && !rats[1].Quo(num, s.MultipleOf).IsInt() {
			add("multipleOf")
		}
	}
	return kws, n
}

// scalarEquals reports whether v, a scalar, equals e, a value of a const or
// enum keyword, as the library compares them: numbers by their exact value.
func scalarEquals(v, e any) bool {
	switch v := v.(type) {
	case nil:
		return e == nil
	case bool:
		b, ok := e.(bool)
		return ok && v == b
	case string:
		s, ok := e.(string)
		return ok && v == s
	case float64, json.Number:
		switch e.(type) {
		case float64, json.Number:
		default:
			return false
		}
		if f, ok := v.(float64); ok {
			if g, ok := e.(float64); ok {
				return f == g
			}
		}
		a, ok1 := new(big.Rat).SetString(fmt.Sprint(v))
		b, ok2 := new(big.Rat).SetString(fmt.Sprint(e))
		return ok1 && ok2 && a.Cmp(b) == 0
	}
	return false
}
