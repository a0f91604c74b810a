// Package sqlstmt reads SQL statements as text, without a database: the
// words outside string literals, quoted identifiers and comments, whether a
// statement reads or writes (Classify, for SQLite, PostgreSQL and MySQL),
// and what a statement does that a read-only tool must not do, since the
// database's read-only mode does not stop it (CheckReadOnly).
package sqlstmt

import (
	"fmt"
	"strings"
)

// RefusedError is why a statement may not run in a read-only tool.
type RefusedError struct {
	// Word is the keyword or function name that makes the statement
	// unfit: a keyword in upper case, a function's name in lower case.
	Word string
	// Reason says what the statement would do.
	Reason string
}

// Error says which word is refused and what it would do.
func (e *RefusedError) Error() string {
	return fmt.Sprintf("%s %s, which a read-only tool may not do", e.Word, e.Reason)
}

// refusal is a word a read-only statement may not use, and why.
type refusal struct {
	word, reason string
	// prefix: word begins the names refused, and a name is refused only
	// where it is called (followed by "(").
	prefix bool
}

// rules are what a dialect's read-only statement may not use.
type rules struct {
	// keywords may not appear anywhere as bare words: each names an
	// operation, never a value or a table (an identifier spelled like
	// one must be quoted).
	keywords []refusal
	// functions may not be named anywhere, bare or quoted (a prefix
	// one: not called).
	functions []refusal
	// leading may not begin a statement.
	leading []refusal
}

