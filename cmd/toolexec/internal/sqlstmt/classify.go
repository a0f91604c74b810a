package sqlstmt

import "strings"

// Effect is what a statement does to the database, as far as its text
// shows. Functions it calls are not known from the text and count as
// reading: a function that writes fails in the read-only transaction a
// reading statement runs in.
type Effect int

// The effects, from the least to the most.
const (
	// Reads: the statement only reads (SELECT, VALUES, TABLE, SHOW,
	// EXPLAIN without ANALYZE, WITH … SELECT with no data-modifying part).
	Reads Effect = iota
	// Locks: the statement reads and locks what it read (SELECT … FOR
	// UPDATE or FOR SHARE, LOCK TABLE on PostgreSQL, LOCK IN SHARE MODE):
	// it needs a read-write transaction but changes no data.
	Locks
	// Writes: the statement changes data, the schema, files, or the
	// session (INSERT, UPDATE, DELETE, MERGE, SELECT … INTO (INTO
	// anywhere in a query), COPY, CALL, DO, SET, any DDL, and every
	// statement this package does not know to be reading).
	Writes
)

// String names the effect: "reads", "locks" or "writes".
func (e Effect) String() string {
	switch e {
	case Locks:
		return "locks"
	case Writes:
		return "writes"
	}
	return "reads"
}

// Class is what Classify found a statement to be.
type Class struct {
	// Effect is the most a statement of the text does.
	Effect Effect
	// Why names what decided a Locks or Writes effect, in upper case:
	// "UPDATE", "WITH … DELETE", "SELECT … INTO", "SELECT … FOR UPDATE",
	// "EXPLAIN ANALYZE INSERT", "COPY". It is "" for Reads.
	Why string
	// Rows is false when the text is one INSERT, UPDATE, DELETE, MERGE or
	// REPLACE statement without RETURNING, which returns no rows but the
	// number it affected; true otherwise.
	Rows bool
}

// Classify reads statement (one or several, separated by ";") by the
// dialect's lexical rules and says what it does: Reads, Locks or Writes,
// the most of its statements. It is exact for the statement forms the
// Effect constants list, including data-modifying common table
// expressions (WITH x AS (DELETE …) SELECT …), locking clauses anywhere in
// the statement, INTO anywhere in a query (SELECT … INTO, (SELECT …) INTO,
// a number glued to it: SELECT 1.5INTO), and EXPLAIN ANALYZE (which runs
// its statement); a statement it does not recognise counts as writing.
//
// Where a setting of the server or the session changes how the text reads
// (MySQL's NO_BACKSLASH_ESCAPES and ANSI_QUOTES, a MySQL server older than
// a versioned /*!NNNNN */ comment, PostgreSQL's
// standard_conforming_strings off), the statement is read every way it
// may be, and the most any reading finds counts: a text that reads one
// way under one setting and writes under another writes. Rows is the
// default settings' reading. Work is linear in the statement's length (at
// most eight readings, only when the text holds a backslash, a double
// quote or an executable comment).
func Classify(d Dialect, statement string) Class {
	var out Class
	var buf [maxReadings]reading
	for k, r := range readings(&buf, d, statement) {
		c := classifyAs(r, statement)
		if k == 0 || c.Effect > out.Effect {
			out.Effect, out.Why = c.Effect, c.Why
		}
		if k == 0 {
			out.Rows = c.Rows
		}
	}
	return out
}

// Statements counts the statements of the text (separated by ";" outside
// parentheses; empty ones do not count): the most of any way the
// dialect's servers may read it (see Classify).
func Statements(d Dialect, statement string) int {
	n := 0
	var buf [maxReadings]reading
	for _, r := range readings(&buf, d, statement) {
		n = max(n, len(statements(r, statement)))
	}
	return n
}

