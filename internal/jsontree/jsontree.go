// Package jsontree holds a JSON value as a tree that keeps what a decoder
// into Go maps loses: the order of an object's members and each number's
// exact text. A tree can be changed in place and written back as compact
// JSON (AppendJSON) or as YAML 1.2 in block style (AppendYAML), which is
// how the REST surface rewrites a tool's schema into an OpenAPI document and
// serves that document as YAML without a YAML library.
//
// Trees are made from documents the host wrote (tool schemas) and from the
// surface's own encodings, once per change of the tool set; Parse bounds
// the nesting it accepts (MaxDepth), so a hostile schema cannot exhaust the
// stack of the code that walks the tree.
package jsontree

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"unicode/utf8"
)

// MaxDepth is the deepest nesting of objects and arrays Parse accepts.
const MaxDepth = 512

// Kind is the kind of a Node.
type Kind byte

// The kinds of JSON value.
const (
	Null Kind = iota
	Bool
	Number
	String
	Object
	Array
)

// Node is one JSON value. The fields a kind does not use are zero.
type Node struct {
	Kind Kind
	// Text is a String's value, a Number's exact text, or a Bool's "true"
	// or "false".
	Text string
	// Keys and Values are an Object's members, in order; Values alone are
	// an Array's elements.
	Keys   []string
	Values []*Node
}

// Parse decodes data, which must hold exactly one JSON value.
func Parse(data []byte) (*Node, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	n, err := parseValue(dec, 0)
	if err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("jsontree: data after the JSON value")
	}
	return n, nil
}

func parseValue(dec *json.Decoder, depth int) (*Node, error) {
	tok, err := dec.Token()
	if err != nil {
		return nil, fmt.Errorf("jsontree: %w", err)
	}
	switch v := tok.(type) {
	case nil:
		return &Node{Kind: Null}, nil
	case bool:
		return &Node{Kind: Bool, Text: strconv.FormatBool(v)}, nil
	case json.Number:
		return &Node{Kind: Number, Text: string(v)}, nil
	case string:
		return &Node{Kind: String, Text: v}, nil
	}
	if depth >= MaxDepth {
		return nil, fmt.Errorf("jsontree: nested deeper than %d", MaxDepth)
	}
	n := &Node{Kind: Array}
	if tok == json.Delim('{') {
		n.Kind = Object
	}
	var seen map[string]int // an object's keys, once it has many
	for dec.More() {
		key := ""
		if n.Kind == Object {
			k, err := dec.Token()
			if err != nil {
				return nil, fmt.Errorf("jsontree: %w", err)
			}
			key = k.(string) // the decoder yields only strings here
		}
		v, err := parseValue(dec, depth+1)
		if err != nil {
			return nil, err
		}
		if n.Kind == Object {
			// A repeated name keeps its first place and its last value, as
			// encoding/json reads it: YAML allows no repeats.
			if i := n.index(key, &seen); i >= 0 {
				n.Values[i] = v
				continue
			}
			n.Keys = append(n.Keys, key)
		}
		n.Values = append(n.Values, v)
	}
	if _, err := dec.Token(); err != nil { // the closing delimiter
		return nil, fmt.Errorf("jsontree: %w", err)
	}
	return n, nil
}

// index returns the position of key among n's keys, or -1, with seen an
// index of them kept once there are more than a few.
func (n *Node) index(key string, seen *map[string]int) int {
	if len(n.Keys) < 8 {
		for i, k := range n.Keys {
			if k == key {
				return i
			}
		}
		return -1
	}
	if *seen == nil {
		*seen = make(map[string]int, 2*len(n.Keys))
		for i, k := range n.Keys {
			(*seen)[k] = i
		}
	}
	if i, ok := (*seen)[key]; ok {
		return i
	}
	(*seen)[key] = len(n.Keys)
	return -1
}

// Get returns the value of an Object's member named key.
func (n *Node) Get(key string) (*Node, bool) {
	if n == nil || n.Kind != Object {
		return nil, false
	}
	for i, k := range n.Keys {
		if k == key {
			return n.Values[i], true
		}
	}
	return nil, false
}

