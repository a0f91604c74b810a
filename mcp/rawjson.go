package mcp

import "encoding/json"

// The handler checks a body with json.Valid once, then reads the JSON-RPC
// envelope, a batch's elements and a method's parameters with the walkers
// below: they split an object into its members and an array into its
// elements in one pass, without decoding or copying, so every value reaches
// its reader as the exact bytes the client sent (ids are echoed byte for
// byte, and the tool's arguments go to the pipeline untouched). They
// assume valid JSON and must only be given parts of a body json.Valid
// accepted.

// objectIter walks the members of a JSON object in order. Its zero value,
// and one made from nil, has no members.
type objectIter struct {
	data []byte // the object, from '{' to '}'
	pos  int
	key  []byte // the current member's name as sent, quotes included
	val  []byte // the current member's value as sent
}

// members returns a walker over obj, a JSON object from a valid body; nil
// stands for an object without members.
func members(obj []byte) objectIter {
	return objectIter{data: obj, pos: 1}
}

// next moves to the next member and reports whether there is one.
func (it *objectIter) next() bool {
	it.pos = skipSpace(it.data, it.pos)
	if it.pos >= len(it.data) || it.data[it.pos] == '}' {
		return false
	}
	if it.data[it.pos] == ',' {
		it.pos = skipSpace(it.data, it.pos+1)
	}
	start := it.pos
	it.pos = skipString(it.data, it.pos)
	it.key = it.data[start:it.pos]
	it.pos = skipSpace(it.data, skipSpace(it.data, it.pos)+1) // past the ':'
	start = it.pos
	it.pos = skipValue(it.data, it.pos)
	it.val = it.data[start:it.pos]
	return true
}

// is reports whether the current member is named name. Names are compared
// exactly, as JSON-RPC's are case-sensitive, after the name is decoded as
// encoding/json decodes it (so "\u0069d" is "id").
func (it *objectIter) is(name string) bool {
	if k := it.key[1 : len(it.key)-1]; plainASCII(k) {
		return string(k) == name
	}
	var s string
	return json.Unmarshal(it.key, &s) == nil && s == name
}

// plainASCII reports whether the inside of a JSON string is its own
// decoding: ASCII without escapes (the usual member name, method and tool
// name), so it can be read without a decoder.
func plainASCII(inner []byte) bool {
	for _, c := range inner {
		if c == '\\' || c >= 0x80 {
			return false
		}
	}
	return true
}

// arrayIter walks the elements of a JSON array in order.
type arrayIter struct {
	data []byte // the array, from '[' to ']'
	pos  int
	val  []byte // the current element as sent
}

// elements returns a walker over arr, a JSON array from a valid body.
func elements(arr []byte) arrayIter {
	return arrayIter{data: arr, pos: 1}
}

// next moves to the next element and reports whether there is one.
func (it *arrayIter) next() bool {
	it.pos = skipSpace(it.data, it.pos)
	if it.pos >= len(it.data) || it.data[it.pos] == ']' {
		return false
	}
	if it.data[it.pos] == ',' {
		it.pos = skipSpace(it.data, it.pos+1)
	}
	start := it.pos
	it.pos = skipValue(it.data, it.pos)
	it.val = it.data[start:it.pos]
	return true
}

// skipSpace returns the index of the first byte at or after i that is not
// JSON white space.
func skipSpace(data []byte, i int) int {
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