// classifyAs is Classify for one reading.
func classifyAs(r reading, statement string) Class {
	out := Class{Effect: Reads, Rows: true}
	n := 0
	for _, st := range statements(r, statement) {
		c := classifyOne(r.d, st)
		n++
		if c.Effect > out.Effect {
			out.Effect, out.Why = c.Effect, c.Why
		}
		out.Rows = c.Rows
	}
	if n > 1 {
		out.Rows = true
	}
	return out
}

// ctok is a token with its parenthesis depth.
type ctok struct {
	token
	depth int
}

// statements splits the text into statements at the semicolons outside
// parentheses, dropping empty ones.
func statements(r reading, sql string) [][]ctok {
	var out [][]ctok
	var cur []ctok
	depth := 0
	scanAs(r, sql, func(t token) bool {
		switch t.kind {
		case tokOpen:
			cur = append(cur, ctok{t, depth})
			depth++
			return true
		case tokClose:
			if depth > 0 {
				depth--
			}
		case tokSemi:
			if depth == 0 {
				if len(cur) > 0 {
					out = append(out, cur)
				}
				cur = nil
				return true
			}
		}
		cur = append(cur, ctok{t, depth})
		return true
	})
	if len(cur) > 0 {
		out = append(out, cur)
	}
	return out
}

// dml are the verbs of statements that change rows.
var dml = []string{"INSERT", "UPDATE", "DELETE", "MERGE", "REPLACE"}

func isOneOf(t ctok, words []string) bool {
	for _, w := range words {
		if t.is(w) {
			return true
		}
	}
	return false
}

// classifyOne classifies one statement (no top-level ";").
func classifyOne(d Dialect, ts []ctok) Class {
	i := 0
	for i < len(ts) && ts[i].kind == tokOpen {
		i++
	}
	if i == len(ts) {
		return Class{Effect: Reads, Rows: true}
	}
	if ts[i].kind != tokWord {
		return Class{Effect: Writes, Why: "an unknown statement", Rows: true}
	}
	if why := modifyingCTE(ts); why != "" {
		return Class{Effect: Writes, Why: why, Rows: true}
	}
	verb := strings.ToUpper(ts[i].text)
	switch verb {
	case "SELECT", "VALUES", "TABLE":
		return selectClass(d, ts, i)
	case "WITH":
		j := mainVerb(ts, i)
		if j < 0 {
			return selectClass(d, ts, i)
		}
		if isOneOf(ts[j], dml) {
			return Class{Effect: Writes, Why: "WITH … " + strings.ToUpper(ts[j].text), Rows: returning(ts, j)}
		}
		return selectClass(d, ts, i)
	case "INSERT", "UPDATE", "DELETE", "MERGE", "REPLACE":
		return Class{Effect: Writes, Why: verb, Rows: returning(ts, i)}
	case "EXPLAIN":
		return explainClass(d, ts, i)
	case "DESCRIBE", "DESC":
		if d == MySQL {
			return explainClass(d, ts, i)
		}
	case "SHOW":
		if d != SQLite {
			return Class{Effect: Reads, Rows: true}
		}
	case "HELP", "DO":
		// MySQL's DO evaluates expressions, as SELECT does, and
		// returns nothing; PostgreSQL's DO runs a code block.
		if d == MySQL {
			if hasInto(ts) {
				return Class{Effect: Writes, Why: verb + " … INTO", Rows: true}
			}
			return Class{Effect: Reads, Rows: true}
		}
	case "ANALYZE", "ANALYSE":
		// MariaDB's ANALYZE stmt runs stmt and reports on it; ANALYZE
		// TABLE (and PostgreSQL's and SQLite's ANALYZE) updates
		// statistics.
		if d == MySQL && i+1 < len(ts) && !ts[i+1].is("TABLE") && !ts[i+1].is("NO_WRITE_TO_BINLOG") && !ts[i+1].is("LOCAL") {
			return inner(d, ts, skipFormat(ts, i+1), "ANALYZE ")
		}
	case "LOCK":
		if d == PostgreSQL {
			return Class{Effect: Locks, Why: "LOCK", Rows: true}
		}
	}
	return Class{Effect: Writes, Why: verb, Rows: true}
}

