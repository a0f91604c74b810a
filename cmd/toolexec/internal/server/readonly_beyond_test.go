package server

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolexec/toolexec"
	"github.com/toolexec/toolexec/cmd/toolexec/internal/config"
	"github.com/toolexec/toolexec/cmd/toolexec/internal/sqlstmt"
)

// yamlQuoted is s as a single-quoted YAML scalar.
func yamlQuoted(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }

// oneTool is a tools section with one tool, t, of kind on source src,
// running stmt, with the given extra lines; and the line of its statement.
func oneTool(sources, kind, src, stmt, extra string) (body string, line int) {
	body = sources + "tools:\n  t:\n    kind: " + kind + "\n    source: " + src + "\n    description: d\n" + extra
	line = strings.Count(body, "\n") + 1
	return body + "    statement: " + yamlQuoted(stmt) + "\n", line
}

// loadOrCall loads the tools file body as validate and serve do, and
// returns its problems. When it loads (as before the fix), it builds it
// and calls tool t once with args, returning what the call answered, so
// that the test can show what it did.
func loadOrCall(t *testing.T, body string, env map[string]string, args map[string]any) (config.Problems, *toolexec.CallToolResult) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "tools.yaml")
	require.NoError(t, os.WriteFile(path, []byte(body), 0o600))
	cfg, err := config.Load(path, func(k string) (string, bool) { v, ok := env[k]; return v, ok })
	if err != nil {
		var ps config.Problems
		require.True(t, errors.As(err, &ps), err)
		return ps, nil
	}
	set, err := Build(context.Background(), cfg, nil)
	require.NoError(t, err)
	defer set.Close()
	res, err := call(t, executor(set, Options{}), "t", args)
	if err != nil {
		res = toolexec.ErrorResult(err.Error())
	}
	return nil, res
}

// forcedOrCall builds the tools file body, whose tool t runs SELECT 1,
// with t's statement changed to stmt and t forced read-only, as if the
// classifier had read stmt as reading (what a file cannot say), and
// returns Build's error. When it builds (as before the fix), it calls t
// once with args.
func forcedOrCall(t *testing.T, body string, env map[string]string, stmt string, args map[string]any) error {
	t.Helper()
	path := filepath.Join(t.TempDir(), "tools.yaml")
	require.NoError(t, os.WriteFile(path, []byte(body), 0o600))
	cfg, err := config.Load(path, func(k string) (string, bool) { v, ok := env[k]; return v, ok })
	require.NoError(t, err)
	for _, tl := range cfg.Tools {
		if tl.Name == "t" {
			tl.Statement, tl.ReadOnly, tl.Class = stmt, true, sqlstmt.Class{Effect: sqlstmt.Reads, Rows: true}
		}
	}
	set, err := Build(context.Background(), cfg, nil)
	if err == nil {
		defer set.Close()
		_, _ = call(t, executor(set, Options{}), "t", args)
	}
	return err
}

// noFile asserts that nothing exists at path.
func noFile(t *testing.T, path string) {
	t.Helper()
	_, err := os.Stat(path)
	assert.True(t, errors.Is(err, os.ErrNotExist), "%s was written", path)
}

// secretFile writes a file the database server may read, and returns its
// path and contents.
func secretFile(t *testing.T, dir string) (string, string) {
	t.Helper()
	path := filepath.Join(dir, "secret.txt")
	const content = "toolexec-secret-line"
	require.NoError(t, os.WriteFile(path, []byte(content+"\n"), 0o644))
	require.NoError(t, os.Chmod(path, 0o644))
	return path, content
}

