package config

import (
	"regexp"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/toolexec/toolexec/cmd/toolexec/internal/sqlstmt"
)

// hyperInput is {{ inputs.NAME }} at the start of a string.
var hyperInput = regexp.MustCompile(`^\{\{\s*inputs\.(\w+)\s*\}\}`)

// hyperInputAny is {{ inputs.NAME }} anywhere, NAME its group.
var hyperInputAny = regexp.MustCompile(`\{\{\s*inputs\.(\w+)\s*\}\}`)

// hyperOther is any other {{ ... }} that reads as a placeholder.
var hyperOther = regexp.MustCompile(`^\{\{\s*[A-Za-z_][\w.]*\s*\}\}`)

// namePlace are the words after which a bare placeholder would stand for
// a name (a table, a column to order by), which a bound parameter cannot.
var namePlace = map[string]bool{"FROM": true, "JOIN": true, "INTO": true, "UPDATE": true, "TABLE": true, "BY": true}

// piece is a part of a statement: text kept as it is, a placeholder (ref),
// or a string literal holding placeholders (parts, quoted by quote).
type piece struct {
	text  string
	ref   string
	quote byte
	parts []piece
}

// bind turns stmt's {{ inputs.NAME }} placeholders into bound parameters
// of dialect d: a bare one becomes the parameter ($N for PostgreSQL and
// SQLite, ? for MySQL), one in a quoted string the parameter's text
// concatenated with the rest of the string ('%{{ inputs.q }}%' becomes
// ('%' || $1 || '%'), CONCAT('%', ?, '%') in MySQL; a string that is only
// the placeholder becomes the parameter). It returns the statement, the
// inputs it binds in their order, and those it does not use. What cannot
// be bound (a placeholder in a quoted identifier, a dollar-quoted string,
// or where a name goes; an undeclared input; in MySQL, an input used
// twice) is a problem at n, and ok is false.
func (h *hyperterse) bind(what string, n *yaml.Node, d sqlstmt.Dialect, stmt string, inputs []*Param) (string, []*Param, []*Param, bool) {
	p := h.p
	pieces, ok := h.scan(what, n, d, stmt)
	byName := map[string]*Param{}
	for _, in := range inputs {
		byName[in.Name] = in
	}
	// The inputs used, in the order they are bound.
	var order []string
	seen := map[string]int{}
	var visit func(ps []piece)
	visit = func(ps []piece) {
		for _, pc := range ps {
			switch {
			case pc.ref != "":
				if byName[pc.ref] == nil {
					p.errorf(n, "%s: the statement uses {{ inputs.%s }}, which inputs does not declare", what, pc.ref)
					ok = false
					continue
				}
				if seen[pc.ref]++; seen[pc.ref] == 1 {
					order = append(order, pc.ref)
				} else if d == sqlstmt.MySQL {
					p.errorf(n, "%s: the statement uses {{ inputs.%s }} twice, and MySQL binds each ? once: use it once", what, pc.ref)
					ok = false
				}
			case pc.parts != nil:
				visit(pc.parts)
			}
		}
	}
	visit(pieces)
	if d != sqlstmt.MySQL {
		// The declared order, so that the schema reads as the file.
		order = order[:0]
		for _, in := range inputs {
			if seen[in.Name] > 0 {
				order = append(order, in.Name)
			}
		}
	}
	index := map[string]int{}
	var bound, unbound []*Param
	for i, name := range order {
		index[name] = i + 1
		bound = append(bound, byName[name])
	}
	for _, in := range inputs {
		if seen[in.Name] == 0 {
			unbound = append(unbound, in)
		}
	}
	param := func(name string) string {
		if d == sqlstmt.MySQL {
			return "?"
		}
		return "$" + strconv.Itoa(index[name])
	}
	// textOf is a parameter as text, in a concatenation.
	textOf := func(name string) string {
		if d != sqlstmt.PostgreSQL {
			return param(name) // SQLite's || and MySQL's CONCAT make text of any value
		}
		switch byName[name].Type {
		case TypeInteger:
			return param(name) + "::bigint"
		case TypeFloat:
			return param(name) + "::double precision"
		case TypeBoolean:
			return param(name) + "::boolean"
		}
		return param(name) + "::text"
	}
	var b strings.Builder
	for _, pc := range pieces {
		switch {
		case pc.ref != "":
			b.WriteString(param(pc.ref))
		case pc.parts != nil:
			if len(pc.parts) == 1 && pc.parts[0].ref != "" {
				b.WriteString(param(pc.parts[0].ref))
				continue
			}
			var terms []string
			for _, part := range pc.parts {
				if part.ref != "" {
					terms = append(terms, textOf(part.ref))
				} else if part.text != "" {
					terms = append(terms, string(pc.quote)+part.text+string(pc.quote))
				}
			}
			if d == sqlstmt.MySQL {
				b.WriteString("CONCAT(" + strings.Join(terms, ", ") + ")")
			} else {
				b.WriteString("(" + strings.Join(terms, " || ") + ")")
			}
		default:
			b.WriteString(pc.text)
		}
	}
	return b.String(), bound, unbound, ok
}

