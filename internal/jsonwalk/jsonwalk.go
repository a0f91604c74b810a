// Package jsonwalk splits a JSON object into its members and an array into
// its elements in one pass, without decoding or copying, so every value
// reaches its reader as the exact bytes the client sent. The walkers assume
// valid JSON: give them only parts of a body Valid accepted. Work is
// linear in the bytes walked, and nothing is allocated.
package jsonwalk

import "encoding/json"

// Object walks the members of a JSON object in order. Its zero value,
// and one made from nil, has no members.
type Object struct {
	data []byte // the object, from '{' to '}'
	pos  int
	Key  []byte // the current member's name as sent, quotes included
	Val  []byte // the current member's value as sent
}

// Members returns a walker over obj, a JSON object from a valid body; nil
// stands for an object without members.
func Members(obj []byte) Object {
	return Object{data: obj, pos: 1}
}

// Next moves to the next member and reports whether there is one.
func (it *Object) Next() bool {
	it.pos = SkipSpace(it.data, it.pos)
	if it.pos >= len(it.data) || it.data[it.pos] == '}' {
		return false
	}
	if it.data[it.pos] == ',' {
		it.pos = SkipSpace(it.data, it.pos+1)
	}
	start := it.pos
	it.pos = skipString(it.data, it.pos)
	it.Key = it.data[start:it.pos]
	it.pos = SkipSpace(it.data, SkipSpace(it.data, it.pos)+1) // past the ':'
	start = it.pos
	it.pos = skipValue(it.data, it.pos)
	it.Val = it.data[start:it.pos]
	return true
}

// Is reports whether the current member is named name. Names are compared
// exactly, as JSON-RPC's are case-sensitive, after the name is decoded as
// encoding/json decodes it (so "\u0069d" is "id").
func (it *Object) Is(name string) bool {
	if k := it.Key[1 : len(it.Key)-1]; PlainASCII(k) {
		return string(k) == name
	}
	var s string
	return json.Unmarshal(it.Key, &s) == nil && s == name
}

// PlainASCII reports whether the inside of a JSON string is its own
// decoding: ASCII without escapes (the usual member name, method and tool
// name), so it can be read without a decoder.
func PlainASCII(inner []byte) bool {
	for _, c := range inner {
		if c == '\\' || c >= 0x80 {
			return false
		}
	}
	return true
}

// Array walks the elements of a JSON array in order.
type Array struct {
	data []byte // the array, from '[' to ']'
	pos  int
	Val  []byte // the current element as sent
}

// Elements returns a walker over arr, a JSON array from a valid body.
func Elements(arr []byte) Array {
	return Array{data: arr, pos: 1}
}

// Next moves to the next element and reports whether there is one.
func (it *Array) Next() bool {
	it.pos = SkipSpace(it.data, it.pos)
	if it.pos >= len(it.data) || it.data[it.pos] == ']' {
		return false
	}
	if it.data[it.pos] == ',' {
		it.pos = SkipSpace(it.data, it.pos+1)
	}
	start := it.pos
	it.pos = skipValue(it.data, it.pos)
	it.Val = it.data[start:it.pos]
	return true
}

// SkipSpace returns the index of the first byte at or after i that is not
// JSON white space.
func SkipSpace(data []byte, i int) int {
	for i < len(data) {
		switch data[i] {
		case ' ', '\t', '\n', '\r':
			i++
		default:
			return i
		}
	}
	return i
}

// skipString returns the index just past the string starting at data[i].
func skipString(data []byte, i int) int {
	for i++; i < len(data); i++ {
		switch data[i] {
		case '\\':
			i++ // the escaped byte; \uXXXX's digits are plain bytes
		case '"':
			return i + 1
		}
	}
	return i
}

// skipValue returns the index just past the value starting at data[i].
func skipValue(data []byte, i int) int {
	if i >= len(data) {
		return i
	}
	switch data[i] {
	case '"':
		return skipString(data, i)
	case '{', '[':
		depth := 0
		for i < len(data) {
			switch data[i] {
			case '"':
				i = skipString(data, i)
				continue
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return i + 1
				}
			}
			i++
		}
		return i
	}
	// A number, true, false or null: it ends where the next token starts.
	for i < len(data) {
		switch data[i] {
		case ',', '}', ']', ' ', '\t', '\n', '\r':
			return i
		}
		i++
	}
	return i
}
