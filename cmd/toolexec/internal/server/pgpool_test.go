package server

import (
	"database/sql"
	"fmt"
	"net"
	"sort"
	"strconv"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolexec/toolexec"
	"github.com/toolexec/toolexec/cmd/toolexec/internal/pgtest"
	"github.com/toolexec/toolexec/cmd/toolexec/internal/sqltool"
)

// pgFreshDatabase creates an empty database of its own for a test, so
// that what the test counts in it (sessions, statements) is its own, and
// returns a connection pool to it.
func pgFreshDatabase(t *testing.T, s *pgtest.Server, name string) *sql.DB {
	t.Helper()
	admin := pgDB(t, s)
	_, err := admin.Exec(`DROP DATABASE IF EXISTS ` + name + ` WITH (FORCE)`)
	require.NoError(t, err)
	_, err = admin.Exec(`CREATE DATABASE ` + name)
	require.NoError(t, err)
	db, err := sql.Open("pgx", fmt.Sprintf("postgres://%s@%s/%s?sslmode=disable", s.User, net.JoinHostPort(s.Host, strconv.Itoa(s.Port)), name))
	require.NoError(t, err)
	t.Cleanup(func() { db.Close() })
	_, err = db.Exec(`CREATE TABLE pgitems (id serial PRIMARY KEY, name text NOT NULL);
INSERT INTO pgitems (name) VALUES ('apple'), ('pear'), ('plum');
CREATE FUNCTION pgitems_wipe() RETURNS bigint LANGUAGE sql AS 'WITH d AS (DELETE FROM pgitems RETURNING 1) SELECT count(*) FROM d';
CREATE FUNCTION pgitems_loosen() RETURNS text LANGUAGE sql AS $$SELECT set_config('default_transaction_read_only', 'off', false)$$;`)
	require.NoError(t, err)
	return db
}

// pgSourceIn is a source for database name at the pool's defaults, with
// extra lines added to it.
func pgSourceIn(s *pgtest.Server, name, extra string) string {
	return fmt.Sprintf(`
sources:
  pg:
    kind: postgres
    host: %s
    port: "%d"
    database: %s
    user: %s
    password: unused
    queryParams: {sslmode: disable}
%s`, s.Host, s.Port, name, s.User, extra)
}

const pgPoolTools = `
tools:
  backend:
    kind: postgres-sql
    source: pg
    description: the session serving the call
    statement: SELECT pg_backend_pid() AS pid
  by-id:
    kind: postgres-sql
    source: pg
    description: by id
    parameters:
      - {name: id, type: integer, description: id}
    statement: SELECT id, name FROM pgitems WHERE id = $1
  add:
    kind: postgres-sql
    source: pg
    description: add
    parameters:
      - {name: name, type: string, description: name}
    statement: INSERT INTO pgitems (name) VALUES ($1)
  loosen:
    kind: postgres-sql
    source: pg
    description: turns the session's read-only default off, for later transactions, in a function whose body the statement does not show
    statement: SELECT pgitems_loosen() AS v
  sneaky-write:
    kind: postgres-sql
    source: pg
    description: reads, as far as its text shows, but its function writes
    statement: SELECT pgitems_wipe() AS n
`

// A pool keeps the connections it opened: more callers at once than it
// keeps idle used to close connections at the end of every burst and
// open (and authenticate) new ones at the next. With the defaults, bursts
// of 16 calls at once are served by the same sessions (backend process
// ids) throughout: at most maxOpenConns of them.
func TestPostgres_PoolKeepsItsConnectionsBetweenBursts(t *testing.T) {
	s := postgres(t)
	pgFreshDatabase(t, s, "pool_bursts")
	x := executor(build(t, pgSourceIn(s, "pool_bursts", "")+pgPoolTools, nil, nil), Options{})
	const bursts, callers = 20, 16
	pids := map[float64]bool{}
	var mu sync.Mutex
	for range bursts {
		var wg sync.WaitGroup
		start := make(chan struct{})
		for range callers {
			wg.Go(func() {
				<-start
				res, err := call(t, x, "backend", nil)
				require.NoError(t, err)
				pid := rows(t, res)[0]["pid"].(float64)
				mu.Lock()
				pids[pid] = true
				mu.Unlock()
			})
		}
		close(start)
		wg.Wait()
	}
	assert.LessOrEqual(t, len(pids), sqltool.DefaultMaxOpenConns,
		"%d calls in bursts of %d were served by %d sessions", bursts*callers, callers, len(pids))
}

// statements returns what the database named ran since the last reset,
// from pg_stat_statements: each statement's text and how many times it
// ran, the test's own reading and resetting left out.
func statements(t *testing.T, db *sql.DB) map[string]int {
	t.Helper()
	rs, err := db.Query(`SELECT query, calls FROM pg_stat_statements
WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database()) AND query NOT LIKE '%pg_stat_statements%'`)
	require.NoError(t, err)
	defer rs.Close()
	out := map[string]int{}
	for rs.Next() {
		var q string
		var n int
		require.NoError(t, rs.Scan(&q, &n))
		out[q] += n
	}
	require.NoError(t, rs.Err())
	return out
}

