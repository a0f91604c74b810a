package sqlstmt

import "strings"

// Dialect is the SQL dialect whose lexical rules (string literals, quoted
// identifiers, comments) a statement is read by.
type Dialect int

// The dialects.
const (
	// SQLite: '…' strings, "…", `…` and […] identifiers, -- and /* */
	// comments.
	SQLite Dialect = iota
	// PostgreSQL: '…', E'…' (backslash escapes) and $tag$…$tag$ strings,
	// "…" identifiers, -- and nested /* */ comments.
	PostgreSQL
	// MySQL (and MariaDB): '…' and "…" strings with backslash escapes, `…`
	// identifiers, "-- " and # comments, /* */ comments except the
	// executable /*! … */ and /*M! … */, whose contents are code.
	MySQL
)

// String names the dialect.
func (d Dialect) String() string {
	switch d {
	case PostgreSQL:
		return "PostgreSQL"
	case MySQL:
		return "MySQL"
	}
	return "SQLite"
}

// tokenKind is what a token is.
type tokenKind int

const (
	tokWord   tokenKind = iota // a bare word: a keyword or an identifier
	tokQuoted                  // a quoted identifier (text is its contents)
	tokOpen                    // (
	tokClose                   // )
	tokSemi                    // ;
	tokOther                   // a literal, number, parameter or operator
)

// token is one token of a statement. text is a substring of the statement
// (for a quoted identifier, its unescaped contents).
type token struct {
	kind tokenKind
	text string
}

// is reports whether t is the bare word w, ignoring ASCII case.
func (t token) is(w string) bool {
	return t.kind == tokWord && strings.EqualFold(t.text, w)
}

// reading is one way a server may read a statement's text: its dialect,
// and the settings of the server or the session that change where a
// literal, an identifier or a comment ends. The text alone does not say
// which settings are in force, so a statement is read every way they may
// be (readings), and what any reading finds counts.
type reading struct {
	d Dialect
	// noBackslash is MySQL's NO_BACKSLASH_ESCAPES: a backslash in '…'
	// and "…" is an ordinary character.
	noBackslash bool
	// ansiQuotes is MySQL's ANSI_QUOTES: "…" is an identifier.
	ansiQuotes bool
	// skipVersioned is a MySQL server older than a versioned executable
	// comment (/*!80000 … */), or a MySQL server reading MariaDB's /*M! …
	// */: the comment is a comment, not code.
	skipVersioned bool
	// backslashStrings is PostgreSQL with standard_conforming_strings
	// off: a backslash in '…' escapes the next character.
	backslashStrings bool
}

// maxReadings is the most readings a statement has.
const maxReadings = 8

// readings are the ways the dialect's servers may read sql: the default
// settings first, then, only when sql holds a character whose meaning a
// setting changes, each other combination of those settings (at most 8
// for MySQL, 2 for PostgreSQL, 1 for SQLite). They are kept in buf.
func readings(buf *[maxReadings]reading, d Dialect, sql string) []reading {
	out := append(buf[:0], reading{d: d})
	switch d {
	case MySQL:
		if strings.IndexByte(sql, '\\') >= 0 {
			out = append(out, reading{d: d, noBackslash: true})
		}
		if strings.IndexByte(sql, '"') >= 0 {
			for _, r := range out {
				r.ansiQuotes = true
				out = append(out, r)
			}
		}
		if strings.Contains(sql, "/*!") || strings.Contains(sql, "/*M!") {
			for _, r := range out {
				r.skipVersioned = true
				out = append(out, r)
			}
		}
	case PostgreSQL:
		if strings.IndexByte(sql, '\\') >= 0 {
			out = append(out, reading{d: d, backslashStrings: true})
		}
	}
	return out
}

// backslash reports whether a backslash escapes in the reading's '…'
// strings.
func (r reading) backslash() bool {
	return r.d == MySQL && !r.noBackslash || r.d == PostgreSQL && r.backslashStrings
}

// scan splits sql into tokens as the dialect's tokenizer does with its
// default settings; see scanAs.
func scan(d Dialect, sql string, f func(token) bool) {
	scanAs(reading{d: d}, sql, f)
}

