package typedargs

// scanner reads one JSON text strictly (RFC 8259): a byte the grammar does
// not allow ends the scan with ok false. Invalid UTF-8 inside strings is
// accepted, as encoding/json accepts it (it decodes as U+FFFD).
type scanner struct {
	data []byte
	pos  int
}

// skipSpace moves past JSON whitespace and returns the next byte, or 0 at
// the end.
func (s *scanner) skipSpace() byte {
	for s.pos < len(s.data) {
		switch c := s.data[s.pos]; c {
		case ' ', '\t', '\n', '\r':
			s.pos++
		default:
			return c
		}
	}
	return 0
}

// consume moves past c, the next byte after whitespace, or reports false.
func (s *scanner) consume(c byte) bool {
	if s.skipSpace() != c {
		return false
	}
	s.pos++
	return true
}

// literal moves past word (true, false or null).
func (s *scanner) literal(word string) bool {
	if len(s.data)-s.pos < len(word) || string(s.data[s.pos:s.pos+len(word)]) != word {
		return false
	}
	s.pos += len(word)
	return true
}

// str reads a string whose opening quote is next, and returns its raw
// content (between the quotes, escapes as written) and whether it has
// escapes.
func (s *scanner) str() (raw []byte, escaped, ok bool) {
	s.pos++ // the opening quote
	start := s.pos
	for s.pos < len(s.data) {
		c := s.data[s.pos]
		switch {
		case c == '"':
			raw = s.data[start:s.pos]
			s.pos++
			return raw, escaped, true
		case c < 0x20:
			return nil, false, false
		case c == '\\':
			escaped = true
			s.pos++
			if s.pos >= len(s.data) {
				return nil, false, false
			}
			switch s.data[s.pos] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				s.pos++
			case 'u':
				if len(s.data)-s.pos < 5 {
					return nil, false, false
				}
				for _, h := range s.data[s.pos+1 : s.pos+5] {
					if !isHex(h) {
						return nil, false, false
					}
				}
				s.pos += 5
			default:
				return nil, false, false
			}
		default:
			s.pos++
		}
	}
	return nil, false, false
}

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

// number reads a number that starts at the next byte and returns its text.
func (s *scanner) number() ([]byte, bool) {
	start, d := s.pos, s.data
	i := s.pos
	if i < len(d) && d[i] == '-' {
		i++
	}
	switch {
	case i < len(d) && d[i] == '0':
		i++
	case i < len(d) && d[i] >= '1' && d[i] <= '9':
		for i < len(d) && d[i] >= '0' && d[i] <= '9' {
			i++
		}
	default:
		return nil, false
	}
	if i < len(d) && d[i] == '.' {
		i++
		if i >= len(d) || d[i] < '0' || d[i] > '9' {
			return nil, false
		}
		for i < len(d) && d[i] >= '0' && d[i] <= '9' {
			i++
		}
	}
	if i < len(d) && (d[i] == 'e' || d[i] == 'E') {
		i++
		if i < len(d) && (d[i] == '+' || d[i] == '-') {
			i++
		}
		if i >= len(d) || d[i] < '0' || d[i] > '9' {
			return nil, false
		}
		for i < len(d) && d[i] >= '0' && d[i] <= '9' {
			i++
		}
	}
	s.pos = i
	return d[start:i], true
}

// maxDepth is the deepest nesting a plan reads: encoding/json's own limit,
// so that nothing it refuses is accepted here.
const maxDepth = 10000
