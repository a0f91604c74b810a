package server

import (
	"context"
	"database/sql"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolexec/toolexec"
	"github.com/toolexec/toolexec/cmd/toolexec/internal/config"
	"github.com/toolexec/toolexec/cmd/toolexec/internal/mysqltest"
	"github.com/toolexec/toolexec/internal/testserver"
)

var (
	myOnce   sync.Once
	myServer *mysqltest.Server
	myErr    error
)

// mariadb returns the package's MariaDB server, started on first use and
// stopped by TestMain. Without the binaries the test is skipped, unless
// CI is set: CI must run it.
func mariadb(t testing.TB) *mysqltest.Server {
	t.Helper()
	myOnce.Do(func() { myServer, myErr = mysqltest.Start() })
	testserver.Require(t, myErr)
	return myServer
}

// myDB is a direct connection to the test database, as its user.
func myDB(t testing.TB, s *mysqltest.Server) *sql.DB {
	t.Helper()
	cfg := mysql.NewConfig()
	cfg.Net, cfg.Addr = "tcp", net.JoinHostPort(s.Host, strconv.Itoa(s.Port))
	cfg.User, cfg.Passwd, cfg.DBName = s.User, s.Password, s.Database
	cfg.MultiStatements = true
	db, err := sql.Open("mysql", cfg.FormatDSN())
	require.NoError(t, err)
	t.Cleanup(func() { db.Close() })
	return db
}

// mySource is the sources block of a tools file for the test server, in
// toolbox's form (a mariadb source, as toolbox also names it).
func mySource(s *mysqltest.Server) string {
	return mySourceAs(s, s.User, "${MYPASSWORD_FOR_TEST}", 4)
}

// mySourceAs is mySource for another user of the test database, with a
// pool of maxOpen connections.
func mySourceAs(s *mysqltest.Server, user, password string, maxOpen int) string {
	return fmt.Sprintf(`
sources:
  my:
    kind: mariadb
    host: %s
    port: "%d"
    database: %s
    user: %s
    password: %s
    maxOpenConns: %d
`, s.Host, s.Port, s.Database, user, password, maxOpen)
}

const myTools = `
tools:
  by-name:
    kind: mysql-sql
    source: my
    description: by name
    parameters: [{name: name, type: string, description: name}]
    statement: SELECT id, name FROM myitems WHERE name = ?
  all:
    kind: mysql-sql
    source: my
    description: every item
    statement: SELECT id, name FROM myitems ORDER BY id
  add:
    kind: mysql-sql
    source: my
    description: add an item
    parameters: [{name: name, type: string, description: name}]
    statement: INSERT INTO myitems (name, price) VALUES (?, 9.5)
  rename:
    kind: mysql-sql
    source: my
    description: rename items
    parameters: [{name: from, type: string, description: from}, {name: to, type: string, description: to}]
    statement: UPDATE myitems SET name = ? WHERE name = ?
  sneaky-write:
    kind: mysql-sql
    source: my
    description: reads, as far as its text shows, but its function writes
    statement: SELECT myitems_wipe() AS n
  sleepy:
    kind: mysql-sql
    source: my
    description: computes for a long while, sending nothing
    timeout: 1s
    statement: SELECT BENCHMARK(500000000, MD5('x')) AS slept, 'toolexec-sleep-marker' AS marker
  endless:
    kind: mysql-sql
    source: my
    description: a hundred million rows
    maxRows: 10
    timeout: 10s
    statement: SELECT seq, 'toolexec-cap-marker' AS marker FROM seq_1_to_100000000
  types:
    kind: mysql-sql
    source: my
    description: one of each type
    statement: >-
      SELECT CAST(1 AS SIGNED) AS i, 9007199254740993 AS big, CAST(18446744073709551615 AS UNSIGNED) AS ubig,
      CAST(1.25 AS DECIMAL(10,2)) AS d, CAST(1.5 AS DOUBLE) AS f, NULL AS nul, 'x' AS t, bits,
      DATE('2024-04-22') AS day, TIMESTAMP('2024-01-02 03:04:05') AS ts, JSON_OBJECT('a', 1) AS j, x'DEADBEEF' AS bin
      FROM mybits
  types-args:
    kind: mysql-sql
    source: my
    description: one of each type, through a prepared statement
    parameters: [{name: n, type: integer, description: n}]
    statement: SELECT id, price, name, ? AS n FROM myitems WHERE id = 1
`