// Delete removes an Object's member named key, if it has one.
func (n *Node) Delete(key string) {
	if n == nil || n.Kind != Object {
		return
	}
	for i, k := range n.Keys {
		if k == key {
			n.Keys = append(n.Keys[:i], n.Keys[i+1:]...)
			n.Values = append(n.Values[:i], n.Values[i+1:]...)
			return
		}
	}
}

// AppendJSON appends n as compact JSON, escaped as encoding/json escapes
// (so "<", ">" and "&" are written as \u003c, \u003e and \u0026).
func (n *Node) AppendJSON(dst []byte) []byte {
	switch n.Kind {
	case Null:
		return append(dst, "null"...)
	case Bool, Number:
		return append(dst, n.Text...)
	case String:
		return AppendJSONString(dst, n.Text)
	case Object:
		dst = append(dst, '{')
		for i, k := range n.Keys {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = AppendJSONString(dst, k)
			dst = append(dst, ':')
			dst = n.Values[i].AppendJSON(dst)
		}
		return append(dst, '}')
	default:
		dst = append(dst, '[')
		for i, v := range n.Values {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = v.AppendJSON(dst)
		}
		return append(dst, ']')
	}
}

// AppendJSONString appends s as a JSON string, escaped as encoding/json
// escapes it; invalid UTF-8 becomes U+FFFD.
func AppendJSONString(dst []byte, s string) []byte {
	b, _ := json.Marshal(s) // a string always encodes
	return append(dst, b...)
}

// isPrintableYAML reports whether r may appear as itself in a YAML
// double-quoted scalar: YAML 1.2's c-printable, less the byte order mark
// and the characters YAML 1.1 reads as line breaks (U+0085, U+2028,
// U+2029).
func isPrintableYAML(r rune) bool {
	switch {
	case r == '\t', r == '\n', r == '\r': // written as escapes anyway
		return false
	case r >= 0x20 && r <= 0x7E:
		return true
	case r >= 0xA0 && r <= 0xD7FF:
		return r != 0x2028 && r != 0x2029
	case r >= 0xE000 && r <= 0xFFFD:
		return r != 0xFEFF
	case r >= 0x10000 && r <= 0x10FFFF:
		return true
	}
	return false
}

// AppendYAMLString appends s as a YAML scalar: as it is when it cannot be
// read as anything but that string (by YAML 1.2 and by YAML 1.1 parsers
// alike), otherwise double-quoted, with every character YAML does not allow
// as itself escaped.
func AppendYAMLString(dst []byte, s string) []byte {
	if plainSafe(s) {
		return append(dst, s...)
	}
	dst = append(dst, '"')
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:]) // an invalid byte is U+FFFD
		switch {
		case r == '"':
			dst = append(dst, `\"`...)
		case r == '\\':
			dst = append(dst, `\\`...)
		case r == '\n':
			dst = append(dst, `\n`...)
		case r == '\t':
			dst = append(dst, `\t`...)
		case r == '\r':
			dst = append(dst, `\r`...)
		case isPrintableYAML(r):
			dst = utf8.AppendRune(dst, r)
		case r <= 0xFFFF:
			dst = fmt.Appendf(dst, `\u%04X`, r)
		default:
			dst = fmt.Appendf(dst, `\U%08X`, r)
		}
		i += size
	}
	return append(dst, '"')
}

// plainSafe reports whether s can be written as a plain YAML scalar and
// read back as the same string by any YAML parser: a letter, '_', '/' or '$'
// first, then letters, digits and "_./$-", and none of the words YAML 1.1
// reads as a boolean or null.
func plainSafe(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c == '_', c == '/', c == '$':
		case i > 0 && (c >= '0' && c <= '9' || c == '.' || c == '-'):
		default:
			return false
		}
	}
	switch string(bytes.ToLower([]byte(s))) {
	case "true", "false", "yes", "no", "on", "off", "y", "n", "null":
		return false
	}
	return true
}