// modifyingCTE returns "WITH … VERB" when a common table expression of the
// statement is a data-modifying one (AS [NOT] [MATERIALIZED] ( INSERT …),
// at any depth; "" otherwise.
func modifyingCTE(ts []ctok) string {
	for i := 0; i < len(ts); i++ {
		if !ts[i].is("AS") {
			continue
		}
		j := i + 1
		if j < len(ts) && ts[j].is("NOT") {
			j++
		}
		if j < len(ts) && ts[j].is("MATERIALIZED") {
			j++
		}
		if j+1 < len(ts) && ts[j].kind == tokOpen && isOneOf(ts[j+1], dml) {
			return "WITH … " + strings.ToUpper(ts[j+1].text)
		}
	}
	return ""
}

// selectClass classifies a query (SELECT, VALUES, TABLE, or WITH … one of
// them) whose first word is ts[i]: INTO at any level writes (SELECT …
// INTO, and MySQL's (SELECT …) INTO, (…) UNION (…) INTO, (VALUES …)
// INTO), a locking clause at any level locks.
func selectClass(d Dialect, ts []ctok, i int) Class {
	out := Class{Effect: Reads, Rows: true}
	if d != SQLite && hasInto(ts) {
		return Class{Effect: Writes, Why: "SELECT … INTO", Rows: true}
	}
	for j := i; j < len(ts); j++ {
		t := ts[j]
		switch {
		case t.is("FOR") && j+1 < len(ts) && d != SQLite:
			next := ts[j+1]
			switch {
			case next.is("UPDATE"), next.is("SHARE"):
				out = Class{Effect: Locks, Why: "SELECT … FOR " + strings.ToUpper(next.text), Rows: true}
			case next.is("NO") && j+3 < len(ts) && ts[j+2].is("KEY") && ts[j+3].is("UPDATE"):
				out = Class{Effect: Locks, Why: "SELECT … FOR NO KEY UPDATE", Rows: true}
			case next.is("KEY") && j+2 < len(ts) && ts[j+2].is("SHARE"):
				out = Class{Effect: Locks, Why: "SELECT … FOR KEY SHARE", Rows: true}
			}
		case t.is("LOCK") && d == MySQL && j+3 < len(ts) && ts[j+1].is("IN") && ts[j+2].is("SHARE") && ts[j+3].is("MODE"):
			out = Class{Effect: Locks, Why: "SELECT … LOCK IN SHARE MODE", Rows: true}
		}
	}
	return out
}

// hasInto reports whether INTO is a word of the statement, at any depth.
func hasInto(ts []ctok) bool {
	for _, t := range ts {
		if t.is("INTO") {
			return true
		}
	}
	return false
}

// mainVerb returns the index of the word that begins the statement after
// the WITH clause opening at ts[i] (its common table expressions skipped),
// or -1 when there is none (a parenthesised query follows).
func mainVerb(ts []ctok, i int) int {
	base := ts[i].depth
	j := i + 1
	if j < len(ts) && ts[j].is("RECURSIVE") {
		j++
	}
	for j < len(ts) {
		// name [ ( columns ) ] AS [NOT] [MATERIALIZED] ( query )
		if ts[j].kind != tokWord && ts[j].kind != tokQuoted {
			return fallbackVerb(ts, i, base)
		}
		j++
		if j < len(ts) && ts[j].kind == tokOpen {
			j = closing(ts, j) + 1
		}
		if j >= len(ts) || !ts[j].is("AS") {
			return fallbackVerb(ts, i, base)
		}
		j++
		if j < len(ts) && ts[j].is("NOT") {
			j++
		}
		if j < len(ts) && ts[j].is("MATERIALIZED") {
			j++
		}
		if j >= len(ts) || ts[j].kind != tokOpen {
			return fallbackVerb(ts, i, base)
		}
		j = closing(ts, j) + 1
		// SEARCH … SET column, CYCLE … USING column (PostgreSQL).
		for j < len(ts) && (ts[j].is("SEARCH") || ts[j].is("CYCLE")) {
			end := "SET"
			if ts[j].is("CYCLE") {
				end = "USING"
			}
			for j < len(ts) && !(ts[j].depth == base && ts[j].is(end)) {
				j++
			}
			j += 2
		}
		if j < len(ts) && ts[j].kind == tokOther && ts[j].text == "," {
			j++
			continue
		}
		if j < len(ts) && ts[j].kind == tokWord {
			return j
		}
		return -1
	}
	return -1
}

