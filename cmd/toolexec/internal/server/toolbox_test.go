package server

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolexec/toolexec/cmd/toolexec/internal/config"
)

// hotelsServer serves mcp-toolbox's hotels quickstart (testdata/hotels)
// over HTTP: file is postgres.yaml or sqlite.yaml.
func hotelsServer(t *testing.T, file string, env map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for _, name := range []string{file, "sqlite.sql"} {
		b, err := os.ReadFile(filepath.Join("testdata", "hotels", name))
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(filepath.Join(dir, name), b, 0o600))
	}
	cfg, err := config.Load(filepath.Join(dir, file), func(k string) (string, bool) { v, ok := env[k]; return v, ok })
	require.NoError(t, err, "the quickstart file is valid as it is")
	set, err := Build(context.Background(), cfg, nil)
	require.NoError(t, err)
	t.Cleanup(func() { _ = set.Close() })
	h, _ := Handler(NewProvider(set), Options{})
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv.URL
}

// postJSON posts body to url and decodes the JSON answer.
func postJSON(t *testing.T, url, body string) (int, map[string]any) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	var m map[string]any
	require.NoError(t, json.Unmarshal(b, &m), string(b))
	return resp.StatusCode, m
}

// mcpToolCall calls a tool over MCP and returns the result object.
func mcpToolCall(t *testing.T, base, name, args string) map[string]any {
	t.Helper()
	_, body := postJSON(t, base+"/mcp", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"`+name+`","arguments":`+args+`}}`)
	res, ok := body["result"].(map[string]any)
	require.True(t, ok, "%v", body)
	return res
}

// contentTexts returns the texts of an MCP result's content.
func contentTexts(res map[string]any) []string {
	out := []string{}
	for _, c := range res["content"].([]any) {
		out = append(out, c.(map[string]any)["text"].(string))
	}
	return out
}

func checkHotelsQuickstart(t *testing.T, base string, booked func(id int) string) {
	// Announced as what they do: the searches read, the others write.
	_, body := postJSON(t, base+"/mcp", `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)
	hints := map[string]map[string]any{}
	for _, tl := range body["result"].(map[string]any)["tools"].([]any) {
		m := tl.(map[string]any)
		hints[m["name"].(string)] = m["annotations"].(map[string]any)
	}
	require.Len(t, hints, 5)
	assert.Equal(t, true, hints["search-hotels-by-name"]["readOnlyHint"])
	for _, w := range []string{"book-hotel", "update-hotel", "cancel-hotel"} {
		assert.Equal(t, false, hints[w]["readOnlyHint"], w)
		assert.Equal(t, true, hints[w]["destructiveHint"], w)
	}

	// A search answers one text block per row, each the row's JSON
	// object, as mcp-toolbox does.
	res := mcpToolCall(t, base, "search-hotels-by-name", `{"name":"Basel"}`)
	assert.Equal(t, false, res["isError"])
	tx := contentTexts(res)
	require.Len(t, tx, 3)
	var row map[string]any
	require.NoError(t, json.Unmarshal([]byte(tx[0]), &row))
	assert.Equal(t, "Hilton Basel", row["name"])
	assert.True(t, strings.HasPrefix(tx[0], `{"id":1,"name":"Hilton Basel","location":"Basel","price_tier":"Luxury","checkin_date":"2024-04-22`), tx[0])
	assert.Empty(t, contentTexts(mcpToolCall(t, base, "search-hotels-by-name", `{"name":"Atlantis"}`)), "no row, no text block")

	// The writes work over every surface and report what they changed.
	res = mcpToolCall(t, base, "book-hotel", `{"hotel_id":"1"}`)
	require.Equal(t, false, res["isError"], res)
	assert.Empty(t, contentTexts(res), "mcp-toolbox answers an UPDATE with no content")
	assert.Equal(t, float64(1), res["structuredContent"].(map[string]any)["affectedRows"])
	assert.Equal(t, "1", booked(1))

	code, body := postJSON(t, base+"/api/tools/update-hotel/call", `{"hotel_id":"2","checkin_date":"2024-05-01","checkout_date":"2024-05-05"}`)
	require.Equal(t, http.StatusOK, code, body)
	assert.Equal(t, float64(1), body["structuredContent"].(map[string]any)["affectedRows"])

	code, body = postJSON(t, base+"/oxp/tools/call", `{"tool_id":"Tools.cancel-hotel","input":{"hotel_id":"1"}}`)
	require.Equal(t, http.StatusOK, code, body)
	assert.Equal(t, true, body["success"], body)
	assert.Equal(t, "0", booked(1))

	res = mcpToolCall(t, base, "search-hotels-by-location", `{"location":"Zurich"}`)
	found := false
	for _, s := range contentTexts(res) {
		if strings.Contains(s, `"id":2,`) {
			found = true
			assert.Contains(t, s, `"checkin_date":"2024-05-01`, "the update was committed")
		}
	}
	assert.True(t, found)

	res = mcpToolCall(t, base, "book-hotel", `{"hotel_id":"999"}`)
	assert.Equal(t, false, res["isError"])
	assert.Equal(t, float64(0), res["structuredContent"].(map[string]any)["affectedRows"], "no such hotel: no row changed")
}

