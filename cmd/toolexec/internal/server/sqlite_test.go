package server

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolexec/toolexec"
	"github.com/toolexec/toolexec/cmd/toolexec/internal/config"
	"github.com/toolexec/toolexec/cmd/toolexec/internal/sqlstmt"
)

const sqliteSchema = `
CREATE TABLE items (id INTEGER PRIMARY KEY, name TEXT NOT NULL, price REAL NOT NULL, active INTEGER NOT NULL, tags TEXT NOT NULL DEFAULT '[]');
INSERT INTO items (id, name, price, active) VALUES (1, 'apple', 1.5, 1), (2, 'pear', 2.25, 0), (3, 'plum', 3.0, 1);
CREATE TABLE secrets (v TEXT);
INSERT INTO secrets VALUES ('top-secret');
`

const sqliteTools = `
sources:
  db:
    kind: sqlite
    database: test.db
    init: schema.sql
tools:
  by-name:
    kind: sqlite-sql
    source: db
    description: by name
    parameters:
      - {name: name, type: string, description: the name}
    statement: SELECT id, name FROM items WHERE name = ?
  by-id:
    kind: sqlite-sql
    source: db
    description: by id
    parameters:
      - {name: id, type: integer, description: the id}
    statement: SELECT id, name FROM items WHERE id = ?
  cheaper:
    kind: sqlite-sql
    source: db
    description: cheaper than
    parameters:
      - {name: price, type: float, description: max price}
    statement: SELECT id FROM items WHERE price <= ? ORDER BY id
  active:
    kind: sqlite-sql
    source: db
    description: active or not
    parameters:
      - {name: active, type: boolean, description: active}
    statement: SELECT id FROM items WHERE active = ? ORDER BY id
  among:
    kind: sqlite-sql
    source: db
    description: names among
    parameters:
      - name: names
        type: array
        description: names
        items: {name: n, type: string, description: a name}
    statement: SELECT id FROM items WHERE name IN (SELECT value FROM json_each(?)) ORDER BY id
  echo-map:
    kind: sqlite-sql
    source: db
    description: echo a map
    parameters:
      - {name: m, type: map, description: a map}
    statement: SELECT json_extract(?, '$.k') AS k
  numbered:
    kind: sqlite-sql
    source: db
    description: dollar placeholders
    parameters:
      - {name: a, type: integer, description: a}
      - {name: b, type: string, description: b, default: plum}
    statement: SELECT id FROM items WHERE id >= $1 AND name <> $2 ORDER BY id
  all:
    kind: sqlite-sql
    source: db
    description: all rows
    statement: SELECT id, name FROM items ORDER BY id
    maxRows: 2
  big:
    kind: sqlite-sql
    source: db
    description: big rows
    statement: SELECT id, printf('%.500c', 'x') AS pad FROM items ORDER BY id
    maxBytes: 1200
  add:
    kind: sqlite-sql
    source: db
    description: add an item
    readOnly: false
    parameters:
      - {name: name, type: string, description: name}
    statement: INSERT INTO items (name, price, active) VALUES (?, 9, 1) RETURNING id, name
`

func sqliteExecutor(t testing.TB) *toolexec.Executor {
	set := build(t, sqliteTools, map[string]string{"schema.sql": sqliteSchema}, nil)
	return executor(set, Options{})
}

func ids(t testing.TB, res *toolexec.CallToolResult) []float64 {
	t.Helper()
	var out []float64
	for _, r := range rows(t, res) {
		switch v := r["id"].(type) {
		case int64:
			out = append(out, float64(v))
		case float64:
			out = append(out, v)
		default:
			t.Fatalf("id %T", v)
		}
	}
	return out
}