// fallbackVerb is mainVerb for a WITH clause it cannot follow: the first
// verb at the clause's own depth.
func fallbackVerb(ts []ctok, i, base int) int {
	for j := i + 1; j < len(ts); j++ {
		if ts[j].depth == base && (isOneOf(ts[j], dml) || ts[j].is("SELECT") || ts[j].is("VALUES") || ts[j].is("TABLE")) {
			return j
		}
	}
	return -1
}

// closing returns the index of the ")" that closes the "(" at ts[j], or
// len(ts)-1 when none does.
func closing(ts []ctok, j int) int {
	base := ts[j].depth
	for k := j + 1; k < len(ts); k++ {
		if ts[k].kind == tokClose && ts[k].depth == base {
			return k
		}
	}
	return len(ts) - 1
}

// returning reports whether the data-changing statement whose verb is
// ts[i] has a RETURNING clause at its own level.
func returning(ts []ctok, i int) bool {
	for j := i + 1; j < len(ts); j++ {
		if ts[j].depth == ts[i].depth && ts[j].is("RETURNING") {
			return true
		}
	}
	return false
}

// explainClass classifies EXPLAIN (or MySQL's DESCRIBE) at ts[i]: it reads,
// unless it analyzes, which runs the explained statement. SQLite's EXPLAIN
// never runs its statement.
func explainClass(d Dialect, ts []ctok, i int) Class {
	if d == SQLite {
		return Class{Effect: Reads, Rows: true}
	}
	j := i + 1
	analyze := false
	switch {
	case d == PostgreSQL && j < len(ts) && ts[j].kind == tokOpen:
		end := closing(ts, j)
		for k := j + 1; k < end; k++ {
			if ts[k].depth == ts[j].depth+1 && (ts[k].is("ANALYZE") || ts[k].is("ANALYSE")) {
				analyze = true
				if k+1 < end {
					if v := ts[k+1]; v.is("FALSE") || v.is("OFF") || v.text == "0" {
						analyze = false
					}
				}
			}
		}
		j = end + 1
	default:
		for j < len(ts) && (ts[j].is("ANALYZE") || ts[j].is("ANALYSE") || ts[j].is("VERBOSE") || ts[j].is("EXTENDED") || ts[j].is("PARTITIONS")) {
			if !ts[j].is("VERBOSE") && !ts[j].is("EXTENDED") && !ts[j].is("PARTITIONS") {
				analyze = true
			}
			j++
		}
		if d == MySQL {
			j = skipFormat(ts, j)
		}
	}
	if !analyze {
		return Class{Effect: Reads, Rows: true}
	}
	return inner(d, ts, j, "EXPLAIN ANALYZE ")
}

// skipFormat skips MySQL's FORMAT = name at ts[j].
func skipFormat(ts []ctok, j int) int {
	if j+2 < len(ts) && ts[j].is("FORMAT") && ts[j+1].text == "=" {
		return j + 3
	}
	return j
}

// inner classifies the statement that begins at ts[j] inside another
// (EXPLAIN ANALYZE stmt): its effect, named with prefix, and rows (the
// outer statement's report).
func inner(d Dialect, ts []ctok, j int, prefix string) Class {
	if j >= len(ts) {
		return Class{Effect: Reads, Rows: true}
	}
	c := classifyOne(d, ts[j:])
	if c.Effect != Reads {
		c.Why = prefix + c.Why
	}
	c.Rows = true
	return c
}