func TestHotelsQuickstart_Postgres(t *testing.T) {
	s := postgres(t)
	db := pgDB(t, s)
	schema, err := os.ReadFile(filepath.Join("testdata", "hotels", "postgres.sql"))
	require.NoError(t, err)
	_, err = db.Exec(string(schema))
	require.NoError(t, err)
	base := hotelsServer(t, "postgres.yaml", map[string]string{
		"HOTELS_HOST": s.Host, "HOTELS_PORT": strconv.Itoa(s.Port), "HOTELS_DATABASE": s.Database, "HOTELS_USER": s.User,
	})
	checkHotelsQuickstart(t, base, func(id int) string {
		var b string
		require.NoError(t, db.QueryRow(`SELECT booked::text FROM hotels WHERE id = $1`, id).Scan(&b))
		return b
	})
	// A BIT column is its bits as text, not pgx's struct (mcp-toolbox
	// answers {"Bytes":"gA==","Len":1,"Valid":true}).
	res := mcpToolCall(t, base, "search-hotels-by-name", `{"name":"Hilton"}`)
	assert.Contains(t, contentTexts(res)[0], `"booked":"0"`)
}

func TestHotelsQuickstart_SQLite(t *testing.T) {
	base := hotelsServer(t, "sqlite.yaml", nil)
	checkHotelsQuickstart(t, base, func(id int) string {
		res := mcpToolCall(t, base, "search-hotels-by-name", `{"name":""}`)
		for _, s := range contentTexts(res) {
			var row map[string]any
			require.NoError(t, json.Unmarshal([]byte(s), &row))
			if row["id"] == float64(id) {
				return strconv.Itoa(int(row["booked"].(float64)))
			}
		}
		return ""
	})
}

const pgCapTools = `
tools:
  endless:
    kind: postgres-sql
    source: pg
    description: a hundred million rows
    maxRows: 10
    timeout: 10s
    statement: SELECT generate_series(1, 100000000) AS g, 'toolexec-cap-marker' AS marker
  heavy:
    kind: postgres-sql
    source: pg
    description: wide rows
    maxBytes: 1000
    timeout: 10s
    statement: SELECT generate_series(1, 100000000) AS g, repeat('x', 400) AS pad, 'toolexec-cap-marker' AS marker
  add-many:
    kind: postgres-sql
    source: pg
    description: inserts five rows, returns them
    maxRows: 2
    statement: INSERT INTO capped (n) SELECT g FROM generate_series(1, 5) g RETURNING n
`

// TestPostgres_CapCancelsTheQuery: a read cut at maxRows or maxBytes is
// cancelled on the server, not read to its end (a hundred million rows
// would outlast the tool's timeout), and a write cut at maxRows still
// commits whole. (The series is in the select list, where PostgreSQL
// streams it; in FROM it is computed whole before the first row.)
func TestPostgres_CapCancelsTheQuery(t *testing.T) {
	s := postgres(t)
	db := pgDB(t, s)
	_, err := db.Exec(`DROP TABLE IF EXISTS capped; CREATE TABLE capped (n int)`)
	require.NoError(t, err)
	set := build(t, pgSource(s)+pgCapTools, nil, map[string]string{"PGUSER_FOR_TEST": s.User})
	x := executor(set, Options{})
	const active = `SELECT count(*) FROM pg_stat_activity WHERE state = 'active' AND query LIKE '%toolexec-cap-marker%' AND pid <> pg_backend_pid()`
	for _, name := range []string{"endless", "heavy"} {
		res, err := call(t, x, name, nil)
		require.NoError(t, err, name)
		sc := structured(t, res)
		assert.Equal(t, true, sc["truncated"], name)
		var n int
		require.NoError(t, db.QueryRow(active).Scan(&n))
		assert.Zero(t, n, "%s: the query no longer runs on the server", name)
	}
	res, err := call(t, x, "endless", nil)
	require.NoError(t, err)
	assert.Len(t, rows(t, res), 10)

	res, err = call(t, x, "add-many", nil)
	require.NoError(t, err)
	assert.Len(t, rows(t, res), 2)
	var n int
	require.NoError(t, db.QueryRow(`SELECT count(*) FROM capped`).Scan(&n))
	assert.Equal(t, 5, n, "the write ran to its end and committed")
}