// refusedEverywhere shows that the tool t of kind on source src (in the
// sources block), running stmt, is refused both ways a statement reaches
// the server: validate and serve refuse the file, with the one problem at
// the statement's line and column; and, forced past the loader as
// reading, serve refuses to build it. Whatever a call did where one ran
// (before the fix), no file is at out and no call returned content.
func refusedEverywhere(t *testing.T, sources, kind, src, stmt string, env map[string]string, out, content string) {
	t.Helper()
	body, line := oneTool(sources, kind, src, stmt, "")
	ps, res := loadOrCall(t, body, env, nil)
	noFile(t, out)
	if res != nil {
		assert.NotContains(t, res.Text(), content, "a read-only tool returned a file of the server")
	}
	require.Len(t, ps, 1, "validate and serve refuse the file: %v", ps)
	assert.Equal(t, line, ps[0].Line, ps.Error())
	assert.Equal(t, 16, ps[0].Column, ps.Error())
	assert.Contains(t, ps[0].Message, "which a read-only tool may not do", ps.Error())

	body, _ = oneTool(sources, kind, src, "SELECT 1", "")
	err := forcedOrCall(t, body, env, stmt, nil)
	noFile(t, out)
	require.Error(t, err, "serve refuses the tool")
	assert.Contains(t, err.Error(), "the statement is refused")
}

// Read-only MySQL tools write and read no file on the server: MariaDB
// writes INTO OUTFILE and INTO DUMPFILE inside START TRANSACTION READ
// ONLY, and the test user has the FILE privilege. Each statement is a
// problem for validate and serve, at its line and column, and a tool
// forced past the loader as reading is refused when the server is built;
// no file appears in the server's file directory, no file's line is
// returned or loaded into a table.
func TestMySQL_ReadOnlyToolsWriteAndReadNoFiles(t *testing.T) {
	s := mariadb(t)
	db := myDB(t, s)
	_, err := db.Exec(`DROP TABLE IF EXISTS myloaded; CREATE TABLE myloaded (line TEXT)`)
	require.NoError(t, err)
	secret, content := secretFile(t, s.FileDir)
	env := map[string]string{"MYPASSWORD_FOR_TEST": s.Password}
	noBackslash := strings.Replace(mySource(s), "    maxOpenConns: 4\n", "    maxOpenConns: 4\n    queryParams: {sql_mode: \"'NO_BACKSLASH_ESCAPES'\"}\n", 1)
	for i, tc := range []struct{ sources, form string }{
		{mySource(s), "SELECT 1.5INTO OUTFILE '%s'"},
		{mySource(s), "SELECT .5INTO OUTFILE '%s'"},
		{mySource(s), "SELECT 1e1INTO OUTFILE '%s'"},
		{mySource(s), "(SELECT 1) INTO OUTFILE '%s'"},
		{mySource(s), "(SELECT 1) UNION (SELECT 2) INTO OUTFILE '%s'"},
		{mySource(s), "((SELECT 1)) INTO OUTFILE '%s'"},
		{mySource(s), "(VALUES (1)) INTO OUTFILE '%s'"},
		{mySource(s), "ANALYZE (SELECT 1) INTO OUTFILE '%s'"},
		{mySource(s), "SELECT 1.5INTO DUMPFILE '%s'"},
		// A session without backslash escapes reads 'a\' as a string,
		// and what follows as code.
		{noBackslash, "SELECT 'a\\', 1 INTO OUTFILE '%s' #'"},
		{mySource(s), "SELECT LOAD_FILE('" + secret + "') AS f -- %s"},
		{mySource(s), "LOAD DATA INFILE '" + secret + "' INTO TABLE myloaded -- %s"},
	} {
		out := filepath.Join(s.FileDir, fmt.Sprintf("out-%d", i))
		stmt := fmt.Sprintf(tc.form, out)
		t.Run(stmt, func(t *testing.T) {
			refusedEverywhere(t, tc.sources, "mysql-sql", "my", stmt, env, out, content)
		})
	}
	var n int
	require.NoError(t, db.QueryRow(`SELECT count(*) FROM myloaded`).Scan(&n))
	assert.Zero(t, n, "LOAD DATA loaded nothing")
}