func myExecutor(t *testing.T) (*toolexec.Executor, *sql.DB) {
	s := mariadb(t)
	db := myDB(t, s)
	_, err := db.Exec(`DROP TABLE IF EXISTS myitems; DROP FUNCTION IF EXISTS myitems_wipe;
DROP TABLE IF EXISTS mybits; CREATE TABLE mybits (bits BIT(3)); INSERT INTO mybits VALUES (b'101');
CREATE TABLE myitems (id INT AUTO_INCREMENT PRIMARY KEY, name VARCHAR(100) NOT NULL, price DECIMAL(10,2) NOT NULL);
INSERT INTO myitems (name, price) VALUES ('apple', 1.5), ('pear', 2.25), ('plum', 3);
CREATE FUNCTION myitems_wipe() RETURNS INT MODIFIES SQL DATA BEGIN DELETE FROM myitems; RETURN 1; END`)
	require.NoError(t, err)
	set := build(t, mySource(s)+myTools, nil, map[string]string{"MYPASSWORD_FOR_TEST": s.Password})
	return executor(set, Options{}), db
}

func myCount(t *testing.T, db *sql.DB) int {
	t.Helper()
	var n int
	require.NoError(t, db.QueryRow(`SELECT count(*) FROM myitems`).Scan(&n))
	return n
}

func TestMySQL_ReadsAndWrites(t *testing.T) {
	x, db := myExecutor(t)
	res, err := call(t, x, "by-name", map[string]any{"name": "pear"})
	require.NoError(t, err)
	assert.Equal(t, []string{`{"id":2,"name":"pear"}`}, texts(t, res))
	for _, inj := range []string{"' OR '1'='1", "pear'; DELETE FROM myitems; --", `pear\' OR 1=1 -- `, "?"} {
		res, err := call(t, x, "by-name", map[string]any{"name": inj})
		require.NoError(t, err)
		assert.Empty(t, rows(t, res), inj)
	}

	def, ok := x.Lookup("add", "")
	require.True(t, ok)
	assert.False(t, *def.Annotations.ReadOnlyHint)
	assert.True(t, *def.Annotations.DestructiveHint)
	res, err = call(t, x, "add", map[string]any{"name": "fig"})
	require.NoError(t, err)
	assert.Equal(t, float64(1), structured(t, res)["affectedRows"])
	assert.Equal(t, 4, myCount(t, db), "the insert committed")
	res, err = call(t, x, "rename", map[string]any{"from": "fig", "to": "fig2"})
	require.NoError(t, err)
	assert.Equal(t, float64(0), structured(t, res)["affectedRows"], "arguments bound in order: SET name = 'fig' WHERE name = 'fig2'")

	// Reading statements run in a read-only transaction: a function that
	// writes is refused by the server.
	def, ok = x.Lookup("sneaky-write", "")
	require.True(t, ok)
	assert.True(t, *def.Annotations.ReadOnlyHint)
	_, err = call(t, x, "sneaky-write", nil)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "READ ONLY")
	assert.Equal(t, 4, myCount(t, db), "nothing was deleted")
}

