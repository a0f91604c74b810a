// Package bsontmpl reads the payloads of mcp-toolbox's MongoDB tools
// (filterPayload, projectPayload, sortPayload, pipelinePayload,
// updatePayload): MongoDB Extended JSON in which {{json .name}} (or
// {{.name}}) stands for the value of the parameter name. A payload is
// parsed once, with each placeholder held as a marker where its value
// goes; a call fills the markers with the arguments as BSON values, so an
// argument is one value (a string stays a string, whatever it holds) and
// never text spliced into the payload. A placeholder must stand for a
// whole value: inside a string, as a key, or beside other text it is an
// error when the payload is read.
package bsontmpl

import (
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strings"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// Template is a parsed payload. It is immutable and safe for concurrent
// use.
type Template struct {
	value  any      // bson.D, bson.A or a scalar, with markers
	params []string // the parameter of each marker, by index
	at     []int    // the offset of each placeholder in the payload
	keys   []Key
}

// Placeholder is one placeholder of a payload.
type Placeholder struct {
	// Param is the parameter whose value it stands for.
	Param string
	// Offset is the byte offset of its "{{" in the payload.
	Offset int
}

// Key is an object key of a payload and where it is written.
type Key struct {
	// Name is the key, unescaped.
	Name string
	// Offset is the byte offset of its opening quote in the payload.
	Offset int
}

// Error is a problem with a payload, at a byte offset of its text.
type Error struct {
	// Offset is where the problem is, from 0; -1 when the payload as a
	// whole is wrong.
	Offset int
	// Message says what is wrong.
	Message string
}

// Error returns the message.
func (e *Error) Error() string { return e.Message }

// markerKey is the key of the one-member document that holds a
// placeholder's place until a call fills it: a key no payload means to
// write (it starts with a NUL byte, which BSON cannot encode, so a marker
// left unfilled fails loudly rather than reaching the server).
const markerKey = "\x00param"

var action = regexp.MustCompile(`^\s*(?:json\s+)?\.([A-Za-z_][A-Za-z0-9_]*)\s*$`)

// Compile parses text: Extended JSON (canonical or relaxed, as the tool's
// canonical says) with placeholders. It returns an *Error for a
// placeholder that is not {{json .name}} or {{.name}}, one that does not
// stand for a whole value, and text that is not Extended JSON.
func Compile(text string, canonical bool) (*Template, error) {
	t := &Template{}
	var out strings.Builder
	// where maps offsets of out to offsets of text: out[o] comes from
	// text[o+shift] for the last entry with o >= its start.
	type span struct{ start, shift int }
	where := []span{{0, 0}}
	var holes [][2]int // the placeholders' places in text
	type frame struct {
		object    bool
		expectKey bool
	}
	var stack []frame
	top := func() *frame {
		if len(stack) == 0 {
			return nil
		}
		return &stack[len(stack)-1]
	}
	for i := 0; i < len(text); {
		c := text[i]
		switch {
		case c == '"':
			end, err := stringEnd(text, i)
			if err != nil {
				return nil, err
			}
			if f := top(); f != nil && f.object && f.expectKey {
				var name string
				if json.Unmarshal([]byte(text[i:end]), &name) == nil {
					t.keys = append(t.keys, Key{Name: name, Offset: i})
				}
			}
			out.WriteString(text[i:end])
			i = end
		case strings.HasPrefix(text[i:], "{{"):
			close := strings.Index(text[i+2:], "}}")
			if close < 0 {
				return nil, &Error{Offset: i, Message: "{{ is not closed by }}"}
			}
			end := i + 2 + close + 2
			m := action.FindStringSubmatch(text[i+2 : end-2])
			if m == nil {
				return nil, &Error{Offset: i, Message: fmt.Sprintf("%s: a placeholder is {{json .name}} (or {{.name}}), the value of parameter name", text[i:end])}
			}
			if f := top(); f != nil && f.object && f.expectKey {
				return nil, &Error{Offset: i, Message: fmt.Sprintf("%s stands for a key: a placeholder stands for a whole value, never a key", text[i:end])}
			}
			marker := fmt.Sprintf(`{"\u0000param":%d}`, len(t.params))
			t.params = append(t.params, m[1])
			t.at = append(t.at, i)
			holes = append(holes, [2]int{i, end})
			where = append(where, span{out.Len(), i - out.Len()})
			out.WriteString(marker)
			// What follows the marker comes from after the placeholder.
			where = append(where, span{out.Len(), end - out.Len()})
			i = end
		default:
			switch c {
			case '{':
				stack = append(stack, frame{object: true, expectKey: true})
			case '[':
				stack = append(stack, frame{})
			case '}', ']':
				if len(stack) > 0 {
					stack = stack[:len(stack)-1]
				}
			case ',':
				if f := top(); f != nil && f.object {
					f.expectKey = true
				}
			case ':':
				if f := top(); f != nil && f.object {
					f.expectKey = false
				}
			}
			out.WriteByte(c)
			i++
		}
	}
	src := out.String()
	if Depth(src) > MaxDepth {
		return nil, &Error{Offset: -1, Message: fmt.Sprintf("nested deeper than %d levels, MongoDB's limit", MaxDepth)}
	}
	var probe any
	if err := json.Unmarshal([]byte(src), &probe); err != nil {
		var se *json.SyntaxError
		if errors.As(err, &se) {
			o := int(se.Offset) - 1
			if o < 0 {
				o = 0
			}
			orig := o
			for _, s := range where {
				if o >= s.start {
					orig = o + s.shift
				}
			}
			if orig > len(text) {
				orig = len(text)
			}
			msg := "not JSON: " + se.Error()
			if nearPlaceholder(holes, orig) {
				msg += " (a placeholder stands for a whole value: not inside a string, not beside other text)"
			}
			return nil, &Error{Offset: orig, Message: msg}
		}
		return nil, &Error{Offset: -1, Message: "not JSON: " + err.Error()}
	}
	var wrapped bson.D
	if err := bson.UnmarshalExtJSON([]byte(`{"v":`+src+`}`), canonical, &wrapped); err != nil || len(wrapped) != 1 {
		mode := "relaxed"
		if canonical {
			mode = "canonical"
		}
		msg := "not MongoDB Extended JSON (" + mode + ")"
		if err != nil {
			msg += ": " + err.Error()
		}
		return nil, &Error{Offset: -1, Message: msg}
	}
	t.value = wrapped[0].Value
	return t, nil
}

// nearPlaceholder reports whether offset o is in or next to one of the
// placeholders' places.
func nearPlaceholder(holes [][2]int, o int) bool {
	for _, h := range holes {
		if o >= h[0]-1 && o <= h[1] {
			return true
		}
	}
	return false
}

// stringEnd returns the offset after the JSON string starting at i, or an
// *Error for a string that holds a placeholder or is not closed.
func stringEnd(text string, i int) (int, error) {
	for j := i + 1; j < len(text); j++ {
		switch text[j] {
		case '\\':
			j++
		case '"':
			return j + 1, nil
		case '{':
			if strings.HasPrefix(text[j:], "{{") {
				return 0, &Error{Offset: j, Message: "a placeholder inside a string: a placeholder stands for a whole value, so write {{json .name}} in place of the string (a parameter's value is never spliced into text)"}
			}
		}
	}
	return 0, &Error{Offset: i, Message: "a string is not closed"}
}

// Params returns the parameter names the placeholders use, each once, in
// order.
func (t *Template) Params() []string {
	var out []string
	seen := map[string]bool{}
	for _, p := range t.params {
		if !seen[p] {
			seen[p] = true
			out = append(out, p)
		}
	}
	return out
}

// Placeholders returns the payload's placeholders, in order.
func (t *Template) Placeholders() []Placeholder {
	out := make([]Placeholder, len(t.params))
	for i, p := range t.params {
		out[i] = Placeholder{Param: p, Offset: t.at[i]}
	}
	return out
}

// Keys returns the payload's object keys, in order, with their offsets
// (a placeholder's value's keys are not among them).
func (t *Template) Keys() []Key { return append([]Key(nil), t.keys...) }

// IsDocument reports whether the payload is a document ({...}).
func (t *Template) IsDocument() bool {
	d, ok := t.value.(bson.D)
	if !ok {
		return false
	}
	_, marker := t.marker(d)
	return !marker
}

// IsArray reports whether the payload is an array ([...]).
func (t *Template) IsArray() bool {
	_, ok := t.value.(bson.A)
	return ok
}

// Fill returns the payload with each placeholder replaced by value(name),
// a BSON value (bson.D for a document, bson.A for an array). The template
// is not changed: each call gets its own copy.
func (t *Template) Fill(value func(name string) (any, error)) (any, error) {
	return t.fill(t.value, value)
}

func (t *Template) fill(v any, value func(string) (any, error)) (any, error) {
	switch v := v.(type) {
	case bson.D:
		if i, ok := t.marker(v); ok {
			return value(t.params[i])
		}
		out := make(bson.D, len(v))
		for i, e := range v {
			fv, err := t.fill(e.Value, value)
			if err != nil {
				return nil, err
			}
			out[i] = bson.E{Key: e.Key, Value: fv}
		}
		return out, nil
	case bson.A:
		out := make(bson.A, len(v))
		for i, e := range v {
			fv, err := t.fill(e, value)
			if err != nil {
				return nil, err
			}
			out[i] = fv
		}
		return out, nil
	}
	return v, nil
}

// marker returns the index of the placeholder d holds the place of, and
// whether it is a marker.
func (t *Template) marker(d bson.D) (int, bool) {
	if len(d) != 1 || d[0].Key != markerKey {
		return 0, false
	}
	var i int
	switch n := d[0].Value.(type) {
	case int32:
		i = int(n)
	case int64:
		i = int(n)
	default:
		return 0, false
	}
	return i, i >= 0 && i < len(t.params)
}