func TestSQLite_ParametersBoundNeverSpliced(t *testing.T) {
	x := sqliteExecutor(t)
	injections := []string{
		"' OR '1'='1",
		"apple'; DELETE FROM items; --",
		"apple\" OR 1=1 --",
		"x' UNION SELECT v, v FROM secrets --",
		"?", "$1", "%", "\x00",
	}
	for _, inj := range injections {
		res, err := call(t, x, "by-name", map[string]any{"name": inj})
		require.NoError(t, err)
		assert.Empty(t, rows(t, res), "string %q matched rows: it was spliced", inj)
		assert.NotContains(t, res.Text(), "top-secret")

		res, err = call(t, x, "among", map[string]any{"names": []string{inj, "apple"}})
		require.NoError(t, err, inj)
		assert.Equal(t, []float64{1}, ids(t, res), "array items are values, not SQL")

		res, err = call(t, x, "echo-map", map[string]any{"m": map[string]any{"k": inj}})
		require.NoError(t, err)
		assert.Equal(t, inj, rows(t, res)[0]["k"], "map values are bound as JSON text")
	}
	// The table is intact: nothing injected ran.
	res, err := call(t, x, "all", nil)
	require.NoError(t, err)
	assert.Equal(t, []float64{1, 2}, ids(t, res))

	// Numbers and booleans: only the typed value reaches the database.
	res, err = call(t, x, "by-id", map[string]any{"id": 2})
	require.NoError(t, err)
	assert.Equal(t, []float64{2}, ids(t, res))
	res, err = call(t, x, "cheaper", map[string]any{"price": 2.25})
	require.NoError(t, err)
	assert.Equal(t, []float64{1, 2}, ids(t, res))
	res, err = call(t, x, "active", map[string]any{"active": false})
	require.NoError(t, err)
	assert.Equal(t, []float64{2}, ids(t, res))
	res, err = call(t, x, "numbered", map[string]any{"a": 1})
	require.NoError(t, err)
	assert.Equal(t, []float64{1, 2}, ids(t, res), "$1/$2 placeholders bind in order; the default fills b")
}

func TestSQLite_WrongTypesRefusedBeforeSQL(t *testing.T) {
	x := sqliteExecutor(t)
	cases := []struct {
		tool string
		args string
	}{
		{"by-id", `{"id": "1 OR 1=1"}`},
		{"by-id", `{"id": 1.5}`},
		{"by-id", `{}`},
		{"cheaper", `{"price": "0 OR 1=1"}`},
		{"active", `{"active": "true"}`},
		{"among", `{"names": "apple"}`},
		{"among", `{"names": [1, 2]}`},
		{"echo-map", `{"m": [1]}`},
		{"by-name", `{"name": "apple", "extra": "x"}`},
		{"add", `{"name": 7}`},
	}
	for _, c := range cases {
		_, err := x.Call(t.Context(), toolexec.CallRequest{Name: c.tool, Arguments: json.RawMessage(c.args)})
		e, ok := toolexec.AsError(err)
		require.True(t, ok, "%s %s must be refused", c.tool, c.args)
		assert.Equal(t, toolexec.StageValidate, e.Stage, "%s %s: refused by schema validation, before the handler", c.tool, c.args)
		assert.Equal(t, toolexec.CodeInvalidArguments, e.Code)
	}
	// The refused "add" never ran.
	res, err := call(t, x, "by-name", map[string]any{"name": "7"})
	require.NoError(t, err)
	assert.Empty(t, rows(t, res))
}

func TestSQLite_RowAndByteCaps(t *testing.T) {
	x := sqliteExecutor(t)
	res, err := call(t, x, "all", nil)
	require.NoError(t, err)
	sc := res.StructuredContent.(map[string]any)
	assert.Len(t, sc["rows"], 2)
	assert.Equal(t, true, sc["truncated"])
	assert.Contains(t, sc["message"], "more than 2 rows")
	tx := texts(t, res)
	require.Len(t, tx, 3, "one text block per row, then the notice")
	assert.Equal(t, `{"id":1,"name":"apple"}`, tx[0])
	assert.Equal(t, "[truncated: more than 2 rows; only the first 2 are returned]", tx[2])

	res, err = call(t, x, "big", nil)
	require.NoError(t, err)
	sc = res.StructuredContent.(map[string]any)
	assert.Equal(t, true, sc["truncated"])
	assert.Len(t, sc["rows"], 2, "two 500-byte rows fit in 1200 bytes, three do not")
	assert.LessOrEqual(t, len(res.Text()), 1200+200)
	assert.Contains(t, sc["message"], "exceed 1200 bytes")
	tx = texts(t, res)
	require.Len(t, tx, 3)
	for _, c := range tx[:2] {
		var decoded map[string]any
		require.NoError(t, json.Unmarshal([]byte(c), &decoded), "each row's text is JSON")
	}
}

func TestSQLite_WritesCommitAndReadsStayReadOnly(t *testing.T) {
	x := sqliteExecutor(t)
	res, err := call(t, x, "add", map[string]any{"name": "fig"})
	require.NoError(t, err)
	assert.Equal(t, "fig", rows(t, res)[0]["name"], "a tool declared readOnly: false writes")
	res, err = call(t, x, "by-name", map[string]any{"name": "fig"})
	require.NoError(t, err)
	assert.Len(t, rows(t, res), 1)
}