const argTools = `
sources:
  db: {kind: sqlite, database: test.db, init: schema.sql}
tools:
  by-id:
    kind: sqlite-sql
    source: db
    description: by id
    parameters: [{name: id, type: integer, description: id}]
    statement: SELECT id, name FROM items WHERE id = ?
  by-pattern:
    kind: sqlite-sql
    source: db
    description: names matching an allowed pattern
    parameters: [{name: name, type: string, description: name, allowedValues: ["p[a-z]+", apple]}]
    statement: SELECT id FROM items WHERE name = ?
  not-these:
    kind: sqlite-sql
    source: db
    description: names but some
    parameters: [{name: name, type: string, description: name, excludedValues: ["sec.*", apple]}]
    statement: SELECT id FROM items WHERE name = ?
  pick:
    kind: sqlite-sql
    source: db
    description: a column of a table
    templateParameters:
      - {name: table, type: string, description: table, allowedValues: [items, "item[s]?"]}
      - {name: columns, type: array, description: columns, items: {name: c, type: string, description: c, allowedValues: [id, name, "na` + "`" + `me"]}}
      - {name: n, type: integer, description: limit, minValue: 1, maxValue: 10}
    statement: SELECT {{array .columns}} FROM {{.table}} ORDER BY 1 LIMIT {{.n}}
`

// TestArguments_InvalidIsTheSameEverywhere: an integer beyond 64 bits,
// a value outside allowedValues' patterns, and a template parameter
// outside its allowed names are invalid arguments like any other: REST
// 422, an MCP isError result, OXP 422, and no SQL runs.
func TestArguments_InvalidIsTheSameEverywhere(t *testing.T) {
	set := build(t, argTools, map[string]string{"schema.sql": sqliteSchema}, nil)
	h, _ := Handler(NewProvider(set), Options{})
	srv := httptest.NewServer(h)
	defer srv.Close()
	for _, c := range []struct{ tool, args string }{
		{"by-id", `{"id": 99999999999999999999}`},
		{"by-id", `{"id": 9223372036854775808}`},
		{"by-id", `{"id": -9223372036854775809}`},
		{"by-pattern", `{"name": "banana"}`},
		{"by-pattern", `{"name": "pear; DROP TABLE items"}`},
		{"by-pattern", `{"name": "apples"}`},
		{"not-these", `{"name": "secrets"}`},
		{"not-these", `{"name": "apple"}`},
		{"pick", `{"table": "secrets", "columns": ["id"], "n": 1}`},
		{"pick", `{"table": "items\" UNION SELECT v FROM secrets --", "columns": ["id"], "n": 1}`},
		{"pick", `{"table": "items", "columns": ["v"], "n": 1}`},
		{"pick", `{"table": "items", "columns": ["id"], "n": 11}`},
	} {
		code, body := postJSON(t, srv.URL+"/api/tools/"+c.tool+"/call", c.args)
		assert.Equal(t, http.StatusUnprocessableEntity, code, "REST %s %s: %v", c.tool, c.args, body)
		res := mcpToolCall(t, srv.URL, c.tool, c.args)
		assert.Equal(t, true, res["isError"], "MCP %s %s", c.tool, c.args)
		code, body = postJSON(t, srv.URL+"/oxp/tools/call", `{"tool_id":"Tools.`+c.tool+`","input":`+c.args+`}`)
		assert.Equal(t, http.StatusUnprocessableEntity, code, "OXP %s %s: %v", c.tool, c.args, body)
	}
	code, body := postJSON(t, srv.URL+"/api/tools/by-id/call", `{"id": 9223372036854775807}`)
	assert.Equal(t, http.StatusOK, code, "the largest 64-bit integer is valid: %v", body)
	code, body = postJSON(t, srv.URL+"/api/tools/not-these/call", `{"name": "pear"}`)
	require.Equal(t, http.StatusOK, code, body)
	code, body = postJSON(t, srv.URL+"/api/tools/by-pattern/call", `{"name": "plum"}`)
	require.Equal(t, http.StatusOK, code, body)
	assert.Equal(t, float64(1), body["structuredContent"].(map[string]any)["rowCount"])
}

