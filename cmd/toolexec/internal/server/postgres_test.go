package server

import (
	"context"
	"database/sql"
	"fmt"
	"net"
	"strconv"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/stdlib"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolexec/toolexec"
	"github.com/toolexec/toolexec/cmd/toolexec/internal/pgtest"
)

const pgTools = `
tools:
  by-name:
    kind: postgres-sql
    source: pg
    description: by name
    parameters:
      - {name: name, type: string, description: name}
    statement: SELECT id, name FROM pgitems WHERE name = $1
  by-id:
    kind: postgres-sql
    source: pg
    description: by id
    parameters:
      - {name: id, type: integer, description: id}
    statement: SELECT id, name FROM pgitems WHERE id = $1
  cheaper:
    kind: postgres-sql
    source: pg
    description: cheaper
    parameters:
      - {name: price, type: float, description: price}
    statement: SELECT id FROM pgitems WHERE price <= $1 ORDER BY id
  active:
    kind: postgres-sql
    source: pg
    description: active
    parameters:
      - {name: active, type: boolean, description: active}
    statement: SELECT id FROM pgitems WHERE active = $1 ORDER BY id
  among:
    kind: postgres-sql
    source: pg
    description: among
    parameters:
      - name: names
        type: array
        description: names
        items: {name: n, type: string, description: n}
    statement: SELECT id FROM pgitems WHERE name = ANY($1) ORDER BY id
  among-ids:
    kind: postgres-sql
    source: pg
    description: among ids
    parameters:
      - name: ids
        type: array
        description: ids
        items: {name: n, type: integer, description: n}
    statement: SELECT id FROM pgitems WHERE id = ANY($1) ORDER BY id
  sneaky-write:
    kind: postgres-sql
    source: pg
    description: reads, as far as its text shows, but its function writes
    statement: SELECT pgitems_wipe() AS n
  add:
    kind: postgres-sql
    source: pg
    description: add
    readOnly: false
    parameters:
      - {name: name, type: string, description: name}
    statement: INSERT INTO pgitems (name, price, active) VALUES ($1, 9, true) RETURNING id, name
  sleepy:
    kind: postgres-sql
    source: pg
    description: sleeps
    timeout: 1s
    statement: SELECT pg_sleep(30) AS slept, 'toolexec-sleep-marker' AS marker
`

func pgDB(t testing.TB, s *pgtest.Server) *sql.DB {
	t.Helper()
	db, err := sql.Open("pgx", fmt.Sprintf("postgres://%s@%s/%s?sslmode=disable", s.User, net.JoinHostPort(s.Host, strconv.Itoa(s.Port)), s.Database))
	require.NoError(t, err)
	t.Cleanup(func() { db.Close() })
	return db
}

var _ = stdlib.GetDefaultDriver // registers "pgx"

func pgExecutor(t *testing.T) (*toolexec.Executor, *sql.DB) {
	s := postgres(t)
	db := pgDB(t, s)
	_, err := db.Exec(`DROP TABLE IF EXISTS pgitems; DROP TABLE IF EXISTS pgsecrets;
CREATE TABLE pgitems (id serial PRIMARY KEY, name text NOT NULL, price double precision NOT NULL, active boolean NOT NULL);
INSERT INTO pgitems (name, price, active) VALUES ('apple', 1.5, true), ('pear', 2.25, false), ('plum', 3.0, true);
CREATE TABLE pgsecrets (v text); INSERT INTO pgsecrets VALUES ('top-secret');
CREATE OR REPLACE FUNCTION pgitems_wipe() RETURNS bigint LANGUAGE sql AS 'WITH d AS (DELETE FROM pgitems RETURNING 1) SELECT count(*) FROM d';`)
	require.NoError(t, err)
	set := build(t, pgSource(s)+pgTools, nil, map[string]string{"PGUSER_FOR_TEST": s.User})
	return executor(set, Options{}), db
}