func TestMySQL_TypesAsJSON(t *testing.T) {
	x, _ := myExecutor(t)
	res, err := call(t, x, "types", nil)
	require.NoError(t, err)
	// MariaDB's JSON is text (LONGTEXT), and stays a string; MySQL's JSON
	// type is its document.
	assert.Equal(t, []string{`{"i":1,"big":9007199254740993,"ubig":18446744073709551615,"d":1.25,"f":1.5,"nul":null,"t":"x","bits":5,` +
		`"day":"2024-04-22T00:00:00Z","ts":"2024-01-02T03:04:05Z","j":"{\"a\": 1}","bin":"3q2+7w=="}`}, texts(t, res))
	res, err = call(t, x, "types-args", map[string]any{"n": 7})
	require.NoError(t, err)
	assert.Equal(t, []string{`{"id":1,"price":1.50,"name":"apple","n":7}`}, texts(t, res))
}

// processes counts the server's threads running a statement with marker.
func processes(t *testing.T, db *sql.DB, marker string) int {
	t.Helper()
	var n int
	require.NoError(t, db.QueryRow(`SELECT count(*) FROM information_schema.PROCESSLIST WHERE INFO LIKE ? AND ID <> CONNECTION_ID()`, "%"+marker+"%").Scan(&n))
	return n
}

func TestMySQL_TimeoutKillsTheQueryOnTheServer(t *testing.T) {
	x, db := myExecutor(t)
	seen := make(chan bool, 1)
	go func() {
		deadline := time.Now().Add(900 * time.Millisecond)
		for time.Now().Before(deadline) {
			var n int
			if db.QueryRow(`SELECT count(*) FROM information_schema.PROCESSLIST WHERE INFO LIKE '%toolexec-sleep-marker%' AND ID <> CONNECTION_ID()`).Scan(&n) == nil && n == 1 {
				seen <- true
				return
			}
			time.Sleep(20 * time.Millisecond)
		}
		seen <- false
	}()
	_, err := call(t, x, "sleepy", nil)
	e, ok := toolexec.AsError(err)
	require.True(t, ok)
	assert.Equal(t, toolexec.CodeTimeout, e.Code)
	require.True(t, <-seen, "the query ran on the server during the call")
	// KILL QUERY reached the server: the thread no longer runs the query
	// (it would for a minute otherwise: a server that sends nothing does
	// not notice that the client closed the connection).
	require.Eventually(t, func() bool { return processes(t, db, "toolexec-sleep-marker") == 0 },
		5*time.Second, 50*time.Millisecond, "the query still runs on the server")
	// The pool is healthy after the kill.
	res, err := call(t, x, "all", nil)
	require.NoError(t, err)
	assert.Len(t, rows(t, res), 3)
}

func TestMySQL_CapCancelsTheQuery(t *testing.T) {
	x, db := myExecutor(t)
	res, err := call(t, x, "endless", nil)
	require.NoError(t, err)
	assert.Len(t, rows(t, res), 10)
	assert.Equal(t, true, structured(t, res)["truncated"])
	require.Eventually(t, func() bool { return processes(t, db, "toolexec-cap-marker") == 0 },
		5*time.Second, 50*time.Millisecond, "the query still runs on the server")
	res, err = call(t, x, "all", nil)
	require.NoError(t, err)
	assert.Len(t, rows(t, res), 3)
}

func TestMySQL_ConnectionErrorsNameNoSecret(t *testing.T) {
	s := mariadb(t)
	dir := t.TempDir()
	path := filepath.Join(dir, "tools.yaml")
	require.NoError(t, os.WriteFile(path, []byte(mySource(s)+myTools), 0o600))
	cfg, err := config.Load(path, func(k string) (string, bool) { return "wrong-password-1234", k == "MYPASSWORD_FOR_TEST" })
	require.NoError(t, err)
	_, err = Build(context.Background(), cfg, nil)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "cannot connect")
	assert.NotContains(t, err.Error(), "wrong-password-1234")
}

