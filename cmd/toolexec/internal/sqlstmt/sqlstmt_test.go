package sqlstmt

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestCheckReadOnly_Refuses(t *testing.T) {
	for sql, word := range map[string]string{
		"ATTACH DATABASE ? AS x":                         "ATTACH",
		"attach ? as x":                                  "ATTACH",
		"SELECT 1; ATTACH ? AS x":                        "ATTACH",
		"SELECT 1 /* */ ;/**/attach/**/? as x":           "ATTACH",
		"DETACH x":                                       "DETACH",
		"VACUUM INTO ?":                                  "VACUUM",
		"vacuum main into 'x.db'":                        "VACUUM",
		"PRAGMA query_only = 0":                          "PRAGMA",
		"PRAGMA table_info(items)":                       "PRAGMA",
		"SELECT load_extension(?)":                       "load_extension",
		"SELECT LOAD_EXTENSION(?)":                       "load_extension",
		`SELECT "load_extension"(?)`:                     "load_extension",
		"SELECT `load_extension`(?)":                     "load_extension",
		"SELECT [load_extension](?)":                     "load_extension",
		"COMMIT; DELETE FROM t":                          "COMMIT",
		"SELECT 1; BEGIN":                                "BEGIN",
		"  end":                                          "END",
		"ROLLBACK":                                       "ROLLBACK",
		"SAVEPOINT a":                                    "SAVEPOINT",
		"RELEASE a":                                      "RELEASE",
		"SELECT 'it''s' ; ATTACH ? AS x":                 "ATTACH",
		"SELECT x'41' , 1e5, ?1, :a, @b, $c; VACUUM":     "VACUUM",
		"WITH a AS (SELECT 1) SELECT * FROM a; PRAGMA x": "PRAGMA",
	} {
		refused(t, SQLite, sql, word)
	}
}

// refused asserts that CheckReadOnly refuses sql for word.
func refused(t *testing.T, d Dialect, sql, word string) {
	t.Helper()
	err := CheckReadOnly(d, sql)
	var re *RefusedError
	require.True(t, errors.As(err, &re), "%s: %s", d, sql)
	assert.Equal(t, word, re.Word, "%s: %s", d, sql)
	assert.Contains(t, err.Error(), "read-only tool", sql)
}

func TestCheckReadOnly_RefusesMySQL(t *testing.T) {
	for sql, word := range map[string]string{
		"SELECT * FROM t INTO OUTFILE '/tmp/x'":             "OUTFILE",
		"SELECT 1.5INTO OUTFILE '/tmp/x'":                   "OUTFILE",
		"(SELECT 1) INTO DUMPFILE '/tmp/x'":                 "DUMPFILE",
		"select 1 into outfile '/tmp/x'":                    "OUTFILE",
		"SELECT 1 /*!50000 INTO OUTFILE '/tmp/x' */":        "OUTFILE",
		"LOAD DATA INFILE '/tmp/x' INTO TABLE t":            "LOAD",
		"LOAD XML INFILE '/tmp/x' INTO TABLE t":             "LOAD",
		"SELECT 1; LOAD DATA LOCAL INFILE 'x' INTO TABLE t": "LOAD",
		"SELECT LOAD_FILE('/etc/passwd')":                   "load_file",
		"SELECT load_file ('/etc/passwd')":                  "load_file",
		"SELECT `load_file`('/etc/passwd')":                 "load_file",
		"SELECT GET_LOCK('x', 10)":                          "get_lock",
		// Read without backslash escapes (NO_BACKSLASH_ESCAPES), the
		// string ends at \' and the call is code.
		`SELECT 'a\', LOAD_FILE('/etc/passwd') #'`: "load_file",
		// Read with ANSI_QUOTES, "…" is an identifier.
		`SELECT "a\", LOAD_FILE('/etc/passwd') #"`: "load_file",
		`SELECT "load_file"('/etc/passwd')`:        "load_file",
	} {
		refused(t, MySQL, sql, word)
	}
}

