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
		/* 32 */ "    kind: spanner-sql",
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
	assert.Contains(t, lines[14], `source "nowhere" is not defined`, "at the source field, not the tool's name")
	assert.Contains(t, lines[22], "duration")
	assert.Contains(t, lines[24], `type "text"`)
	assert.Contains(t, lines[30], `"many" is not an integer`)
	assert.Contains(t, lines[31], `"spanner-sql" is not supported`)
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
	assert.Contains(t, msgs, `template parameter "table": needs allowedValues`)
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

func TestParse_EnvValuesNeverInMessages(t *testing.T) {
	const leaked = "pw-SECRET-9999"
	src := strings.Join([]string{
		/* 1 */ "sources:",
		/* 2 */ "  pg:",
		/* 3 */ "    kind: postgres",
		/* 4 */ "    host: h",
		/* 5 */ "    user: u",
		/* 6 */ "    database: d",
		/* 7 */ "    port: ${V}",
		/* 8 */ "    maxOpenConns: ${V}",
		/* 9 */ "    connMaxLifetime: ${V}",
		/* 10 */ "  api:",
		/* 11 */ "    kind: http",
		/* 12 */ "    baseUrl: https://${V}.example.com",
		/* 13 */ "    allowedHosts: [other.example.com]",
		/* 14 */ "  db:",
		/* 15 */ "    kind: ${V}",
		/* 16 */ "  lite:",
		/* 17 */ "    kind: sqlite",
		/* 18 */ "    database: x.db",
		/* 19 */ "    init: /tmp/${V}/init.sql",
		/* 20 */ "tools:",
		/* 21 */ "  t1:",
		/* 22 */ "    kind: sqlite-sql",
		/* 23 */ "    source: ${V}",
		/* 24 */ "    description: d",
		/* 25 */ "    statement: SELECT ?",
		/* 26 */ "    readOnly: ${V}",
		/* 27 */ "    parameters:",
		/* 28 */ "      - {name: p, type: '${V}', description: p}",
		/* 29 */ "  t2:",
		/* 30 */ "    kind: sqlite-sql",
		/* 31 */ "    source: lite",
		/* 32 */ "    description: d",
		/* 33 */ "    statement: SELECT ?",
		/* 34 */ "    parameters:",
		/* 35 */ "      - {name: q, type: integer, description: q, default: '${V}'}",
		/* 36 */ "      - {name: f, type: float, description: f, minValue: '${V}'}",
		/* 37 */ "  t3:",
		/* 38 */ "    kind: '${V}'",
		/* 39 */ "    source: lite",
		/* 40 */ "    description: d",
		/* 41 */ "    timeout: '${V}'",
	}, "\n")
	_, ps := parse(t, src, map[string]string{"V": leaked})
	require.NotEmpty(t, ps)
	assert.NotContains(t, ps.Error(), leaked)
	assert.NotContains(t, ps.Error(), "SECRET")
	lines := map[int]string{}
	for _, p := range ps {
		lines[p.Line] += p.Message + "; "
	}
	for _, line := range []int{2, 8, 9, 10, 14, 16, 23, 26, 28, 35, 36, 37, 41} {
		assert.Contains(t, lines[line], "${V}", "line %d names the variable: %s", line, lines[line])
	}
	assert.Contains(t, lines[2], `port "${V}" (from the environment) is not a port number`)

	// A value too short for Config.Redact's net (3 bytes) is named by
	// every message too, never shown.
	_, ps = parse(t, src, map[string]string{"V": "Zq9"})
	require.Len(t, ps, len(lines), ps.Error())
	assert.NotContains(t, ps.Error(), "Zq9")

	// A short value is named too, never shown.
	_, ps = parse(t, "sources:\n  pg: {kind: postgres, host: h, user: u, database: d, port: '${P}'}\n", map[string]string{"P": "x9"})
	assert.NotContains(t, ps.Error(), "x9")
	assert.Contains(t, ps.Error(), "${P}")
}

func TestConfig_RedactNamesTheVariable(t *testing.T) {
	cfg, ps := parse(t, `
sources:
  pg: {kind: postgres, host: '${HOST}', user: '${USER}', database: d, password: '${PW}'}
`, map[string]string{"HOST": "db.internal.example", "USER": "ab", "PW": "hunter2hunter2"})
	require.Empty(t, ps)
	assert.Equal(t, "failed to connect to ${HOST} as ab with ${PW}",
		cfg.Redact("failed to connect to db.internal.example as ab with hunter2hunter2"),
		"values of 4 bytes or more are replaced; shorter ones are left (not secrets, and replacing them garbles)")
	var nilCfg *Config
	assert.Equal(t, "x", nilCfg.Redact("x"))
}

