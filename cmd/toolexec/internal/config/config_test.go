package config

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func env(m map[string]string) func(string) (string, bool) {
	return func(k string) (string, bool) { v, ok := m[k]; return v, ok }
}

func parse(t *testing.T, yaml string, e map[string]string) (*Config, Problems) {
	t.Helper()
	cfg, err := Parse([]byte(yaml), "tools.yaml", t.TempDir(), env(e))
	if err == nil {
		return cfg, nil
	}
	var ps Problems
	require.True(t, errors.As(err, &ps), err)
	return nil, ps
}

// mcp-toolbox's documented examples, unchanged.
const toolboxV1 = `
sources:
  my-pg-source:
    kind: postgres
    host: 127.0.0.1
    port: 5432
    database: my_db
    user: ${USER_NAME}
    password: ${PASSWORD}
  my-sqlite-db:
    kind: "sqlite"
    database: "/path/to/database.db"
tools:
  search_flights_by_number:
    kind: postgres-sql
    source: my-pg-source
    statement: |
      SELECT * FROM flights
      WHERE airline = $1
      AND flight_number = $2
      LIMIT 10
    description: |
      Use this tool to get information for a specific flight.
    parameters:
      - name: airline
        type: string
        description: Airline unique 2 letter identifier
      - name: flight_number
        type: string
        description: 1 to 4 digit number
  search-users:
    kind: sqlite-sql
    source: my-sqlite-db
    description: Search users by name and age
    parameters:
      - name: name
        type: string
        description: The name to search for
      - name: min_age
        type: integer
        description: Minimum age
    statement: SELECT * FROM users WHERE name LIKE ? AND age >= ?
  airlines:
    kind: postgres-sql
    source: my-pg-source
    description: preferred airlines
    parameters:
      - name: preferred_airlines
        type: array
        description: A list of airline, ordered by preference.
        items:
          name: name
          type: string
          description: Name of the airline.
    statement: |
      SELECT * FROM airlines WHERE preferred_airlines = ANY($1);
toolsets:
  my_first_toolset:
    - search_flights_by_number
    - search-users
`

func TestParse_MCPToolboxV1Form(t *testing.T) {
	cfg, ps := parse(t, toolboxV1, map[string]string{"USER_NAME": "alice", "PASSWORD": "pw"})
	require.Empty(t, ps)
	pg := cfg.Sources["my-pg-source"]
	assert.Equal(t, KindPostgres, pg.Kind)
	assert.Equal(t, "alice", pg.User)
	assert.Equal(t, "pw", pg.Password)
	assert.Equal(t, "5432", pg.Port)
	require.Len(t, cfg.Tools, 3)
	tl := cfg.Tools[0]
	assert.Equal(t, "search_flights_by_number", tl.Name)
	assert.True(t, tl.ReadOnly, "read-only by default")
	require.Len(t, tl.Parameters, 2)
	assert.True(t, tl.Parameters[0].Required, "required defaults to true")
	assert.Equal(t, TypeString, cfg.Tools[2].Parameters[0].Items.Type)
	assert.Equal(t, []string{"search_flights_by_number", "search-users"}, cfg.Toolsets["my_first_toolset"])
}

func TestParse_MCPToolboxV2Form(t *testing.T) {
	cfg, ps := parse(t, `
kind: sources
name: my-sqlite-db
type: sqlite
database: db.sqlite
---
kind: tools
name: search-users
type: sqlite-sql
source: my-sqlite-db
description: Search users
parameters:
  - name: name
    type: string
    description: The name
    default: bob
statement: SELECT * FROM users WHERE name = ?
---
kind: toolsets
name: set
tools:
  - search-users
`, nil)
	require.Empty(t, ps)
	assert.Equal(t, KindSQLite, cfg.Sources["my-sqlite-db"].Kind)
	require.Len(t, cfg.Tools, 1)
	p := cfg.Tools[0].Parameters[0]
	assert.False(t, p.Required, "a default makes a parameter optional")
	assert.Equal(t, "bob", p.Default)
	assert.Equal(t, []string{"search-users"}, cfg.Toolsets["set"])
	assert.True(t, filepath.IsAbs(cfg.Sources["my-sqlite-db"].Database), "relative to the file's directory")
}

func TestParse_EnvSubstitution(t *testing.T) {
	cfg, ps := parse(t, `
sources:
  db:
    kind: sqlite
    database: ${DB_PATH:/tmp/default.db}
  api:
    kind: http
    baseUrl: https://${API_HOST}
    headers:
      Authorization: "Bearer ${TOKEN}"
tools: {}
`, map[string]string{"API_HOST": "api.example.com", "TOKEN": "line1\nkey: injected"})
	require.Empty(t, ps)
	assert.Equal(t, "/tmp/default.db", cfg.Sources["db"].Database)
	assert.Equal(t, "https://api.example.com", cfg.Sources["api"].BaseURL)
	assert.Equal(t, []string{"api.example.com"}, cfg.Sources["api"].AllowedHosts)
	assert.Equal(t, "Bearer line1\nkey: injected", cfg.Sources["api"].Headers["Authorization"], "a value cannot change the file's structure")
}

