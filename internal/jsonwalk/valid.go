package jsonwalk

import (
	"encoding/binary"
	"math/bits"
)

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
// It reads data once, in one tight loop without calls per byte (strings
// eight bytes at a time), so it is cheaper than encoding/json.Valid. It
// allocates nothing unless data nests deeper than 256 levels, and then
// 1.25 KB once. A body it accepts is one the walkers of this package can
// be given.
func Valid(data []byte) bool {
	// containers holds one bit per open container: set for an object,
	// clear for an array. The first 256 levels live on the stack.
	var shallow [256 / 64]uint64
	containers := shallow[:]
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
		if depth>>6 == len(containers) {
			containers = deeper(containers)
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
		if depth>>6 == len(containers) {
			containers = deeper(containers)
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

// deeper returns a copy of containers with room for MaxDepth levels.
func deeper(containers []uint64) []uint64 {
	all := make([]uint64, MaxDepth/64+1)
	copy(all, containers)
	return all
}

// isSpace reports whether c is JSON white space.
func isSpace(c byte) bool {
	return c == ' ' || c == '\n' || c == '\r' || c == '\t'
}

// endOfString returns the index just past the string that starts with the
// quote at data[i], or -1 when it is not a valid JSON string.
func endOfString(data []byte, i int) int {
	n := len(data)
	for i++; ; {
		// Eight bytes at a time up to the first that is a quote, a
		// backslash or a control character (any byte from 0x80 up is
		// plain), then byte by byte near the end of data.
		for n-i >= 8 {
			if m := specials(binary.LittleEndian.Uint64(data[i:])); m != 0 {
				i += bits.TrailingZeros64(m) >> 3
				break
			}
			i += 8
		}
		for i < n && data[i] >= 0x20 && data[i] != '"' && data[i] != '\\' {
			i++
		}
		if i >= n {
			return -1
		}
		switch data[i] {
		case '"':
			return i + 1
		case '\\':
		default:
			return -1 // a control character
		}
		// A backslash: one of the escapes JSON knows.
		if i++; i >= n {
			return -1
		}
		switch data[i] {
		case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			i++
		case 'u':
			if n-i < 5 || !isHex(data[i+1]) || !isHex(data[i+2]) || !isHex(data[i+3]) || !isHex(data[i+4]) {
				return -1
			}
			i += 5
		default:
			return -1
		}
	}
}

// specials returns the high bit of each of the eight bytes of w (in
// memory order, least significant first) that is a quote, a backslash or
// below 0x20, with the tests of "Bit Twiddling Hacks": a byte of x is zero
// when (x-0x01)&^x&0x80 is set, and below n when (x-n)&^x&0x80 is, for n
// up to 0x80. A borrow can set a bit only above a byte that matched, so the
// lowest bit set is always the first such byte.
func specials(w uint64) uint64 {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	q := w ^ (ones * '"')
	b := w ^ (ones * '\\')
	return ((q-ones)&^q | (b-ones)&^b | (w-ones*0x20)&^w) & highs
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
