// Package sqlstmt reads SQLite statements as text, without a database:
// the words outside string literals, quoted identifiers and comments, and
// what a statement does that a read-only tool must not do.
package sqlstmt

import (
	"fmt"
	"strings"
)

// RefusedError is why a statement may not run in a read-only tool.
type RefusedError struct {
	// Word is the keyword or function name that makes the statement
	// unfit, as SQLite spells it (upper case for keywords).
	Word string
	// Reason says what the statement would do.
	Reason string
}

// Error says which word is refused and what it would do.
func (e *RefusedError) Error() string {
	return fmt.Sprintf("%s %s, which a read-only tool may not do", e.Word, e.Reason)
}

// refusal is a word a read-only statement may not use, and why.
type refusal struct{ word, reason string }

// refusedKeywords may not appear anywhere in a read-only statement, as
// bare words: each names an operation, never a value or a table (an
// identifier spelled like one must be quoted, "vacuum").
var refusedKeywords = []refusal{
	{"ATTACH", "opens another database file, creating it when it does not exist"},
	{"DETACH", "changes the connection's attached databases"},
	{"VACUUM", "rewrites a database file, and VACUUM INTO creates one"},
	{"PRAGMA", "can change the connection's settings or write files (read a pragma with its table-valued function, such as SELECT * FROM pragma_table_info('t'))"},
}

// refusedFunctions may not be called in a read-only statement, however
// their name is quoted.
var refusedFunctions = []refusal{
	{"load_extension", "loads native code into the database"},
}

// refusedLeading may not start a statement of a read-only tool: they end
// or nest the transaction the tool's read-only guard runs in. (They are
// ordinary words elsewhere: END closes a CASE.)
var refusedLeading = []refusal{
	{"BEGIN", "starts a transaction of its own"},
	{"COMMIT", "ends the transaction the tool runs in"},
	{"END", "ends the transaction the tool runs in"},
	{"ROLLBACK", "ends the transaction the tool runs in"},
	{"SAVEPOINT", "opens a savepoint of its own"},
	{"RELEASE", "releases a savepoint"},
}

// CheckReadOnly returns a *RefusedError when the SQLite statement (one or
// several, separated by ";") attaches or detaches a database, vacuums
// (VACUUM INTO writes a file at a path the statement or its arguments
// choose), runs a PRAGMA statement, calls load_extension, or controls
// transactions; nil otherwise. Writes to the database itself are refused
// by SQLite on a read-only connection, not here. Work is linear in the
// statement's length.
func CheckReadOnly(statement string) error {
	var refused *RefusedError
	leading := true
	eachWord(statement, func(w word) bool {
		switch {
		case w.text == ";":
			leading = true
			return true
		case w.quoted:
			refused = lookup(refusedFunctions, w.text)
		default:
			refused = lookup(refusedKeywords, w.text)
			if refused == nil {
				refused = lookup(refusedFunctions, w.text)
			}
			if refused == nil && leading {
				refused = lookup(refusedLeading, w.text)
			}
		}
		leading = false
		return refused == nil
	})
	if refused != nil {
		return refused
	}
	return nil
}

// lookup finds word in refused, ignoring ASCII case (as SQLite does).
func lookup(refused []refusal, word string) *RefusedError {
	for _, r := range refused {
		if strings.EqualFold(r.word, word) {
			return &RefusedError{Word: r.word, Reason: r.reason}
		}
	}
	return nil
}

// word is one token of a statement that matters to CheckReadOnly: a bare
// word (keyword or identifier), a quoted identifier (its contents), or a
// ";".
type word struct {
	text   string
	quoted bool
}

// eachWord splits sql as SQLite's tokenizer does, calling f with each bare
// word, quoted identifier and semicolon until f returns false, and skipping
// string and blob literals, comments, numbers, parameters and operators.
// An unterminated literal or comment runs to the end, as SQLite reads it.
func eachWord(sql string, f func(word) bool) {
	for i := 0; i < len(sql); {
		c := sql[i]
		switch {
		case c == ';':
			if !f(word{text: ";"}) {
				return
			}
			i++
		case c == '\'':
			i = skipQuoted(sql, i, '\'')
		case c == '"' || c == '`' || c == '[':
			closer := c
			if c == '[' {
				closer = ']'
			}
			end := skipQuoted(sql, i, closer)
			inner := sql[i+1 : end]
			if end-1 > i && sql[end-1] == closer {
				inner = sql[i+1 : end-1]
			}
			if closer != ']' {
				inner = strings.ReplaceAll(inner, string([]byte{closer, closer}), string(closer))
			}
			if !f(word{text: inner, quoted: true}) {
				return
			}
			i = end
		case c == '-' && i+1 < len(sql) && sql[i+1] == '-':
			end := strings.IndexByte(sql[i:], '\n')
			if end < 0 {
				return
			}
			i += end + 1
		case c == '/' && i+1 < len(sql) && sql[i+1] == '*':
			end := strings.Index(sql[i+2:], "*/")
			if end < 0 {
				return
			}
			i += end + 4
		case (c == 'x' || c == 'X') && i+1 < len(sql) && sql[i+1] == '\'':
			i = skipQuoted(sql, i+1, '\'')
		case isIDStart(c):
			j := i + 1
			for j < len(sql) && isIDChar(sql[j]) {
				j++
			}
			if !f(word{text: sql[i:j]}) {
				return
			}
			i = j
		case c >= '0' && c <= '9':
			// A number, with any letters glued to it (1e5, 0x1F): never
			// a keyword.
			j := i + 1
			for j < len(sql) && (isIDChar(sql[j]) || sql[j] == '.') {
				j++
			}
			i = j
		case c == '?' || c == ':' || c == '@' || c == '$':
			// A parameter: ?1, :name, @name, $name (and $a::b(c)).
			j := i + 1
			for j < len(sql) && (isIDChar(sql[j]) || sql[j] == ':') {
				j++
			}
			i = j
		default:
			i++
		}
	}
}

// skipQuoted returns the index just past the literal that opens at i with
// a quote and closes with closer; a doubled closer is an escaped one
// (except in [brackets]). An unterminated literal ends at len(sql).
func skipQuoted(sql string, i int, closer byte) int {
	for j := i + 1; j < len(sql); j++ {
		if sql[j] != closer {
			continue
		}
		if closer != ']' && j+1 < len(sql) && sql[j+1] == closer {
			j++
			continue
		}
		return j + 1
	}
	return len(sql)
}

// isIDStart and isIDChar are SQLite's identifier characters: ASCII letters,
// "_", any byte of a multi-byte UTF-8 character, and (after the first)
// digits and "$".
func isIDStart(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= 0x80
}

func isIDChar(c byte) bool {
	return isIDStart(c) || c >= '0' && c <= '9' || c == '$'
}