// Read-only PostgreSQL tools act on nothing beyond their read-only
// transaction, which does not stop them (the test user is a superuser, as
// the files and programs need): no file is written or read, no large
// object created, no other session ended, no write made over a dblink
// connection (and no session-level advisory lock taken, which would
// outlive the call on the pooled session). Each statement is a
// problem for validate and serve, at its line and column, and a tool
// forced past the loader as reading is refused when the server is built.
func TestPostgres_ReadOnlyToolsActOnNothingBeyondTheTransaction(t *testing.T) {
	s := postgres(t)
	db := pgFreshDatabase(t, s, "beyond")
	_, err := db.Exec(`CREATE EXTENSION IF NOT EXISTS dblink; CREATE TABLE pgwritten (v int)`)
	require.NoError(t, err)
	secret, content := secretFile(t, s.FileDir)
	victim, err := db.Conn(context.Background())
	require.NoError(t, err)
	defer victim.Close()
	var pid int
	require.NoError(t, victim.QueryRowContext(context.Background(), `SELECT pg_backend_pid()`).Scan(&pid))
	conninfo := fmt.Sprintf("host=%s port=%d dbname=beyond user=%s", s.Host, s.Port, s.User)
	var object, objects int
	require.NoError(t, db.QueryRow(`SELECT lo_from_bytea(0, 'x')::int`).Scan(&object))
	require.NoError(t, db.QueryRow(`SELECT count(*) FROM pg_largeobject_metadata`).Scan(&objects))

	for i, form := range []string{
		"SELECT lo_export(" + fmt.Sprint(object) + ", '%s')",
		"COPY (SELECT 1) TO '%s'",
		"COPY (SELECT 1) TO PROGRAM 'touch %s'",
		"SELECT pg_read_file('" + secret + "') AS f -- %s",
		"SELECT lo_from_bytea(0, 'toolexec') AS o -- %s",
		"SELECT pg_terminate_backend(" + fmt.Sprint(pid) + ") AS ended -- %s",
		"SELECT dblink_exec('" + conninfo + "', 'INSERT INTO pgwritten VALUES (1)') AS r -- %s",
		"SELECT pg_advisory_lock(424242) AS l -- %s",
	} {
		out := filepath.Join(s.FileDir, fmt.Sprintf("out-%d", i))
		stmt := fmt.Sprintf(form, out)
		t.Run(stmt, func(t *testing.T) {
			refusedEverywhere(t, pgSourceIn(s, "beyond", "    maxOpenConns: 1\n"), "postgres-sql", "pg", stmt, nil, out, content)
		})
	}
	var n int
	require.NoError(t, db.QueryRow(`SELECT count(*) FROM pg_largeobject_metadata`).Scan(&n))
	assert.Equal(t, objects, n, "no large object was created")
	assert.NoError(t, victim.PingContext(context.Background()), "the other session was not ended")
	require.NoError(t, db.QueryRow(`SELECT count(*) FROM pgwritten`).Scan(&n))
	assert.Zero(t, n, "nothing was written over dblink")
}

// A read-only tool's statement is checked again on each call with its
// template values in: an allowed value that names a function that acts
// beyond the transaction is refused, not run.
func TestPostgres_ReadOnlyTemplateValuesAreCheckedOnEachCall(t *testing.T) {
	s := postgres(t)
	pgFreshDatabase(t, s, "template_call")
	secret, content := secretFile(t, s.FileDir)
	set := build(t, pgSourceIn(s, "template_call", "")+`
tools:
  t:
    kind: postgres-sql
    source: pg
    description: applies a function to a value
    templateParameters:
      - {name: fn, type: string, description: fn, allowedValues: ["^[a-z_]+$"]}
    parameters:
      - {name: v, type: string, description: v}
    statement: SELECT {{.fn}}($1) AS r
`, nil, nil)
	x := executor(set, Options{})
	res, err := call(t, x, "t", map[string]any{"fn": "upper", "v": "abc"})
	require.NoError(t, err)
	assert.Equal(t, "ABC", rows(t, res)[0]["r"])

	res, err = call(t, x, "t", map[string]any{"fn": "pg_read_file", "v": secret})
	if err != nil {
		res = toolexec.ErrorResult(err.Error())
	}
	assert.NotContains(t, res.Text(), content)
	assert.True(t, res.IsError)
	assert.Contains(t, res.Text(), "pg_read_file reads a file on the database server")
}