// scan splits stmt into pieces, reading quotes and comments as dialect d
// does; ok is false when a placeholder cannot be bound, or is none toolexec
// knows (reported at n).
func (h *hyperterse) scan(what string, n *yaml.Node, d sqlstmt.Dialect, stmt string) (pieces []piece, ok bool) {
	p := h.p
	ok = true
	var text strings.Builder
	flush := func() {
		if text.Len() > 0 {
			pieces = append(pieces, piece{text: text.String()})
			text.Reset()
		}
	}
	refuse := func(where string) {
		p.errorf(n, "%s: a placeholder %s cannot be bound as a parameter: toolexec binds {{ inputs.NAME }}, never splices it into the SQL (in a tools.yaml, templateParameters splice checked names)", what, where)
		ok = false
	}
	for i := 0; i < len(stmt); {
		rest := stmt[i:]
		switch c := stmt[i]; {
		case strings.HasPrefix(rest, "{{"):
			if m := hyperInput.FindStringSubmatch(rest); m != nil {
				if w := lastWord(text.String()); namePlace[w] {
					refuse("after " + w + ", where a name goes,")
				}
				if after := strings.TrimLeft(rest[len(m[0]):], " \t"); strings.HasPrefix(after, ".") {
					refuse("before a '.', where a name goes,")
				}
				flush()
				pieces = append(pieces, piece{ref: m[1]})
				i += len(m[0])
				continue
			}
			if m := hyperOther.FindString(rest); m != "" {
				p.errorf(n, "%s: %s is not a placeholder toolexec knows: {{ inputs.NAME }} and {{ env.NAME }} are", what, m)
				ok = false
			}
			text.WriteString("{{")
			i += 2
		case c == '\'' || c == '"' && d == sqlstmt.MySQL:
			end := literalEnd(stmt, i, d)
			body := stmt[i+1 : max(i+1, end-1)]
			if !strings.Contains(body, "{{") {
				text.WriteString(stmt[i:end])
			} else {
				lit := piece{quote: c}
				for j := 0; j < len(body); {
					if m := hyperInput.FindStringSubmatch(body[j:]); m != nil {
						lit.parts = append(lit.parts, piece{ref: m[1]})
						j += len(m[0])
						continue
					}
					k := strings.Index(body[j+1:], "{{")
					if k < 0 {
						k = len(body) - j - 1
					}
					lit.parts = append(lit.parts, piece{text: body[j : j+1+k]})
					j += 1 + k
				}
				flush()
				pieces = append(pieces, lit)
			}
			i = end
		case c == '"' || c == '`' || c == '[' && d == sqlstmt.SQLite:
			closer := c
			if c == '[' {
				closer = ']'
			}
			end := strings.IndexByte(stmt[i+1:], closer)
			if end < 0 {
				end = len(stmt) - i - 1
			}
			if hyperInputAny.MatchString(stmt[i : i+1+end]) {
				refuse("in a quoted identifier")
			}
			text.WriteString(stmt[i:min(len(stmt), i+2+end)])
			i = min(len(stmt), i+2+end)
		case c == '$' && d == sqlstmt.PostgreSQL && dollarTag(rest) != "":
			tag := dollarTag(rest)
			end := strings.Index(rest[len(tag):], tag)
			if end < 0 {
				end = len(rest) - len(tag)
			} else {
				end += len(tag)
			}
			if hyperInputAny.MatchString(rest[:len(tag)+end]) {
				refuse("in a dollar-quoted string")
			}
			text.WriteString(rest[:len(tag)+end])
			i += len(tag) + end
		case strings.HasPrefix(rest, "--") || c == '#' && d == sqlstmt.MySQL:
			end := strings.IndexByte(rest, '\n')
			if end < 0 {
				end = len(rest)
			}
			text.WriteString(rest[:end])
			i += end
		case strings.HasPrefix(rest, "/*"):
			end := strings.Index(rest[2:], "*/")
			if end < 0 {
				end = len(rest)
			} else {
				end += 4
			}
			text.WriteString(rest[:end])
			i += end
		default:
			text.WriteByte(c)
			i++
		}
	}
	flush()
	return pieces, ok
}

// literalEnd is the index just past the string literal that starts at
// stmt[i] (its quote doubled inside, and, in MySQL, escaped with a
// backslash), or len(stmt) when it does not end.
func literalEnd(stmt string, i int, d sqlstmt.Dialect) int {
	q := stmt[i]
	for j := i + 1; j < len(stmt); j++ {
		switch {
		case stmt[j] == '\\' && d == sqlstmt.MySQL:
			j++
		case stmt[j] == q:
			if j+1 < len(stmt) && stmt[j+1] == q {
				j++
				continue
			}
			return j + 1
		}
	}
	return len(stmt)
}

// dollarTag is the tag of a PostgreSQL dollar-quoted string that starts
// s ($$ or $name$), or "".
func dollarTag(s string) string {
	for j := 1; j < len(s); j++ {
		c := s[j]
		switch {
		case c == '$':
			return s[:j+1]
		case c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || j > 1 && c >= '0' && c <= '9':
		default:
			return ""
		}
	}
	return ""
}

// lastWord is the last word of s, upper case.
func lastWord(s string) string {
	s = strings.TrimRight(s, " \t\r\n")
	j := len(s)
	for j > 0 && isIdent(s[j-1]) {
		j--
	}
	return strings.ToUpper(s[j:])
}
