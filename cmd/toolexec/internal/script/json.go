package script

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/dop251/goja"
)

// encode is the JSON of a returned value, at most the Runner's cap: what
// JSON.stringify would write, read as it goes so that a value larger than
// the cap (or circular, or too deep) fails as soon as that is known.
func (in *instance) encode(v goja.Value) (json.RawMessage, error) {
	if v == nil || goja.IsUndefined(v) {
		return nil, failf("the script returned undefined: return a JSON value (null for nothing)")
	}
	if _, ok := goja.AssertFunction(v); ok {
		return nil, failf("the script returned a function: return a JSON value")
	}
	return encodeValue(v, in.r.o.MaxResultBytes)
}

// encodeValue is the JSON of v, at most max bytes.
func encodeValue(v goja.Value, max int) (json.RawMessage, error) {
	e := &encoder{max: max}
	skip, err := e.value(v, "")
	if err != nil {
		return nil, err
	}
	if skip {
		return nil, failf("the script returned a value that has no JSON (undefined, a function or a symbol)")
	}
	return e.buf, nil
}

type encoder struct {
	buf   []byte
	max   int
	stack []*goja.Object
}

// value writes v's JSON; skip says v has none (undefined, a function, a
// symbol), which an object leaves out and an array writes as null.
func (e *encoder) value(v goja.Value, key string) (skip bool, err error) {
	if o, ok := v.(*goja.Object); ok {
		if tj, ok := goja.AssertFunction(o.Get("toJSON")); ok {
			r, err := tj(o, stringValue(key))
			if err != nil {
				return false, err
			}
			v = r
		}
	}
	switch {
	case v == nil || goja.IsUndefined(v):
		return true, nil
	case goja.IsNull(v):
		e.buf = append(e.buf, "null"...)
		return false, e.check()
	case goja.IsBigInt(v):
		return false, failf("the script returned a BigInt, which has no JSON: convert it to a string or a number")
	case goja.IsString(v):
		e.buf = appendString(e.buf, v.String())
		return false, e.check()
	case goja.IsNumber(v):
		e.number(v.ToFloat())
		return false, e.check()
	}
	o, ok := v.(*goja.Object)
	if !ok {
		switch x := v.Export().(type) {
		case bool:
			e.buf = strconv.AppendBool(e.buf, x)
			return false, e.check()
		}
		return true, nil // a symbol
	}
	if _, ok := goja.AssertFunction(o); ok {
		return true, nil
	}
	switch o.ClassName() {
	case "String":
		e.buf = appendString(e.buf, o.String())
		return false, e.check()
	case "Number":
		e.number(o.ToFloat())
		return false, e.check()
	case "Boolean":
		b, _ := o.Export().(bool)
		e.buf = strconv.AppendBool(e.buf, b)
		return false, e.check()
	case "BigInt":
		return false, failf("the script returned a BigInt, which has no JSON: convert it to a string or a number")
	}
	for _, s := range e.stack {
		if s == o {
			return false, failf("the script returned a circular value, which has no JSON")
		}
	}
	if len(e.stack) >= MaxJSONDepth {
		return false, failf("the script returned a value nested deeper than %d levels", MaxJSONDepth)
	}
	e.stack = append(e.stack, o)
	defer func() { e.stack = e.stack[:len(e.stack)-1] }()
	if o.ClassName() == "Array" {
		return false, e.array(o)
	}
	return false, e.object(o)
}

func (e *encoder) array(o *goja.Object) error {
	n := o.Get("length").ToInteger()
	e.buf = append(e.buf, '[')
	for i := int64(0); i < n; i++ {
		if i > 0 {
			e.buf = append(e.buf, ',')
		}
		k := strconv.FormatInt(i, 10)
		skip, err := e.value(o.Get(k), k)
		if err != nil {
			return err
		}
		if skip {
			e.buf = append(e.buf, "null"...)
		}
		if err := e.check(); err != nil {
			return err
		}
	}
	e.buf = append(e.buf, ']')
	return e.check()
}

func (e *encoder) object(o *goja.Object) error {
	e.buf = append(e.buf, '{')
	first := true
	for _, k := range o.Keys() {
		mark := len(e.buf)
		if !first {
			e.buf = append(e.buf, ',')
		}
		e.buf = appendString(e.buf, k)
		e.buf = append(e.buf, ':')
		skip, err := e.value(o.Get(k), k)
		if err != nil {
			return err
		}
		if skip {
			e.buf = e.buf[:mark]
			continue
		}
		first = false
		if err := e.check(); err != nil {
			return err
		}
	}
	e.buf = append(e.buf, '}')
	return e.check()
}

// number writes f as JSON.stringify does: finite numbers in JavaScript's
// form, NaN and the infinities as null.
func (e *encoder) number(f float64) {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		e.buf = append(e.buf, "null"...)
		return
	}
	if f == 0 {
		e.buf = append(e.buf, '0')
		return
	}
	e.buf = append(e.buf, numberString(f)...)
}

// numberString is f as JavaScript prints it (Number.prototype.toString).
func numberString(f float64) string {
	abs := math.Abs(f)
	if abs >= 1e21 || abs < 1e-6 {
		s := strconv.FormatFloat(f, 'e', -1, 64)
		// Go writes e+21 and e-07; JavaScript e+21 and e-7.
		for i := 0; i < len(s); i++ {
			if s[i] == 'e' && i+2 < len(s) && s[i+2] == '0' {
				s = s[:i+2] + s[i+3:]
			}
		}
		return s
	}
	return strconv.FormatFloat(f, 'f', -1, 64)
}

func (e *encoder) check() error {
	if len(e.buf) > e.max {
		return failf("the script returned more than %d bytes of JSON", e.max)
	}
	return nil
}

// stringValue is s as a JavaScript string.
func stringValue(s string) goja.Value { return goja.StringFromUTF16(utf16.Encode([]rune(s))) }

// appendString appends s as a JSON string, escaped as encoding/json
// escapes it (control characters, quotes, backslashes, <, >, &, U+2028,
// U+2029); invalid UTF-8 becomes U+FFFD.
func appendString(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			switch {
			case c == '"' || c == '\\':
				b = append(b, '\\', c)
			case c == '\n':
				b = append(b, '\\', 'n')
			case c == '\r':
				b = append(b, '\\', 'r')
			case c == '\t':
				b = append(b, '\\', 't')
			case c < 0x20 || c == '<' || c == '>' || c == '&':
				b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
			default:
				b = append(b, c)
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			b = append(b, `\ufffd`...)
		case r == '\u2028' || r == '\u2029':
			b = append(b, fmt.Sprintf(`\u%04x`, r)...)
		default:
			b = append(b, s[i:i+size]...)
		}
		i += size
	}
	return append(b, '"')
}