// TestSQLite_ReadOnlyHoldsWhenAStatementIsMisread runs writing statements
// as if the classifier had read them as reading: the read-only connection
// (file) and query_only (:memory:) still refuse them.
func TestSQLite_ReadOnlyHoldsWhenAStatementIsMisread(t *testing.T) {
	misread := func(cfg *config.Config) {
		for _, tl := range cfg.Tools {
			if tl.Name == "wipe" {
				tl.ReadOnly, tl.Class = true, sqlstmt.Class{Effect: sqlstmt.Reads, Rows: true}
			}
		}
	}
	for _, db := range []string{"test.db", ":memory:"} {
		set := buildWithConfig(t, fmt.Sprintf(`
sources:
  db: {kind: sqlite, database: %q, init: schema.sql}
tools:
  count: {kind: sqlite-sql, source: db, description: count, statement: "SELECT count(*) AS n FROM items"}
  wipe: {kind: sqlite-sql, source: db, description: wipe, statement: "DELETE FROM items"}
`, db), map[string]string{"schema.sql": sqliteSchema}, misread)
		x := executor(set, Options{})
		res, err := call(t, x, "wipe", nil)
		if err == nil {
			assert.True(t, res.IsError, res.Text())
		} else {
			assert.Contains(t, err.Error(), "readonly", db)
		}
		res, err = call(t, x, "count", nil)
		require.NoError(t, err)
		assert.EqualValues(t, 3, rows(t, res)[0]["n"], db)
	}
}

func TestSQLite_Annotations(t *testing.T) {
	x := sqliteExecutor(t)
	ro, ok := x.Lookup("by-id", "")
	require.True(t, ok)
	assert.Equal(t, true, *ro.Annotations.ReadOnlyHint)
	assert.Nil(t, ro.Annotations.DestructiveHint)
	w, ok := x.Lookup("add", "")
	require.True(t, ok)
	assert.Equal(t, false, *w.Annotations.ReadOnlyHint)
	assert.Equal(t, true, *w.Annotations.DestructiveHint)
	assert.JSONEq(t, `{"type":"object","additionalProperties":false,"required":["id"],"properties":{"id":{"type":"integer","description":"the id"}}}`, string(ro.InputSchema))
	n, _ := x.Lookup("numbered", "")
	assert.JSONEq(t, `{"type":"object","additionalProperties":false,"required":["a"],"properties":{"a":{"type":"integer","description":"a"},"b":{"type":"string","description":"b","default":"plum"}}}`, string(n.InputSchema))
}

func TestSQLite_ErrorsNameTheQueryNotTheMachine(t *testing.T) {
	set := build(t, `
sources:
  db: {kind: sqlite, database: x.db, init: schema.sql}
tools:
  bad: {kind: sqlite-sql, source: db, description: bad, statement: "SELECT nope FROM items"}
`, map[string]string{"schema.sql": sqliteSchema}, nil)
	x := executor(set, Options{})
	_, err := call(t, x, "bad", nil)
	e, ok := toolexec.AsError(err)
	require.True(t, ok)
	assert.Equal(t, toolexec.StageExecute, e.Stage)
	res := e.Result()
	assert.Contains(t, res.Text(), "no such column")
	assert.False(t, strings.Contains(res.Text(), t.TempDir()[:5]+"/"), fmt.Sprint("no paths: ", res.Text()))
}

func TestSQLite_ToolOptionsFromExtensions(t *testing.T) {
	set := build(t, `
sources:
  mem: {kind: sqlite, database: ":memory:"}
tools:
  t:
    kind: sqlite-sql
    source: mem
    description: d
    statement: SELECT 1 AS one
    timeout: 2s
    maxConcurrency: 3
    cache: true
    cacheTTL: 1m
`, nil, nil)
	tl, ok := set.Lookup("", "t")
	require.True(t, ok)
	assert.Equal(t, 2*time.Second, tl.Options.Timeout)
	require.NotNil(t, tl.Options.ConcurrencyLimit)
	assert.Equal(t, 3, tl.Options.ConcurrencyLimit.Max)
	assert.True(t, tl.Options.Cache)
	assert.True(t, tl.Options.CacheShared, "a SQL tool's answer never depends on who called")
	assert.Equal(t, time.Minute, tl.Options.CacheTTL)
}