func TestParse_HTTPPortsAndPrivateNetworks(t *testing.T) {
	cfg, ps := parse(t, `
sources:
  api:
    kind: http
    baseUrl: "http://127.0.0.1:8080"
    allowedHosts: [127.0.0.1, "127.0.0.1:9090", "*.example.com:8443", "[::1]:8080"]
    allowPrivateNetworks: true
tools: {}
`, nil)
	require.Empty(t, ps)
	assert.True(t, cfg.Sources["api"].AllowPrivateNetworks)

	src := strings.Join([]string{
		/* 1 */ "sources:",
		/* 2 */ "  api:",
		/* 3 */ "    kind: http",
		/* 4 */ "    baseUrl: https://api.example.com",
		/* 5 */ "    allowedHosts:",
		/* 6 */ "      - api.example.com:70000",
		/* 7 */ "      - https://api.example.com",
		/* 8 */ "  other:",
		/* 9 */ "    kind: http",
		/* 10 */ "    baseUrl: https://api.example.com",
		/* 11 */ "    allowedHosts: [api.example.com:8443]",
		/* 12 */ "  db:",
		/* 13 */ "    kind: sqlite",
		/* 14 */ "    database: x.db",
		/* 15 */ "    allowPrivateNetworks: true",
		/* 16 */ "  env:",
		/* 17 */ "    kind: http",
		/* 18 */ "    baseUrl: https://api.example.com",
		/* 19 */ "    allowedHosts: [api.example.com, 'x:${PORT}']",
	}, "\n")
	_, ps = parse(t, src, map[string]string{"PORT": "pw-SECRET-9999"})
	lines := map[int]string{}
	for _, p := range ps {
		lines[p.Line] += p.Message + "; "
	}
	assert.Contains(t, lines[6], "port must be a number from 1 to 65535")
	assert.Contains(t, lines[7], "a host name, not a URL")
	assert.Contains(t, lines[8], `host and port of baseUrl ("api.example.com") are not in allowedHosts`)
	assert.Contains(t, lines[12], "allowPrivateNetworks is only for http sources")
	assert.Contains(t, lines[19], `allowedHosts entry "x:${PORT}" (from the environment): the port must be`)
	assert.NotContains(t, ps.Error(), "SECRET")
}

func TestParse_ParametersCannotShadowConfiguredValues(t *testing.T) {
	src := strings.Join([]string{
		/* 1 */ "sources:",
		/* 2 */ "  api:",
		/* 3 */ "    kind: http",
		/* 4 */ "    baseUrl: https://api.example.com/v1?tenant=acme",
		/* 5 */ "    queryParams: {key: '${KEY}'}",
		/* 6 */ "    headers: {X-Api-Key: '${KEY}'}",
		/* 7 */ "tools:",
		/* 8 */ "  get:",
		/* 9 */ "    kind: http",
		/* 10 */ "    source: api",
		/* 11 */ "    method: GET",
		/* 12 */ "    path: /items?format=json",
		/* 13 */ "    description: d",
		/* 14 */ "    headers: {X-Trace: on}",
		/* 15 */ "    queryParams:",
		/* 16 */ "      - {name: key, type: string, description: k}",
		/* 17 */ "      - {name: KEY, type: string, description: k}",
		/* 18 */ "      - {name: tenant, type: string, description: t}",
		/* 19 */ "      - {name: format, type: string, description: f}",
		/* 20 */ "      - {name: q, type: string, description: fine}",
		/* 21 */ "    headerParams:",
		/* 22 */ "      - {name: x-api-key, type: string, description: k}",
		/* 23 */ "      - {name: X-Trace, type: string, description: t}",
		/* 24 */ "      - {name: Accept-Language, type: string, description: fine}",
	}, "\n")
	_, ps := parse(t, src, map[string]string{"KEY": "k-123456789"})
	lines := map[int]string{}
	for _, p := range ps {
		lines[p.Line] += p.Message + "; "
	}
	assert.Contains(t, lines[16], `query parameter "key" has the name of a query parameter source "api" sets`)
	assert.Contains(t, lines[17], `query parameter "KEY"`)
	assert.Contains(t, lines[18], `the baseUrl of source "api"`)
	assert.Contains(t, lines[19], "the tool's path")
	assert.Contains(t, lines[22], `header parameter "x-api-key" has the name of a header source "api" sets`)
	assert.Contains(t, lines[23], "the tool's headers")
	assert.Empty(t, lines[20])
	assert.Empty(t, lines[24])
	assert.Len(t, ps, 6)
}

func TestParse_ReadOnlySQLiteStatementsThatTouchFiles(t *testing.T) {
	src := strings.Join([]string{
		/* 1 */ "sources:",
		/* 2 */ "  db: {kind: sqlite, database: x.db}",
		/* 3 */ "tools:",
		/* 4 */ "  attach:",
		/* 5 */ "    kind: sqlite-sql",
		/* 6 */ "    source: db",
		/* 7 */ "    description: d",
		/* 8 */ "    parameters: [{name: p, type: string, description: p}]",
		/* 9 */ "    statement: ATTACH DATABASE ? AS x",
		/* 10 */ "  vacuum:",
		/* 11 */ "    kind: sqlite-sql",
		/* 12 */ "    source: db",
		/* 13 */ "    description: d",
		/* 14 */ "    parameters: [{name: p, type: string, description: p}]",
		/* 15 */ "    statement: VACUUM INTO ?",
		/* 16 */ "  writer:",
		/* 17 */ "    kind: sqlite-sql",
		/* 18 */ "    source: db",
		/* 19 */ "    description: d",
		/* 20 */ "    readOnly: false",
		/* 21 */ "    parameters: [{name: p, type: string, description: p}]",
		/* 22 */ "    statement: ATTACH DATABASE ? AS x",
		/* 23 */ "  pragma:",
		/* 24 */ "    kind: sqlite-sql",
		/* 25 */ "    source: db",
		/* 26 */ "    description: d",
		/* 27 */ "    statement: PRAGMA query_only = 0",
	}, "\n")
	_, ps := parse(t, src, nil)
	lines := map[int]string{}
	for _, p := range ps {
		lines[p.Line] += p.Message + "; "
	}
	assert.Contains(t, lines[9], `tool "attach": the statement is refused: ATTACH opens another database file`)
	assert.Contains(t, lines[15], `tool "vacuum": the statement is refused: VACUUM`)
	assert.Contains(t, lines[27], "PRAGMA")
	assert.Len(t, ps, 3, "a tool that writes is its author's to write: %s", ps.Error())
}
