package jsonwalk

// MaxDepth is the deepest nesting of objects and arrays Valid accepts,
// the limit encoding/json's scanner has: 10000 open containers pass,
// 10001 do not.
const MaxDepth = 10000

// Valid reports whether data is exactly one JSON value (RFC 8259), with
// white space around it allowed, and gives the same answer as
// encoding/json.Valid for every input: control characters inside strings,
// escapes other than \" \\ \/ \b \f \n \r \t and \uXXXX, numbers outside
// the grammar, bytes other than white space around values, and nesting
// deeper than MaxDepth are refused; bytes that are not UTF-8 inside
// strings are accepted, as encoding/json accepts them.
//
// It reads data once, in one tight loop without calls per byte, and
// allocates nothing, so it is cheaper than encoding/json.Valid. A body it
// accepts is one the walkers of this package can be given.
func Valid(data []byte) bool {
	// containers holds one bit per open container: set for an object,
	// clear for an array. It lives on the stack: 1.25 KB.
	var containers [MaxDepth/64 + 1]uint64
	depth := 0
	n := len(data)
	i := 0

value: // a value must start at data[i], after white space
	for i < n && isSpace(data[i]) {
		i++
	}
	if i >= n {
		return false
	}
	switch data[i] {
	case '{':
		if depth == MaxDepth {
			return false
		}
		containers[depth>>6] |= 1 << (depth & 63)
		depth++
		for i++; i < n && isSpace(data[i]); i++ {
		}
		if i < n && data[i] == '}' {
			i++
			depth--
			goto end
		}
		goto member
	case '[':
		if depth == MaxDepth {
			return false
		}
		containers[depth>>6] &^= 1 << (depth & 63)
		depth++
		for i++; i < n && isSpace(data[i]); i++ {
		}
		if i < n && data[i] == ']' {
			i++
			depth--
			goto end
		}
		goto value
	case '"':
		if i = endOfString(data, i); i < 0 {
			return false
		}
	case 't':
		if n-i < 4 || data[i+1] != 'r' || data[i+2] != 'u' || data[i+3] != 'e' {
			return false
		}
		i += 4
	case 'f':
		if n-i < 5 || data[i+1] != 'a' || data[i+2] != 'l' || data[i+3] != 's' || data[i+4] != 'e' {
			return false
		}
		i += 5
	case 'n':
		if n-i < 4 || data[i+1] != 'u' || data[i+2] != 'l' || data[i+3] != 'l' {
			return false
		}
		i += 4
	default:
		if i = endOfNumber(data, i); i < 0 {
			return false
		}
	}

end: // a value ended just before data[i]
	for i < n && isSpace(data[i]) {
		i++
	}
	if depth == 0 {
		return i == n
	}
	if i >= n {
		return false
	}
	if containers[(depth-1)>>6]&(1<<((depth-1)&63)) != 0 {
		switch data[i] {
		case ',':
			i++
			goto member
		case '}':
			i++
			depth--
			goto end
		}
		return false
	}
	switch data[i] {
	case ',':
		i++
		goto value
	case ']':
		i++
		depth--
		goto end
	}
	return false

member: // a member's name must start at data[i], after white space
	for i < n && isSpace(data[i]) {
		i++
	}
	if i >= n || data[i] != '"' {
		return false
	}
	if i = endOfString(data, i); i < 0 {
		return false
	}
	for i < n && isSpace(data[i]) {
		i++
	}
	if i >= n || data[i] != ':' {
		return false
	}
	i++
	goto value
}

// isSpace reports whether c is JSON white space.
func isSpace(c byte) bool {
	return c == ' ' || c == '\n' || c == '\r' || c == '\t'
}

// endOfString returns the index just past the string that starts with the
// quote at data[i], or -1 when it is not a valid JSON string.
func endOfString(data []byte, i int) int {
	n := len(data)
	for i++; i < n; i++ {
		c := data[i]
		if c >= 0x20 && c != '"' && c != '\\' {
			continue // the common case: a plain byte, any byte from 0x80 up included
		}
		switch {
		case c == '"':
			return i + 1
		case c < 0x20:
			return -1
		}
		// A backslash: one of the escapes JSON knows.
		if i++; i >= n {
			return -1
		}
		switch data[i] {
		case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
		case 'u':
			if n-i < 5 || !isHex(data[i+1]) || !isHex(data[i+2]) || !isHex(data[i+3]) || !isHex(data[i+4]) {
				return -1
			}
			i += 4
		default:
			return -1
		}
	}
	return -1
}

// isHex reports whether c is a hexadecimal digit.
func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

// endOfNumber returns the index just past the number that starts at
// data[i], or -1 when no JSON number starts there. What follows the number
// is left to the caller.
func endOfNumber(data []byte, i int) int {
	n := len(data)
	if data[i] == '-' {
		if i++; i >= n {
			return -1
		}
	}
	switch c := data[i]; {
	case c == '0':
		i++
	case '1' <= c && c <= '9':
		for i++; i < n && isDigit(data[i]); i++ {
		}
	default:
		return -1
	}
	if i < n && data[i] == '.' {
		if i++; i >= n || !isDigit(data[i]) {
			return -1
		}
		for i++; i < n && isDigit(data[i]); i++ {
		}
	}
	if i < n && (data[i] == 'e' || data[i] == 'E') {
		if i++; i < n && (data[i] == '+' || data[i] == '-') {
			i++
		}
		if i >= n || !isDigit(data[i]) {
			return -1
		}
		for i++; i < n && isDigit(data[i]); i++ {
		}
	}
	return i
}

// isDigit reports whether c is a decimal digit.
func isDigit(c byte) bool {
	return '0' <= c && c <= '9'
}