// A read is one statement on the server: the query, with no BEGIN READ
// ONLY before it and no ROLLBACK after (two round trips each), since the
// read pool's sessions are read-only themselves. A write keeps its
// read-write transaction.
func TestPostgres_AReadIsOneStatement(t *testing.T) {
	s := postgres(t)
	db := pgFreshDatabase(t, s, "round_trips")
	_, err := db.Exec(`CREATE EXTENSION IF NOT EXISTS pg_stat_statements`)
	require.NoError(t, err)
	x := executor(build(t, pgSourceIn(s, "round_trips", "")+pgPoolTools, nil, nil), Options{})
	_, err = db.Exec(`SELECT pg_stat_statements_reset()`)
	require.NoError(t, err)

	const n = 25
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			res, err := call(t, x, "by-id", map[string]any{"id": 1 + i%3})
			require.NoError(t, err)
			require.Len(t, rows(t, res), 1)
		})
	}
	wg.Wait()
	assert.Equal(t, map[string]int{"SELECT id, name FROM pgitems WHERE id = $1": n}, statements(t, db))

	_, err = db.Exec(`SELECT pg_stat_statements_reset()`)
	require.NoError(t, err)
	for i := range 3 {
		res, err := call(t, x, "add", map[string]any{"name": "fig" + strconv.Itoa(i)})
		require.NoError(t, err)
		require.False(t, res.IsError)
	}
	got := statements(t, db)
	keys := make([]string, 0, len(got))
	for k := range got {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	assert.Equal(t, map[string]int{"begin": 3, "INSERT INTO pgitems (name) VALUES ($1)": 3, "commit": 3}, got, "%v", keys)
}

// Read-only is a property of the read pool's sessions, and it holds for
// every call: a statement that turns the session's default off (through
// a function that calls set_config, which a read-only tool may not call
// itself) does not open the session to the next call's writes, which
// PostgreSQL still refuses.
func TestPostgres_ReadOnlyHoldsForEveryCallOfASession(t *testing.T) {
	s := postgres(t)
	db := pgFreshDatabase(t, s, "read_only")
	// One connection: every call runs on the same session, when the
	// session is kept.
	x := executor(build(t, pgSourceIn(s, "read_only", "    maxOpenConns: 1\n")+pgPoolTools, nil, nil), Options{})
	for range 3 {
		res, err := call(t, x, "loosen", nil)
		require.NoError(t, err)
		assert.Equal(t, "off", rows(t, res)[0]["v"])

		_, err = call(t, x, "sneaky-write", nil)
		e, ok := toolexec.AsError(err)
		require.True(t, ok, "%v", err)
		assert.Contains(t, e.Message, "read-only transaction", "PostgreSQL refused the function's write")
	}
	var n int
	require.NoError(t, db.QueryRow(`SELECT count(*) FROM pgitems`).Scan(&n))
	assert.Equal(t, 3, n)
}

// pgSourceVia is pgSourceIn through a pgShim.
func pgSourceVia(s *pgtest.Server, sh *pgShim, name, extra string) string {
	return fmt.Sprintf(`
sources:
  pg:
    kind: postgres
    host: 127.0.0.1
    port: "%d"
    database: %s
    user: %s
    password: unused
    queryParams: {sslmode: disable}
%s`, sh.port(), name, s.User, extra)
}

// Where the sessions cannot be made read-only themselves, on a server that
// does not report the setting (before PostgreSQL 14) or behind a pooler
// that refuses it at start-up, reads run in read-only transactions of
// their own, as before: BEGIN READ ONLY, the query, ROLLBACK; a write
// that a read attempts is still refused by PostgreSQL.
func TestPostgres_ReadsStayReadOnlyWhereSessionsCannotBe(t *testing.T) {
	for _, tc := range []struct {
		name   string
		refuse bool
	}{{"the server does not report the setting", false}, {"a pooler refuses the setting", true}} {
		t.Run(tc.name, func(t *testing.T) {
			s := postgres(t)
			db := pgFreshDatabase(t, s, "fallback")
			_, err := db.Exec(`CREATE EXTENSION IF NOT EXISTS pg_stat_statements`)
			require.NoError(t, err)
			sh := startPGShim(t, s, tc.refuse)
			x := executor(build(t, pgSourceVia(s, sh, "fallback", "    maxOpenConns: 1\n")+pgPoolTools, nil, nil), Options{})
			_, err = db.Exec(`SELECT pg_stat_statements_reset()`)
			require.NoError(t, err)
			for range 4 {
				res, err := call(t, x, "by-id", map[string]any{"id": 2})
				require.NoError(t, err)
				assert.Equal(t, "pear", rows(t, res)[0]["name"])
			}
			assert.Equal(t, map[string]int{"begin read only": 4, "SELECT id, name FROM pgitems WHERE id = $1": 4, "rollback": 4}, statements(t, db))

			_, err = call(t, x, "loosen", nil)
			require.NoError(t, err)
			_, err = call(t, x, "sneaky-write", nil)
			e, ok := toolexec.AsError(err)
			require.True(t, ok, "%v", err)
			assert.Contains(t, e.Message, "read-only transaction")
			var n int
			require.NoError(t, db.QueryRow(`SELECT count(*) FROM pgitems`).Scan(&n))
			assert.Equal(t, 3, n)
		})
	}
}