func TestCheckReadOnly_RefusesPostgreSQL(t *testing.T) {
	for sql, word := range map[string]string{
		"SELECT lo_export(1, '/tmp/x')":                            "lo_export",
		"SELECT pg_catalog.LO_IMPORT('/etc/passwd')":               "lo_import",
		`SELECT "lo_from_bytea"(0, 'x')`:                           "lo_from_bytea",
		"SELECT lowrite(lo_open(1, 131072), 'x')":                  "lowrite",
		"SELECT pg_terminate_backend(pid) FROM pg_stat_activity":   "pg_terminate_backend",
		"SELECT pg_cancel_backend($1)":                             "pg_cancel_backend",
		"SELECT dblink_exec('dbname=x', 'DELETE FROM t')":          "dblink_exec",
		"SELECT * FROM dblink('dbname=x', 'SELECT 1') AS t(a int)": "dblink",
		"SELECT pg_read_file('/etc/passwd')":                       "pg_read_file",
		"SELECT pg_read_binary_file($1)":                           "pg_read_binary_file",
		"SELECT pg_ls_dir('.')":                                    "pg_ls_dir",
		"SELECT * FROM pg_ls_waldir()":                             "pg_ls_waldir",
		"SELECT pg_file_write('/tmp/x', 'y', false)":               "pg_file_write",
		"SELECT pg_reload_conf()":                                  "pg_reload_conf",
		"SELECT set_config('search_path', 'x', false)":             "set_config",
		"SELECT pg_advisory_lock(1)":                               "pg_advisory_lock",
		"SELECT pg_try_advisory_lock_shared(1)":                    "pg_try_advisory_lock_shared",
		"SELECT pg_notify('c', 'x')":                               "pg_notify",
		"SELECT pg_stat_reset()":                                   "pg_stat_reset",
		"SELECT pg_create_restore_point('x')":                      "pg_create_restore_point",
		"COPY t TO '/tmp/x'":                                       "COPY",
		"copy (SELECT 1) TO PROGRAM 'touch /tmp/x'":                "COPY",
		"SELECT 1; COPY t FROM '/tmp/x'":                           "COPY",
		// Read with standard_conforming_strings off, \' escapes a quote,
		// and the call is code.
		`SELECT '\'' , lo_export(1, '/tmp/x') --'`: "lo_export",
	} {
		refused(t, PostgreSQL, sql, word)
	}
}

func TestCheckReadOnly_AllowsMySQLAndPostgreSQL(t *testing.T) {
	for _, sql := range []string{
		"SELECT id FROM t WHERE name = ?",
		"SELECT 'INTO OUTFILE', \"LOAD_FILE(x)\" FROM t",
		"SELECT outfile_name, `outfile`, load_filer FROM t",
		"SELECT 1 -- INTO OUTFILE 'x'",
		"SELECT * FROM downloads",
		"SELECT RELEASE_LOCK('x'), IS_FREE_LOCK('x')",
	} {
		assert.NoError(t, CheckReadOnly(MySQL, sql), sql)
	}
	for _, sql := range []string{
		"SELECT id FROM t WHERE name = $1",
		"SELECT 'lo_export(1, ''x'')', $$ set_config() $$",
		"SELECT dblink_url, pg_ls_count FROM t",
		"SELECT pg_advisory_xact_lock(1), lo_get(1), current_setting('search_path')",
		"SELECT copy FROM t",
		"SELECT 1 /* COPY t TO 'x' /* nested */ */",
	} {
		assert.NoError(t, CheckReadOnly(PostgreSQL, sql), sql)
	}
}

func TestCheckReadOnly_Allows(t *testing.T) {
	for _, sql := range []string{
		"SELECT id, name FROM items WHERE name = ?",
		"SELECT 'ATTACH DATABASE x' AS s",
		`SELECT "attach", [vacuum], ` + "`pragma`" + ` FROM t`,
		"SELECT 1 -- ATTACH ? AS x",
		"SELECT 1 /* VACUUM INTO 'x' */",
		"SELECT * FROM pragma_table_info(?)",
		"SELECT CASE WHEN a THEN 1 ELSE 0 END FROM t",
		"SELECT attached_at, vacuumed, pragmatic FROM t",
		"SELECT 'load_extension'",
		"SELECT x FROM t WHERE y = 'unterminated",
		"SELECT 1 /* unterminated",
		"SELECT \"unterminated",
		"",
	} {
		assert.NoError(t, CheckReadOnly(SQLite, sql), sql)
	}
}

func TestScan_QuotedIdentifiers(t *testing.T) {
	assert.Equal(t, []token{{kind: tokQuoted, text: `a"b`}, {kind: tokWord, text: "x"}}, tokens(SQLite, `"a""b" x`))
	assert.Equal(t, token{kind: tokQuoted, text: "a"}, tokens(SQLite, `[a]]`)[0], "brackets have no escape")
}

// tokens is every token of sql, as scan yields them.
func tokens(d Dialect, sql string) []token {
	var out []token
	scan(d, sql, func(t token) bool { out = append(out, t); return true })
	return out
}