// myGeneralLog turns the server's general log on (to a table) for the
// test, and returns a function that reads what user ran since the last
// call of it: each command and its text, in order.
func myGeneralLog(t *testing.T, s *mysqltest.Server, user string) func() [][2]string {
	t.Helper()
	root, err := s.Root()
	require.NoError(t, err)
	t.Cleanup(func() {
		_, _ = root.Exec(`SET GLOBAL general_log = 0`)
		root.Close()
	})
	_, err = root.Exec(`SET GLOBAL log_output = 'TABLE'; SET GLOBAL general_log = 1; TRUNCATE mysql.general_log`)
	require.NoError(t, err)
	return func() [][2]string {
		rs, err := root.Query(`SELECT command_type, CONVERT(argument USING utf8mb4) FROM mysql.general_log WHERE user_host LIKE ? ORDER BY event_time`, user+"[%")
		require.NoError(t, err)
		defer rs.Close()
		var out [][2]string
		for rs.Next() {
			var c [2]string
			require.NoError(t, rs.Scan(&c[0], &c[1]))
			out = append(out, c)
		}
		require.NoError(t, rs.Err())
		_, err = root.Exec(`TRUNCATE mysql.general_log`)
		require.NoError(t, err)
		return out
	}
}

// myUser creates a user of the test database for one test, so that what
// the server's log shows of it is the test's own, and returns the sources
// block for it with one connection.
func myUser(t *testing.T, s *mysqltest.Server, name string) string {
	t.Helper()
	root, err := s.Root()
	require.NoError(t, err)
	defer root.Close()
	_, err = root.Exec(fmt.Sprintf("DROP USER IF EXISTS '%[1]s'@'%%'; CREATE USER '%[1]s'@'%%' IDENTIFIED BY 'pw-%[1]s'; GRANT ALL ON %[2]s.* TO '%[1]s'@'%%'", name, s.Database))
	require.NoError(t, err)
	return mySourceAs(s, name, "pw-"+name, 1)
}

// A MariaDB read is the statement alone, made read-only by itself (SET
// STATEMENT tx_read_only=1 FOR …): no START TRANSACTION READ ONLY before
// it and no ROLLBACK after, two round trips saved per call, as the
// server's general log shows. A write keeps its transaction.
func TestMySQL_AReadIsOneStatement(t *testing.T) {
	s := mariadb(t)
	myExecutor(t) // the tables and functions
	x := executor(build(t, myUser(t, s, "toolexec_rt")+myTools, nil, nil), Options{})
	logged := myGeneralLog(t, s, "toolexec_rt")
	_, err := call(t, x, "all", nil) // the connection is made and asked its id
	require.NoError(t, err)
	logged()

	const n = 5
	for range n {
		res, err := call(t, x, "by-name", map[string]any{"name": "pear"})
		require.NoError(t, err)
		require.Len(t, rows(t, res), 1)
		res, err = call(t, x, "all", nil)
		require.NoError(t, err)
		require.Len(t, rows(t, res), 3)
	}
	commands := map[string]int{}
	for _, c := range logged() {
		switch c[0] {
		case "Query", "Prepare", "Execute":
			commands[c[0]+" "+c[1]]++
		}
	}
	assert.Equal(t, map[string]int{
		"Prepare SET STATEMENT tx_read_only=1 FOR SELECT id, name FROM myitems WHERE name = ?":      n,
		"Execute SET STATEMENT tx_read_only=1 FOR SELECT id, name FROM myitems WHERE name = 'pear'": n,
		"Query SET STATEMENT tx_read_only=1 FOR SELECT id, name FROM myitems ORDER BY id":           n,
	}, commands, "no START TRANSACTION READ ONLY, no ROLLBACK")

	res, err := call(t, x, "add", map[string]any{"name": "fig"})
	require.NoError(t, err)
	require.False(t, res.IsError)
	var queries []string
	for _, c := range logged() {
		if c[0] == "Query" {
			queries = append(queries, c[1])
		}
	}
	assert.Equal(t, []string{"START TRANSACTION", "COMMIT"}, queries, "a write runs in its transaction")
}

