package rawjson

// IsCompactSafe reports whether b is one valid JSON value that
// json.Compact would leave as it is and json.HTMLEscape would not change:
// no white space outside strings, and no '<', '>', '&', U+2028 or U+2029
// anywhere. Such a value can be written out as it is where encoding/json
// would compact and escape it, as it does a json.RawMessage.
//
// False means only "not known to be so": b may still be valid JSON (white
// space between tokens, an HTML character in a string, nesting deeper than
// encoding/json's own limit, which it refuses). The check reads b once and
// allocates nothing; invalid UTF-8 in strings is accepted, as encoding/json
// accepts (and copies) it.
func IsCompactSafe(b []byte) bool {
	c := compactChecker{data: b}
	return c.value(0) && c.pos == len(b)
}

// maxCompactDepth is encoding/json's nesting limit: a value nested deeper
// is not valid JSON to it.
const maxCompactDepth = 10000

type compactChecker struct {
	data []byte
	pos  int
}

func (c *compactChecker) value(depth int) bool {
	if c.pos >= len(c.data) {
		return false
	}
	switch b := c.data[c.pos]; {
	case b == '{':
		return c.object(depth + 1)
	case b == '[':
		return c.array(depth + 1)
	case b == '"':
		return c.str()
	case b == 't':
		return c.literal("true")
	case b == 'f':
		return c.literal("false")
	case b == 'n':
		return c.literal("null")
	case b == '-' || (b >= '0' && b <= '9'):
		return c.number()
	}
	return false
}

func (c *compactChecker) object(depth int) bool {
	if depth > maxCompactDepth {
		return false
	}
	c.pos++ // '{'
	if c.pos < len(c.data) && c.data[c.pos] == '}' {
		c.pos++
		return true
	}
	for {
		if c.pos >= len(c.data) || c.data[c.pos] != '"' || !c.str() {
			return false
		}
		if c.pos >= len(c.data) || c.data[c.pos] != ':' {
			return false
		}
		c.pos++
		if !c.value(depth) || c.pos >= len(c.data) {
			return false
		}
		switch c.data[c.pos] {
		case ',':
			c.pos++
		case '}':
			c.pos++
			return true
		default:
			return false
		}
	}
}

func (c *compactChecker) array(depth int) bool {
	if depth > maxCompactDepth {
		return false
	}
	c.pos++ // '['
	if c.pos < len(c.data) && c.data[c.pos] == ']' {
		c.pos++
		return true
	}
	for {
		if !c.value(depth) || c.pos >= len(c.data) {
			return false
		}
		switch c.data[c.pos] {
		case ',':
			c.pos++
		case ']':
			c.pos++
			return true
		default:
			return false
		}
	}
}

// str reads a string, its opening quote next.
func (c *compactChecker) str() bool {
	d := c.data
	i := c.pos + 1
	for i < len(d) {
		switch b := d[i]; {
		case b == '"':
			c.pos = i + 1
			return true
		case b < 0x20, b == '<', b == '>', b == '&':
			return false
		case b == 0xE2 && i+2 < len(d) && d[i+1] == 0x80 && (d[i+2] == 0xA8 || d[i+2] == 0xA9): // U+2028, U+2029
			return false
		case b == '\\':
			i++
			if i >= len(d) {
				return false
			}
			switch d[i] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i++
			case 'u':
				if len(d)-i < 5 {
					return false
				}
				for _, h := range d[i+1 : i+5] {
					if !(h >= '0' && h <= '9' || h >= 'a' && h <= 'f' || h >= 'A' && h <= 'F') {
						return false
					}
				}
				i += 5
			default:
				return false
			}
		default:
			i++
		}
	}
	return false
}

func (c *compactChecker) literal(word string) bool {
	if len(c.data)-c.pos < len(word) || string(c.data[c.pos:c.pos+len(word)]) != word {
		return false
	}
	c.pos += len(word)
	return true
}

// number reads a number as RFC 8259 spells it.
func (c *compactChecker) number() bool {
	d, i := c.data, c.pos
	if d[i] == '-' {
		i++
	}
	digits := func() bool {
		start := i
		for i < len(d) && d[i] >= '0' && d[i] <= '9' {
			i++
		}
		return i > start
	}
	switch {
	case i < len(d) && d[i] == '0':
		i++
	case i < len(d) && d[i] >= '1' && d[i] <= '9':
		digits()
	default:
		return false
	}
	if i < len(d) && d[i] == '.' {
		i++
		if !digits() {
			return false
		}
	}
	if i < len(d) && (d[i] == 'e' || d[i] == 'E') {
		i++
		if i < len(d) && (d[i] == '+' || d[i] == '-') {
			i++
		}
		if !digits() {
			return false
		}
	}
	c.pos = i
	return true
}
