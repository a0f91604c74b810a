// Package sqlstmt reads SQL statements as text, without a database: the
// words outside string literals, quoted identifiers and comments, whether a
// statement reads or writes (Classify, for SQLite, PostgreSQL and MySQL),
// and what a SQLite statement does that a read-only tool must not do
// (CheckReadOnly).
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
	scan(SQLite, sql, func(t token) bool {
		switch t.kind {
		case tokSemi:
			return f(word{text: ";"})
		case tokWord:
			return f(word{text: t.text})
		case tokQuoted:
			return f(word{text: t.text, quoted: true})
		}
		return true
	})
}
