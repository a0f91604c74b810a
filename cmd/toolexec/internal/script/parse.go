package script

import (
	"encoding/json"
	"errors"
	"strconv"
	"unicode/utf8"

	"github.com/dop251/goja"
)

// errBadJSON is the error of fromJSON on what is not one JSON value.
var errBadJSON = errors.New("script: the results are not JSON")

// fromJSON turns data, one JSON value, into plain values of vm, the
// members of each object in their order: what JSON.parse makes of it, in
// a fraction of the time goja's JSON.parse takes (which reads token by
// token), and without calling into the script.
func fromJSON(vm *goja.Runtime, data []byte) (goja.Value, error) {
	d := &jsonReader{vm: vm, data: data}
	d.space()
	v, err := d.value(0)
	if err != nil {
		return nil, err
	}
	if d.space(); d.pos != len(d.data) {
		return nil, errBadJSON
	}
	return v, nil
}

type jsonReader struct {
	vm   *goja.Runtime
	data []byte
	pos  int
}

func (d *jsonReader) space() {
	for d.pos < len(d.data) {
		switch d.data[d.pos] {
		case ' ', '\t', '\n', '\r':
			d.pos++
		default:
			return
		}
	}
}

func (d *jsonReader) value(depth int) (goja.Value, error) {
	if d.pos >= len(d.data) || depth > MaxJSONDepth {
		return nil, errBadJSON
	}
	switch c := d.data[d.pos]; {
	case c == '{':
		return d.object(depth)
	case c == '[':
		return d.array(depth)
	case c == '"':
		s, err := d.str()
		if err != nil {
			return nil, err
		}
		return d.vm.ToValue(s), nil
	case c == 't':
		return d.literal("true", d.vm.ToValue(true))
	case c == 'f':
		return d.literal("false", d.vm.ToValue(false))
	case c == 'n':
		return d.literal("null", goja.Null())
	case c == '-' || c >= '0' && c <= '9':
		start := d.pos
		for d.pos < len(d.data) && isNumberByte(d.data[d.pos]) {
			d.pos++
		}
		f, err := strconv.ParseFloat(string(d.data[start:d.pos]), 64)
		if err != nil && !errors.Is(err, strconv.ErrRange) {
			return nil, errBadJSON
		}
		return d.vm.ToValue(f), nil
	}
	return nil, errBadJSON
}

func isNumberByte(c byte) bool {
	return c >= '0' && c <= '9' || c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E'
}

func (d *jsonReader) literal(word string, v goja.Value) (goja.Value, error) {
	if len(d.data)-d.pos < len(word) || string(d.data[d.pos:d.pos+len(word)]) != word {
		return nil, errBadJSON
	}
	d.pos += len(word)
	return v, nil
}

func (d *jsonReader) object(depth int) (goja.Value, error) {
	o := d.vm.NewObject()
	d.pos++ // {
	d.space()
	if d.pos < len(d.data) && d.data[d.pos] == '}' {
		d.pos++
		return o, nil
	}
	for {
		d.space()
		if d.pos >= len(d.data) || d.data[d.pos] != '"' {
			return nil, errBadJSON
		}
		k, err := d.str()
		if err != nil {
			return nil, err
		}
		d.space()
		if d.pos >= len(d.data) || d.data[d.pos] != ':' {
			return nil, errBadJSON
		}
		d.pos++
		d.space()
		v, err := d.value(depth + 1)
		if err != nil {
			return nil, err
		}
		if err := o.Set(k, v); err != nil {
			return nil, err
		}
		d.space()
		if d.pos >= len(d.data) {
			return nil, errBadJSON
		}
		switch d.data[d.pos] {
		case ',':
			d.pos++
		case '}':
			d.pos++
			return o, nil
		default:
			return nil, errBadJSON
		}
	}
}

func (d *jsonReader) array(depth int) (goja.Value, error) {
	var items []any
	d.pos++ // [
	d.space()
	if d.pos < len(d.data) && d.data[d.pos] == ']' {
		d.pos++
		return d.vm.NewArray(), nil
	}
	for {
		d.space()
		v, err := d.value(depth + 1)
		if err != nil {
			return nil, err
		}
		items = append(items, v)
		d.space()
		if d.pos >= len(d.data) {
			return nil, errBadJSON
		}
		switch d.data[d.pos] {
		case ',':
			d.pos++
		case ']':
			d.pos++
			return d.vm.NewArray(items...), nil
		default:
			return nil, errBadJSON
		}
	}
}

// str reads a JSON string; one with escapes is decoded by encoding/json.
func (d *jsonReader) str() (string, error) {
	start := d.pos
	d.pos++ // "
	escaped := false
	for d.pos < len(d.data) {
		switch c := d.data[d.pos]; {
		case c == '\\':
			escaped = true
			d.pos += 2
			continue
		case c == '"':
			d.pos++
			raw := d.data[start:d.pos]
			if !escaped {
				s := string(raw[1 : len(raw)-1])
				if !utf8.ValidString(s) {
					var out string
					err := json.Unmarshal(raw, &out)
					return out, err
				}
				return s, nil
			}
			var out string
			if err := json.Unmarshal(raw, &out); err != nil {
				return "", errBadJSON
			}
			return out, nil
		case c < 0x20:
			return "", errBadJSON
		}
		d.pos++
	}
	return "", errBadJSON
}
