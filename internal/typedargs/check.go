package typedargs

// Check reports whether raw, a call's arguments, is one JSON object the
// plan's schema accepts: then, and only then, the generic validator accepts
// it too, and it holds no key but the struct's own JSON names, each once
// and spelled exactly, so encoding/json decodes it into the Go type field
// for field.
//
// False means "not decided here": the value breaks the schema, or is not
// JSON, or is one of the values Check leaves to the generic path although
// the validator may accept them: empty or null arguments, an object key
// written with escapes, a key given twice, a number beyond the validator's
// bounds (which the validator reports as such). Check allocates nothing and
// reads raw once.
func (p *Plan) Check(raw []byte) bool {
	s := scanner{data: raw}
	if s.skipSpace() != '{' || !p.value(&s, p.root, 0) {
		return false
	}
	return s.skipSpace() == 0 && s.pos == len(raw)
}

// value checks the value at the scanner against n.
func (p *Plan) value(s *scanner, n *node, depth int) bool {
	if depth > maxDepth {
		return false
	}
	c := s.skipSpace()
	if c == 'n' {
		return n.nullable && s.literal("null")
	}
	switch n.kind {
	case kindBoolean:
		switch c {
		case 't':
			return s.literal("true")
		case 'f':
			return s.literal("false")
		}
		return false
	case kindString:
		if c != '"' {
			return false
		}
		_, _, ok := s.str()
		return ok
	case kindInteger, kindNumber:
		if c != '-' && (c < '0' || c > '9') {
			return false
		}
		text, ok := s.number()
		if !ok || !p.bounds.within(text) {
			return false
		}
		if n.kind == kindNumber {
			return true
		}
		d := parseDecimal(text)
		return d.isInt() && (!n.hasMin || d.cmpInt(n.min) >= 0) && (!n.hasMax || d.cmpInt(n.max) <= 0)
	case kindArray:
		return c == '[' && p.array(s, n, depth)
	case kindObject:
		return c == '{' && p.object(s, n, depth)
	}
	return false
}

// array checks an array, its '[' next.
func (p *Plan) array(s *scanner, n *node, depth int) bool {
	s.pos++
	count := 0
	if s.skipSpace() == ']' {
		s.pos++
	} else {
		for {
			if !p.value(s, n.items, depth+1) {
				return false
			}
			count++
			c := s.skipSpace()
			s.pos++
			if c == ']' {
				break
			}
			if c != ',' {
				return false
			}
		}
	}
	return (n.minItems < 0 || count >= n.minItems) && (n.maxItems < 0 || count <= n.maxItems)
}

// object checks an object, its '{' next: every key one of the fields',
// none twice, every required field there.
func (p *Plan) object(s *scanner, n *node, depth int) bool {
	s.pos++
	var seen uint64
	if s.skipSpace() == '}' {
		s.pos++
	} else {
		for {
			if s.skipSpace() != '"' {
				return false
			}
			key, escaped, ok := s.str()
			if !ok || escaped {
				return false
			}
			i := n.field(key)
			if i < 0 || seen&(1<<i) != 0 {
				return false
			}
			seen |= 1 << i
			if !s.consume(':') || !p.value(s, n.fields[i].node, depth+1) {
				return false
			}
			c := s.skipSpace()
			s.pos++
			if c == '}' {
				break
			}
			if c != ',' {
				return false
			}
		}
	}
	for i := range n.fields {
		if n.fields[i].required && seen&(1<<i) == 0 {
			return false
		}
	}
	return true
}

// field returns the index of the field named key, or -1.
func (n *node) field(key []byte) int {
	for i := range n.fields {
		if n.fields[i].name == string(key) {
			return i
		}
	}
	return -1
}
