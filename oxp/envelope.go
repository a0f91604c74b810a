package oxp

// The call handler reads the usual request body without decoding it into a
// map: once json.Valid has accepted the body, the walker below splits an
// object into its members in one pass, without decoding or copying, so each
// value reaches its reader as the exact bytes the client sent. It assumes
// valid JSON and must only be given objects from a body json.Valid
// accepted.

// objectIter walks the members of a JSON object in order.
type objectIter struct {
	data []byte // the object, from '{' to '}'
	pos  int
	key  []byte // the current member's name as sent, quotes included
	val  []byte // the current member's value as sent
}

// members returns a walker over obj, a JSON object from a valid body.
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