// scanAs splits sql into tokens as the reading's tokenizer does, calling f
// with each until f returns false. Comments and white space are skipped;
// an unterminated literal or comment runs to the end, as the databases
// read it. A number ends where the number does: letters glued to it
// (1.5INTO, .5INTO, 1e1INTO) begin a word, as MySQL reads them (where
// MySQL reads 1abc as one identifier, seeing the word abc too only adds
// to what is checked). Work is linear in len(sql) and nothing is
// allocated but the contents of a quoted identifier with an escaped quote.
func scanAs(r reading, sql string, f func(token) bool) {
	d := r.d
	execComment := false // inside MySQL's /*! … */
	for i := 0; i < len(sql); {
		c := sql[i]
		var t token
		next := i + 1
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v':
			i++
			continue
		case c == ';':
			t = token{kind: tokSemi, text: ";"}
		case c == '(':
			t = token{kind: tokOpen, text: "("}
		case c == ')':
			t = token{kind: tokClose, text: ")"}
		case c == '-' && i+1 < len(sql) && sql[i+1] == '-' && (d != MySQL || i+2 >= len(sql) || sql[i+2] <= ' '):
			// MySQL needs white space (or a control character) after --.
			end := strings.IndexByte(sql[i:], '\n')
			if end < 0 {
				return
			}
			i += end + 1
			continue
		case c == '#' && d == MySQL:
			end := strings.IndexByte(sql[i:], '\n')
			if end < 0 {
				return
			}
			i += end + 1
			continue
		case c == '/' && i+1 < len(sql) && sql[i+1] == '*':
			if d == MySQL {
				if j, versioned, ok := execCommentStart(sql, i); ok && !(versioned && r.skipVersioned) {
					execComment = true
					i = j
					continue
				}
			}
			end := skipComment(d, sql, i)
			if end < 0 {
				return
			}
			i = end
			continue
		case c == '*' && execComment && i+1 < len(sql) && sql[i+1] == '/':
			execComment = false
			i += 2
			continue
		case c == '\'':
			t, next = token{kind: tokOther}, skipString(sql, i, '\'', r.backslash())
		case c == '"' && d == MySQL && !r.ansiQuotes:
			t, next = token{kind: tokOther}, skipString(sql, i, '"', !r.noBackslash)
		case (c == 'e' || c == 'E') && d == PostgreSQL && i+1 < len(sql) && sql[i+1] == '\'':
			t, next = token{kind: tokOther}, skipString(sql, i+1, '\'', true)
		case (c == 'x' || c == 'X' || c == 'b' || c == 'B' || c == 'n' || c == 'N') && i+1 < len(sql) && sql[i+1] == '\'':
			t, next = token{kind: tokOther}, skipString(sql, i+1, '\'', r.backslash())
		case (c == 'u' || c == 'U') && d == PostgreSQL && strings.HasPrefix(sql[i+1:], "&'"):
			t, next = token{kind: tokOther}, skipString(sql, i+2, '\'', false)
		case (c == 'u' || c == 'U') && d == PostgreSQL && strings.HasPrefix(sql[i+1:], "&\""):
			t, next = quotedIdent(sql, i+2, '"')
		case c == '"' || c == '`' && d != PostgreSQL || c == '[' && d == SQLite:
			closer := c
			if c == '[' {
				closer = ']'
			}
			t, next = quotedIdent(sql, i, closer)
		case c == '$' && d == PostgreSQL && i+1 < len(sql) && !isDigit(sql[i+1]):
			if end, ok := skipDollarQuoted(sql, i); ok {
				t, next = token{kind: tokOther}, end
			} else {
				t = token{kind: tokOther, text: "$"}
			}
		case isIDStart(c):
			j := i + 1
			for j < len(sql) && isIDChar(sql[j]) {
				j++
			}
			t, next = token{kind: tokWord, text: sql[i:j]}, j
		case isDigit(c) || c == '.' && i+1 < len(sql) && isDigit(sql[i+1]):
			t, next = token{kind: tokOther}, skipNumber(sql, i)
		case c == '?' || c == ':' || c == '@' || c == '$':
			// A parameter (?, ?1, :name, @name, $name, $1) or a cast (::).
			j := i + 1
			for j < len(sql) && (isIDChar(sql[j]) || sql[j] == ':' && d == SQLite) {
				j++
			}
			t, next = token{kind: tokOther}, j
		default:
			t = token{kind: tokOther}
		}
		if t.kind == tokOther && t.text == "" {
			t.text = sql[i:next]
		}
		if !f(t) {
			return
		}
		i = next
	}
}

// skipNumber returns the index just past the number that begins at i:
// digits, a "." and digits, and an exponent (e, an optional sign, and at
// least one digit). What follows it, letters included, is not part of it.
func skipNumber(sql string, i int) int {
	j := i
	for j < len(sql) && isDigit(sql[j]) {
		j++
	}
	if j < len(sql) && sql[j] == '.' {
		j++
		for j < len(sql) && isDigit(sql[j]) {
			j++
		}
	}
	if j < len(sql) && (sql[j] == 'e' || sql[j] == 'E') {
		k := j + 1
		if k < len(sql) && (sql[k] == '+' || sql[k] == '-') {
			k++
		}
		if k < len(sql) && isDigit(sql[k]) {
			for j = k; j < len(sql) && isDigit(sql[j]); j++ {
			}
		}
	}
	return j
}