// appendYAMLNumber appends a JSON number's text as YAML reads it as the
// same number: YAML 1.1 parsers read an exponent without a fraction ("1e5")
// or without a sign ("1.5e5") as a string, so those get ".0" and "+"
// ("1.0e+5"), which YAML 1.2 reads as the same number.
func appendYAMLNumber(dst []byte, text string) []byte {
	e := bytes.IndexAny([]byte(text), "eE")
	if e < 0 {
		return append(dst, text...)
	}
	mant, exp := text[:e], text[e+1:]
	dst = append(dst, mant...)
	if !bytes.ContainsRune([]byte(mant), '.') {
		dst = append(dst, ".0"...)
	}
	dst = append(dst, 'e')
	if exp != "" && exp[0] != '+' && exp[0] != '-' {
		dst = append(dst, '+')
	}
	return append(dst, exp...)
}

// AppendYAML appends n as a YAML 1.2 document in block style whose top
// level is indented by indent spaces (an object's members, an array's
// "- " items), each line ended by a newline. A scalar, an empty object
// ({}) and an empty array ([]) are written on one line. Read back, the YAML
// is the same value as the JSON (strings as strings, numbers as numbers),
// whether the parser reads YAML 1.2 or 1.1.
func (n *Node) AppendYAML(dst []byte, indent int) []byte {
	switch {
	case n.Kind == Object && len(n.Keys) > 0:
		for i, k := range n.Keys {
			dst = AppendYAMLMember(dst, k, n.Values[i], indent)
		}
		return dst
	case n.Kind == Array && len(n.Values) > 0:
		for _, v := range n.Values {
			dst = appendIndent(dst, indent)
			dst = v.appendYAMLItem(dst, indent)
		}
		return dst
	}
	dst = appendIndent(dst, indent)
	return append(n.appendYAMLInline(dst), '\n')
}

// AppendYAMLMember appends the member key: v of a block mapping whose
// members are indented by indent spaces.
func AppendYAMLMember(dst []byte, key string, v *Node, indent int) []byte {
	return appendMember(appendIndent(dst, indent), key, v, indent)
}

// appendMember appends key: v at column indent of a line already indented.
func appendMember(dst []byte, key string, v *Node, indent int) []byte {
	dst = AppendYAMLString(dst, key)
	dst = append(dst, ':')
	if v.inline() {
		dst = append(dst, ' ')
		return append(v.appendYAMLInline(dst), '\n')
	}
	dst = append(dst, '\n')
	return v.AppendYAML(dst, indent+2)
}

// appendYAMLItem appends v as the item of a block sequence, the "- " at
// the current position of a line indented by indent spaces.
func (n *Node) appendYAMLItem(dst []byte, indent int) []byte {
	dst = append(dst, "- "...)
	switch {
	case n.inline():
		return append(n.appendYAMLInline(dst), '\n')
	case n.Kind == Object:
		// The first member on the item's own line, the others below it,
		// all at the column after the dash.
		dst = appendMember(dst, n.Keys[0], n.Values[0], indent+2)
		for i := 1; i < len(n.Keys); i++ {
			dst = AppendYAMLMember(dst, n.Keys[i], n.Values[i], indent+2)
		}
		return dst
	default: // a non-empty array: its first item on this line
		dst = n.Values[0].appendYAMLItem(dst, indent+2)
		for _, v := range n.Values[1:] {
			dst = appendIndent(dst, indent+2)
			dst = v.appendYAMLItem(dst, indent+2)
		}
		return dst
	}
}

// inline reports whether n is written on the line of its key or dash.
func (n *Node) inline() bool {
	switch n.Kind {
	case Object, Array:
		return len(n.Values) == 0
	}
	return true
}

func (n *Node) appendYAMLInline(dst []byte) []byte {
	switch n.Kind {
	case Null:
		return append(dst, "null"...)
	case Bool:
		return append(dst, n.Text...)
	case Number:
		return appendYAMLNumber(dst, n.Text)
	case String:
		return AppendYAMLString(dst, n.Text)
	case Object:
		return append(dst, "{}"...)
	default:
		return append(dst, "[]"...)
	}
}

func appendIndent(dst []byte, n int) []byte {
	for range n {
		dst = append(dst, ' ')
	}
	return dst
}