// Read-only holds for every read on a connection: a stored function can
// turn the session's own read-only setting off (MariaDB lets it), but each
// read sets it for its statement, so the next read's write is still
// refused; and a write after reads is not read-only.
func TestMySQL_ReadOnlyHoldsForEveryCallOfAConnection(t *testing.T) {
	s := mariadb(t)
	_, db := myExecutor(t)
	_, err := db.Exec(`DROP FUNCTION IF EXISTS myitems_loosen;
CREATE FUNCTION myitems_loosen() RETURNS INT BEGIN SET SESSION TRANSACTION READ WRITE; RETURN @@tx_read_only; END`)
	require.NoError(t, err)
	x := executor(build(t, myUser(t, s, "toolexec_ro")+myTools+`
  loosen:
    kind: mysql-sql
    source: my
    description: turns the session's read-only setting off, in a function
    statement: SELECT myitems_loosen() AS ro
`, nil, nil), Options{})
	for range 3 {
		_, err := call(t, x, "loosen", nil)
		require.NoError(t, err)
		_, err = call(t, x, "sneaky-write", nil)
		require.Error(t, err)
		assert.Contains(t, err.Error(), "READ ONLY")
	}
	assert.Equal(t, 3, myCount(t, db), "nothing was deleted")
	res, err := call(t, x, "add", map[string]any{"name": "fig"})
	require.NoError(t, err)
	require.False(t, res.IsError, res.Text())
	assert.Equal(t, 4, myCount(t, db))
}

// A statement that writes forced to run as reading (what the file cannot
// say) is refused by the server, DDL included: START TRANSACTION READ
// ONLY let CREATE TABLE commit the transaction and run.
func TestMySQL_ReadOnlyHoldsWhenAStatementIsMisread(t *testing.T) {
	s := mariadb(t)
	_, db := myExecutor(t)
	_, err := db.Exec(`DROP TABLE IF EXISTS mymade`)
	require.NoError(t, err)
	for _, stmt := range []string{"CREATE TABLE mymade (a INT)", "DELETE FROM myitems", "UPDATE myitems SET name = 'x'"} {
		body, _ := oneTool(mySource(s), "mysql-sql", "my", "SELECT 1", "")
		require.NoError(t, forcedOrCall(t, body, map[string]string{"MYPASSWORD_FOR_TEST": s.Password}, stmt, nil))
	}
	var n int
	require.NoError(t, db.QueryRow(`SELECT count(*) FROM information_schema.TABLES WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = 'mymade'`).Scan(&n))
	assert.Zero(t, n, "the table was not created")
	require.NoError(t, db.QueryRow(`SELECT count(*) FROM myitems WHERE name = 'x'`).Scan(&n))
	assert.Zero(t, n)
	assert.Equal(t, 3, myCount(t, db))
}

// A text of several statements (a source with multiStatements) is not
// one statement SET STATEMENT could cover: its reads run in START
// TRANSACTION READ ONLY, as on MySQL, and a later statement's write is
// refused there.
func TestMySQL_SeveralStatementsStayInAReadOnlyTransaction(t *testing.T) {
	s := mariadb(t)
	_, db := myExecutor(t)
	sources := strings.Replace(myUser(t, s, "toolexec_multi"), "    maxOpenConns: 1\n", "    maxOpenConns: 1\n    queryParams: {multiStatements: \"true\"}\n", 1)
	x := executor(build(t, sources+`
tools:
  two:
    kind: mysql-sql
    source: my
    description: reads, then calls a function that writes
    statement: SELECT 1 AS one; SELECT myitems_wipe() AS n
`, nil, nil), Options{})
	logged := myGeneralLog(t, s, "toolexec_multi")
	_, _ = call(t, x, "two", nil)
	assert.Equal(t, 3, myCount(t, db), "nothing was deleted")
	var queries []string
	for _, c := range logged() {
		if c[0] == "Query" && !strings.Contains(c[1], "CONNECTION_ID()") {
			queries = append(queries, c[1])
		}
	}
	assert.Equal(t, []string{"START TRANSACTION READ ONLY", "SELECT 1 AS one; SELECT myitems_wipe() AS n", "ROLLBACK"}, queries)
}