// execCommentStart reports whether a MySQL executable comment (/*! or
// /*M!, with an optional version number) opens at i, where its code
// begins, and whether some server may read it as a comment: a MySQL
// server older than its version, or any MySQL server for MariaDB's /*M!.
func execCommentStart(sql string, i int) (code int, versioned, ok bool) {
	j := i + 2
	if j < len(sql) && sql[j] == 'M' {
		versioned = true
		j++
	}
	if j >= len(sql) || sql[j] != '!' {
		return 0, false, false
	}
	j++
	if j < len(sql) && isDigit(sql[j]) {
		versioned = true
	}
	for j < len(sql) && isDigit(sql[j]) {
		j++
	}
	return j, versioned, true
}

// skipComment returns the index just past the /* comment that opens at i,
// or -1 when it is not closed. PostgreSQL's comments nest.
func skipComment(d Dialect, sql string, i int) int {
	if d != PostgreSQL {
		end := strings.Index(sql[i+2:], "*/")
		if end < 0 {
			return -1
		}
		return i + 2 + end + 2
	}
	depth := 0
	for j := i; j+1 < len(sql); j++ {
		switch {
		case sql[j] == '/' && sql[j+1] == '*':
			depth++
			j++
		case sql[j] == '*' && sql[j+1] == '/':
			depth--
			j++
			if depth == 0 {
				return j + 1
			}
		}
	}
	return -1
}

// skipString returns the index just past the literal that opens with quote
// at i. A doubled quote is an escaped one; with backslash, a backslash
// escapes the next byte. An unterminated literal ends at len(sql).
func skipString(sql string, i int, quote byte, backslash bool) int {
	for j := i + 1; j < len(sql); j++ {
		switch sql[j] {
		case '\\':
			if backslash {
				j++
			}
		case quote:
			if j+1 < len(sql) && sql[j+1] == quote {
				j++
				continue
			}
			return j + 1
		}
	}
	return len(sql)
}

// skipDollarQuoted returns the index just past PostgreSQL's dollar-quoted
// string ($$…$$ or $tag$…$tag$) that opens at i, and whether one opens
// there. An unterminated one ends at len(sql).
func skipDollarQuoted(sql string, i int) (int, bool) {
	j := i + 1
	for j < len(sql) && sql[j] != '$' {
		if !(isIDStart(sql[j]) || j > i+1 && isDigit(sql[j])) {
			return 0, false
		}
		j++
	}
	if j >= len(sql) {
		return 0, false
	}
	tag := sql[i : j+1]
	end := strings.Index(sql[j+1:], tag)
	if end < 0 {
		return len(sql), true
	}
	return j + 1 + end + len(tag), true
}

// quotedIdent reads the quoted identifier that opens at i and closes with
// closer; a doubled closer is an escaped one (except in [brackets]).
func quotedIdent(sql string, i int, closer byte) (token, int) {
	end := skipString(sql, i, closer, false)
	if closer == ']' {
		end = i + 1
		for end < len(sql) && sql[end] != ']' {
			end++
		}
		if end < len(sql) {
			end++
		}
	}
	inner := sql[i+1 : end]
	if end-1 > i && sql[end-1] == closer {
		inner = sql[i+1 : end-1]
	}
	if closer != ']' && strings.IndexByte(inner, closer) >= 0 {
		inner = strings.ReplaceAll(inner, string([]byte{closer, closer}), string(closer))
	}
	return token{kind: tokQuoted, text: inner}, end
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// isIDStart and isIDChar are identifier characters: ASCII letters, "_",
// any byte of a multi-byte UTF-8 character, and (after the first) digits
// and "$".
func isIDStart(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= 0x80
}

func isIDChar(c byte) bool {
	return isIDStart(c) || isDigit(c) || c == '$'
}

// Placeholders counts the positional placeholders of statement, read by
// the dialect's lexical rules with its default settings: the number of
// bare "?" and the highest "$N" (or "?N").
func Placeholders(d Dialect, statement string) (questions, maxNumbered int) {
	scan(d, statement, func(t token) bool {
		if t.kind != tokOther || len(t.text) == 0 || t.text[0] != '?' && t.text[0] != '$' {
			return true
		}
		if len(t.text) == 1 {
			if t.text[0] == '?' {
				questions++
			}
			return true
		}
		n := 0
		for _, c := range []byte(t.text[1:]) {
			if !isDigit(c) {
				return true
			}
			if n < 1<<20 {
				n = n*10 + int(c-'0')
			}
		}
		maxNumbered = max(maxNumbered, n)
		return true
	})
	return questions, maxNumbered
}

// HasBareWord reports whether word occurs in statement as a bare word
// (outside literals, quoted identifiers and comments), in any case, in
// every way the dialect's servers may read it (see readings).
func HasBareWord(d Dialect, statement, word string) bool {
	var buf [maxReadings]reading
	for _, r := range readings(&buf, d, statement) {
		found := false
		scanAs(r, statement, func(t token) bool {
			found = t.is(word)
			return !found
		})
		if !found {
			return false
		}
	}
	return true
}