// What a read-only tool's statement may not use, by dialect: what the
// database's read-only mode (SQLite's mode=ro and query_only,
// PostgreSQL's and MySQL's read-only transactions) lets a statement do
// although it writes a file, reads one on the server, acts on other
// sessions or the server, or changes the pooled session for later calls.
var readOnlyRules = [...]rules{
	SQLite: {
		keywords: []refusal{
			{word: "ATTACH", reason: "opens another database file, creating it when it does not exist"},
			{word: "DETACH", reason: "changes the connection's attached databases"},
			{word: "VACUUM", reason: "rewrites a database file, and VACUUM INTO creates one"},
			{word: "PRAGMA", reason: "can change the connection's settings or write files (read a pragma with its table-valued function, such as SELECT * FROM pragma_table_info('t'))"},
		},
		functions: []refusal{
			{word: "load_extension", reason: "loads native code into the database"},
		},
		// They end or nest the transaction the tool's read-only guard
		// runs in. (They are ordinary words elsewhere: END closes a
		// CASE.)
		leading: []refusal{
			{word: "BEGIN", reason: "starts a transaction of its own"},
			{word: "COMMIT", reason: "ends the transaction the tool runs in"},
			{word: "END", reason: "ends the transaction the tool runs in"},
			{word: "ROLLBACK", reason: "ends the transaction the tool runs in"},
			{word: "SAVEPOINT", reason: "opens a savepoint of its own"},
			{word: "RELEASE", reason: "releases a savepoint"},
		},
	},
	PostgreSQL: {
		functions: []refusal{
			{word: "lo_export", reason: "writes a file on the database server"},
			{word: "lo_import", reason: "reads a file on the database server into a large object"},
			{word: "pg_read_file", reason: "reads a file on the database server"},
			{word: "pg_read_binary_file", reason: "reads a file on the database server"},
			{word: "pg_stat_file", reason: "reads a file's details on the database server"},
			{word: "pg_ls_", reason: "lists a directory of the database server", prefix: true},
			{word: "pg_file_", reason: "writes, renames or removes a file on the database server (adminpack)", prefix: true},
			{word: "pg_logdir_ls", reason: "lists a directory of the database server (adminpack)"},
			{word: "lo_create", reason: "creates a large object, which a read-only transaction does not stop"},
			{word: "lo_creat", reason: "creates a large object, which a read-only transaction does not stop"},
			{word: "lo_from_bytea", reason: "creates a large object, which a read-only transaction does not stop"},
			{word: "lo_put", reason: "writes a large object, which a read-only transaction does not stop"},
			{word: "lo_open", reason: "opens a large object for lowrite and lo_truncate, which a read-only transaction does not stop"},
			{word: "lowrite", reason: "writes a large object, which a read-only transaction does not stop"},
			{word: "lo_truncate", reason: "writes a large object, which a read-only transaction does not stop"},
			{word: "lo_truncate64", reason: "writes a large object, which a read-only transaction does not stop"},
			{word: "lo_unlink", reason: "removes a large object, which a read-only transaction does not stop"},
			{word: "dblink", reason: "runs SQL over a connection of its own, which is not read-only", prefix: true},
			{word: "pg_terminate_backend", reason: "ends another session"},
			{word: "pg_cancel_backend", reason: "cancels another session's query"},
			{word: "pg_reload_conf", reason: "reloads the server's configuration"},
			{word: "pg_rotate_logfile", reason: "rotates the server's log"},
			{word: "pg_promote", reason: "promotes a standby server"},
			{word: "pg_switch_wal", reason: "switches the server's write-ahead log file"},
			{word: "pg_log_backend_memory_contexts", reason: "makes another session write to the server's log"},
			{word: "pg_stat_reset", reason: "resets the server's statistics", prefix: true},
			{word: "pg_create_", reason: "creates a replication slot or a restore point", prefix: true},
			{word: "pg_drop_", reason: "drops a replication slot", prefix: true},
			{word: "pg_copy_", reason: "copies a replication slot", prefix: true},
			{word: "pg_replication_", reason: "changes the server's replication state", prefix: true},
			{word: "pg_logical_", reason: "consumes or writes logical replication data", prefix: true},
			{word: "pg_notify", reason: "sends a notification to other sessions"},
			{word: "set_config", reason: "changes a setting of the pooled session, for later calls too"},
			{word: "pg_advisory_lock", reason: "takes a lock that the pooled session keeps after the call"},
			{word: "pg_advisory_lock_shared", reason: "takes a lock that the pooled session keeps after the call"},
			{word: "pg_try_advisory_lock", reason: "takes a lock that the pooled session keeps after the call"},
			{word: "pg_try_advisory_lock_shared", reason: "takes a lock that the pooled session keeps after the call"},
		},
		leading: []refusal{
			{word: "COPY", reason: "reads or writes a file, or runs a program, on the database server (COPY … TO/FROM 'file' or PROGRAM)"},
		},
	},
	MySQL: {
		keywords: []refusal{
			{word: "OUTFILE", reason: "writes a file on the database server (INTO OUTFILE), which a read-only transaction does not stop"},
			{word: "DUMPFILE", reason: "writes a file on the database server (INTO DUMPFILE), which a read-only transaction does not stop"},
		},
		functions: []refusal{
			{word: "load_file", reason: "reads a file on the database server"},
			{word: "get_lock", reason: "takes a named lock that the pooled connection keeps after the call"},
		},
		leading: []refusal{
			{word: "LOAD", reason: "loads a file into a table (LOAD DATA, LOAD XML)"},
		},
	},
}