func TestPostgres_ParametersBoundNeverSpliced(t *testing.T) {
	x, db := pgExecutor(t)
	for _, inj := range []string{"' OR '1'='1", "apple'; DELETE FROM pgitems; --", "x' UNION SELECT 1, v FROM pgsecrets --", "$1", "apple\\'"} {
		res, err := call(t, x, "by-name", map[string]any{"name": inj})
		require.NoError(t, err)
		assert.Empty(t, rows(t, res), inj)
		assert.NotContains(t, res.Text(), "top-secret")
		res, err = call(t, x, "among", map[string]any{"names": []string{inj, "pear"}})
		require.NoError(t, err, inj)
		assert.Equal(t, []float64{2}, ids(t, res))
	}
	res, err := call(t, x, "by-id", map[string]any{"id": 3})
	require.NoError(t, err)
	assert.Equal(t, []float64{3}, ids(t, res))
	res, err = call(t, x, "cheaper", map[string]any{"price": 2.25})
	require.NoError(t, err)
	assert.Equal(t, []float64{1, 2}, ids(t, res))
	res, err = call(t, x, "active", map[string]any{"active": true})
	require.NoError(t, err)
	assert.Equal(t, []float64{1, 3}, ids(t, res))
	res, err = call(t, x, "among-ids", map[string]any{"ids": []int{3, 1}})
	require.NoError(t, err)
	assert.Equal(t, []float64{1, 3}, ids(t, res))

	var n int
	require.NoError(t, db.QueryRow(`SELECT count(*) FROM pgitems`).Scan(&n))
	assert.Equal(t, 3, n, "nothing injected ran")
}

func TestPostgres_WrongTypesRefusedBeforeSQL(t *testing.T) {
	x, _ := pgExecutor(t)
	for _, c := range []struct{ tool, args string }{
		{"by-id", `{"id": "1; DROP TABLE pgitems"}`},
		{"cheaper", `{"price": true}`},
		{"active", `{"active": 1}`},
		{"among", `{"names": [{"x": 1}]}`},
		{"add", `{}`},
	} {
		_, err := x.Call(t.Context(), toolexec.CallRequest{Name: c.tool, Arguments: []byte(c.args)})
		e, ok := toolexec.AsError(err)
		require.True(t, ok, "%s %s", c.tool, c.args)
		assert.Equal(t, toolexec.StageValidate, e.Stage)
	}
}

func TestPostgres_ReadOnlyTransaction(t *testing.T) {
	x, db := pgExecutor(t)
	def, ok := x.Lookup("sneaky-write", "")
	require.True(t, ok)
	assert.True(t, *def.Annotations.ReadOnlyHint, "a function call counts as reading")
	_, err := call(t, x, "sneaky-write", nil)
	e, ok := toolexec.AsError(err)
	require.True(t, ok)
	assert.Contains(t, e.Message, "read-only transaction", "the server refused the function's write")
	var n int
	require.NoError(t, db.QueryRow(`SELECT count(*) FROM pgitems`).Scan(&n))
	assert.Equal(t, 3, n)

	res, err := call(t, x, "add", map[string]any{"name": "fig"})
	require.NoError(t, err)
	assert.Equal(t, "fig", rows(t, res)[0]["name"])
	require.NoError(t, db.QueryRow(`SELECT count(*) FROM pgitems`).Scan(&n))
	assert.Equal(t, 4, n, "a tool declared readOnly: false commits")
}

func TestPostgres_TimeoutCancelsOnServer(t *testing.T) {
	x, db := pgExecutor(t)
	const q = `SELECT count(*) FROM pg_stat_activity WHERE state = 'active' AND query LIKE '%toolexec-sleep-marker%' AND pid <> pg_backend_pid()`
	// While the call runs, the server shows the query (so the check below
	// looks at the right thing).
	seen := make(chan bool, 1)
	go func() {
		deadline := time.Now().Add(900 * time.Millisecond)
		for time.Now().Before(deadline) {
			var n int
			if db.QueryRow(q).Scan(&n) == nil && n == 1 {
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

	// The cancel request reached the server: the backend is no longer
	// running the query (it would for 30 s otherwise).
	require.Eventually(t, func() bool {
		var n int
		return db.QueryRowContext(context.Background(), q).Scan(&n) == nil && n == 0
	}, 5*time.Second, 50*time.Millisecond, "the query still runs on the server")
}