func TestParse_EveryProblemWithItsLine(t *testing.T) {
	src := strings.Join([]string{
		/* 1 */ "sources:",
		/* 2 */ "  db:",
		/* 3 */ "    kind: sqlite",
		/* 4 */ "    database: x.db",
		/* 5 */ "    colour: blue",
		/* 6 */ "  pg:",
		/* 7 */ "    kind: postgres",
		/* 8 */ "    host: h",
		/* 9 */ "    user: ${MISSING_USER}",
		/* 10 */ "    database: d",
		/* 11 */ "tools:",
		/* 12 */ "  t1:",
		/* 13 */ "    kind: sqlite-sql",
		/* 14 */ "    source: nowhere",
		/* 15 */ "    description: d",
		/* 16 */ "    statement: SELECT 1",
		/* 17 */ "  t2:",
		/* 18 */ "    kind: sqlite-sql",
		/* 19 */ "    source: db",
		/* 20 */ "    description: d",
		/* 21 */ "    statement: SELECT ?",
		/* 22 */ "    timeout: soon",
		/* 23 */ "    parameters:",
		/* 24 */ "      - name: p",
		/* 25 */ "        type: text",
		/* 26 */ "        description: p",
		/* 27 */ "      - name: q",
		/* 28 */ "        type: integer",
		/* 29 */ "        description: q",
		/* 30 */ "        default: many",
		/* 31 */ "  t3:",
		/* 32 */ "    kind: mysql-sql",
		/* 33 */ "    source: db",
		/* 34 */ "    description: d",
		/* 35 */ "    statement: SELECT 1",
		/* 36 */ "toolsets:",
		/* 37 */ "  s:",
		/* 38 */ "    - t1",
		/* 39 */ "    - ghost",
	}, "\n")
	_, ps := parse(t, src, nil)
	lines := map[int]string{}
	for _, p := range ps {
		lines[p.Line] += p.Message + "; "
	}
	assert.Contains(t, lines[5], `unknown field "colour"`)
	assert.Contains(t, lines[9], "MISSING_USER is not set")
	assert.Contains(t, lines[12], `source "nowhere" is not defined`)
	assert.Contains(t, lines[22], "duration")
	assert.Contains(t, lines[24], `type "text"`)
	assert.Contains(t, lines[30], `"many" is not an integer`)
	assert.Contains(t, lines[31], `"mysql-sql" is not supported`)
	assert.Contains(t, lines[39], `tool "ghost" is not defined`)
	assert.Contains(t, ps.Error(), "tools.yaml:5:5: ")
	for i := 1; i < len(ps); i++ {
		assert.LessOrEqual(t, ps[i-1].Line, ps[i].Line, "problems come in file order")
	}
}

func TestParse_SyntaxErrorHasLine(t *testing.T) {
	_, ps := parse(t, "sources:\n  db:\n    kind: sqlite\n   database: [unclosed\n", nil)
	require.NotEmpty(t, ps)
	assert.Greater(t, ps[0].Line, 0, ps.Error())
}

func TestParse_UnsupportedToolboxFeaturesAreProblems(t *testing.T) {
	_, ps := parse(t, `
sources:
  db: {kind: sqlite, database: x.db}
tools:
  t:
    kind: sqlite-sql
    source: db
    description: d
    statement: SELECT * FROM {{.table}}
    templateParameters:
      - {name: table, type: string, description: t}
    authRequired: [google]
`, nil)
	msgs := ps.Error()
	assert.Contains(t, msgs, "templateParameters is not supported")
	assert.Contains(t, msgs, "authRequired is not supported")
}

func TestParse_HTTPAllowList(t *testing.T) {
	_, ps := parse(t, `
sources:
  api: {kind: http, baseUrl: "https://api.example.com", allowedHosts: [other.example.com]}
tools: {}
`, nil)
	assert.Contains(t, ps.Error(), "not in allowedHosts")
}

func TestLoad_MissingFileAndInit(t *testing.T) {
	_, err := Load(filepath.Join(t.TempDir(), "nope.yaml"), nil)
	require.Error(t, err)
	dir := t.TempDir()
	path := filepath.Join(dir, "tools.yaml")
	require.NoError(t, os.WriteFile(path, []byte("sources:\n  db:\n    kind: sqlite\n    database: x.db\n    init: missing.sql\n"), 0o600))
	_, err = Load(path, nil)
	assert.ErrorContains(t, err, "init script")
}

func TestPlaceholders(t *testing.T) {
	for sql, want := range map[string][2]int{
		"SELECT * FROM t WHERE a = ? AND b = ?":               {2, 0},
		"SELECT '?', \"?\" FROM t WHERE a = ? -- ? \n AND 1":  {1, 0},
		"SELECT * FROM t WHERE a = $1 AND b = $3 /* $9 */":    {0, 3},
		"SELECT x$1 FROM t WHERE a = ?2":                      {0, 2},
		"SELECT json_each(?) FROM t WHERE a LIKE '%' || ? ||": {2, 0},
	} {
		q, d := placeholders(sql)
		assert.Equal(t, want, [2]int{q, d}, sql)
	}
	_, ps := parse(t, `
sources:
  db: {kind: sqlite, database: x.db}
tools:
  t: {kind: sqlite-sql, source: db, description: d, statement: "SELECT ? , ?"}
`, nil)
	assert.Contains(t, ps.Error(), "2 ? placeholders but declares 0 parameters")
}