func TestTemplateParameters_SplicedAsQuotedIdentifiers(t *testing.T) {
	set := build(t, argTools, map[string]string{"schema.sql": sqliteSchema}, nil)
	x := executor(set, Options{})
	res, err := call(t, x, "pick", map[string]any{"table": "items", "columns": []string{"id", "name"}, "n": 2})
	require.NoError(t, err)
	assert.Equal(t, []string{`{"id":1,"name":"apple"}`, `{"id":2,"name":"pear"}`}, texts(t, res))
	// An allowed name holding the quote is quoted with it doubled: it
	// names a column that does not exist, and nothing else runs.
	_, err = call(t, x, "pick", map[string]any{"table": "items", "columns": []string{"na`me"}, "n": 1})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "no such column: na`me")
	def, ok := x.Lookup("pick", "")
	require.True(t, ok)
	assert.Contains(t, string(def.InputSchema), `"pattern":"^(?:items|(?:item[s]?))$"`)
}

// TestPostgres_RowsAsToolboxWritesThem compares a row of every common type
// with what mcp-toolbox 1.12.0 answered for the same statement (recorded
// against the same PostgreSQL): the same JSON but for bit strings and
// intervals, which toolbox prints as pgx's internal structs
// ({"Bytes":"oA==","Len":3,"Valid":true}, {"Microseconds":0,"Days":1,
// "Months":0,"Valid":true}) and toolexec as PostgreSQL's text.
func TestPostgres_RowsAsToolboxWritesThem(t *testing.T) {
	s := postgres(t)
	set := build(t, pgSource(s)+`
tools:
  types:
    kind: postgres-sql
    source: pg
    description: one of each type
    statement: >-
      SELECT 1::int AS i, 9007199254740993::bigint AS big, 1.5::float8 AS f, 1.25::numeric AS n, true AS b,
      NULL AS nul, 'x'::text AS t, '2024-04-22'::date AS d, '2024-01-02 03:04:05+00'::timestamptz AS ts,
      B'101' AS bits, '\xdeadbeef'::bytea AS by, '{"a":1}'::jsonb AS j, ARRAY[1,2] AS arr,
      'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'::uuid AS u, interval '1 day' AS iv,
      ARRAY['a b', NULL] AS words, '{"big": 12345678901234567890}'::json AS jbig
`, nil, map[string]string{"PGUSER_FOR_TEST": s.User})
	x := executor(set, Options{})
	res, err := call(t, x, "types", nil)
	require.NoError(t, err)
	assert.Equal(t, []string{`{"i":1,"big":9007199254740993,"f":1.5,"n":1.25,"b":true,"nul":null,"t":"x",` +
		`"d":"2024-04-22T00:00:00Z","ts":"2024-01-02T03:04:05Z","bits":"101","by":"3q2+7w==","j":{"a":1},"arr":[1,2],` +
		`"u":"a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11","iv":"1 day","words":["a b",null],"jbig":{"big":12345678901234567890}}`}, texts(t, res))
}

// TestAnnotations_TheFileWins: a tool's annotations block (toolbox's
// field) is announced as it says, on SQL and HTTP tools alike, over what
// the kind would announce.
func TestAnnotations_TheFileWins(t *testing.T) {
	set := build(t, `
sources:
  db: {kind: sqlite, database: test.db, init: schema.sql}
  api: {kind: http, baseUrl: "http://127.0.0.1:9"}
tools:
  search:
    kind: sqlite-sql
    source: db
    description: d
    statement: SELECT id FROM items
    annotations: {idempotentHint: true, openWorldHint: true}
  add:
    kind: sqlite-sql
    source: db
    description: d
    statement: INSERT INTO items (name, price, active) VALUES ('x', 1, 1)
    annotations: {destructiveHint: false, idempotentHint: false}
  lookup:
    kind: http
    source: api
    method: POST
    path: /lookup
    description: a POST that only reads
    annotations: {readOnlyHint: true, openWorldHint: false, idempotentHint: true}
  push:
    kind: http
    source: api
    method: POST
    path: /push
    description: d
    annotations: {destructiveHint: false}
`, map[string]string{"schema.sql": sqliteSchema}, nil)
	x := executor(set, Options{})
	ann := func(name string) map[string]any {
		def, ok := x.Lookup(name, "")
		require.True(t, ok, name)
		b, err := json.Marshal(def.Annotations)
		require.NoError(t, err)
		var m map[string]any
		require.NoError(t, json.Unmarshal(b, &m))
		return m
	}
	assert.Equal(t, map[string]any{"readOnlyHint": true, "idempotentHint": true, "openWorldHint": true}, ann("search"))
	assert.Equal(t, map[string]any{"readOnlyHint": false, "destructiveHint": false, "idempotentHint": false, "openWorldHint": false}, ann("add"))
	assert.Equal(t, map[string]any{"readOnlyHint": true, "idempotentHint": true, "openWorldHint": false}, ann("lookup"))
	assert.Equal(t, map[string]any{"readOnlyHint": false, "destructiveHint": false, "openWorldHint": true}, ann("push"))
}