// CheckReadOnly returns a *RefusedError when the statement (one or
// several, separated by ";"), read by the dialect's rules in every way its
// servers may read it (see Classify), does what the database's read-only
// mode does not stop; nil otherwise:
//
//   - SQLite: ATTACH, DETACH, VACUUM (VACUUM INTO writes a file at a path
//     the statement or its arguments choose), a PRAGMA statement,
//     load_extension, and a statement that begins with transaction
//     control (BEGIN, COMMIT, END, ROLLBACK, SAVEPOINT, RELEASE);
//   - MySQL and MariaDB: INTO OUTFILE and INTO DUMPFILE (the words OUTFILE
//     and DUMPFILE anywhere), LOAD_FILE, GET_LOCK, and a statement that
//     begins with LOAD (LOAD DATA, LOAD XML);
//   - PostgreSQL: a statement that begins with COPY, and the functions
//     that read or write the server's files (lo_import, lo_export,
//     pg_read_file, pg_read_binary_file, pg_stat_file, pg_ls_*, adminpack's
//     pg_file_* and pg_logdir_ls), write large objects (lo_create,
//     lo_creat, lo_from_bytea, lo_put, lo_open, lowrite, lo_truncate,
//     lo_truncate64, lo_unlink), connect elsewhere (dblink*), act on other
//     sessions or the server (pg_terminate_backend, pg_cancel_backend,
//     pg_reload_conf, pg_rotate_logfile, pg_promote, pg_switch_wal,
//     pg_log_backend_memory_contexts, pg_stat_reset*, pg_create_*,
//     pg_drop_*, pg_copy_*, pg_replication_*, pg_logical_*, pg_notify), or
//     outlive the call on the pooled session (set_config, the
//     session-level pg_advisory_lock, pg_advisory_lock_shared,
//     pg_try_advisory_lock, pg_try_advisory_lock_shared).
//
// Keywords count as bare words; function names bare or quoted, in any
// case, anywhere in the statement, and those given as a prefix (pg_ls_*)
// where they are called. Writes to the database itself are the read-only
// mode's to refuse, not this function's. Work is linear in the
// statement's length.
func CheckReadOnly(d Dialect, statement string) error {
	var buf [maxReadings]reading
	for _, r := range readings(&buf, d, statement) {
		if refused := checkAs(r, statement); refused != nil {
			return refused
		}
	}
	return nil
}

// initials are the first letters of the keywords and function names of
// rs, as bits (a is 1): a word that begins with another letter is none of
// them, and is not looked up.
func (rs *rules) initials() uint32 {
	var m uint32
	for _, list := range [][]refusal{rs.keywords, rs.functions} {
		for _, r := range list {
			m |= initial(r.word)
		}
	}
	return m
}

// initial is the bit of s's first letter (ASCII, any case), or every bit
// when s begins with something else.
func initial(s string) uint32 {
	if s == "" {
		return ^uint32(0)
	}
	if c := s[0] | 0x20; c >= 'a' && c <= 'z' {
		return 1 << (c - 'a')
	}
	return ^uint32(0)
}

// checkAs is CheckReadOnly for one reading.
func checkAs(r reading, statement string) *RefusedError {
	rs := &readOnlyRules[r.d]
	initials := rs.initials()
	var refused, called *RefusedError
	leading := true
	scanAs(r, statement, func(t token) bool {
		switch {
		case t.kind == tokOpen && called != nil:
			refused = called
		case t.kind == tokSemi:
			leading = true
			called = nil
			return true
		case (t.kind == tokQuoted || t.kind == tokWord) && initial(t.text)&initials == 0:
			called = nil
			if t.kind == tokWord && leading {
				refused = lookupWord(rs.leading, t.text)
			}
		case t.kind == tokQuoted:
			refused, called = lookup(rs.functions, t.text)
		case t.kind == tokWord:
			refused = lookupWord(rs.keywords, t.text)
			if refused == nil {
				refused, called = lookup(rs.functions, t.text)
			}
			if refused == nil && leading {
				refused = lookupWord(rs.leading, t.text)
			}
		default:
			called = nil
		}
		leading = false
		return refused == nil
	})
	return refused
}

// lookupWord finds word among the refused, ignoring ASCII case (as the
// databases do).
func lookupWord(refused []refusal, word string) *RefusedError {
	for _, r := range refused {
		if !r.prefix && len(r.word) == len(word) && r.word[0]|0x20 == word[0]|0x20 && strings.EqualFold(r.word, word) {
			return &RefusedError{Word: r.word, Reason: r.reason}
		}
	}
	return nil
}

// lookup finds the function name among the refused, ignoring ASCII case:
// refused when it is refused wherever it is named, called when it is
// refused if it is called (its name begins with a prefix refusal's).
func lookup(refused []refusal, name string) (refusedHere, ifCalled *RefusedError) {
	if r := lookupWord(refused, name); r != nil {
		return r, nil
	}
	for _, r := range refused {
		if r.prefix && len(name) >= len(r.word) && r.word[0]|0x20 == name[0]|0x20 && strings.EqualFold(r.word, name[:len(r.word)]) {
			return nil, &RefusedError{Word: strings.ToLower(name), Reason: r.reason}
		}
	}
	return nil, nil
}
