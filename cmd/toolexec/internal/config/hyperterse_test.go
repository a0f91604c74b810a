package config

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// project writes files (path to contents) into a temporary directory and
// returns it.
func project(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, body := range files {
		p := filepath.Join(dir, name)
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(body), 0o600))
	}
	return dir
}

func loadProject(t *testing.T, dir string, e map[string]string) (*Config, Problems) {
	t.Helper()
	cfg, err := Load(dir, env(e))
	if err == nil {
		return cfg, nil
	}
	var ps Problems
	require.True(t, errors.As(err, &ps), err)
	return nil, ps
}

func toolNamed(cfg *Config, name string) *Tool {
	for _, t := range cfg.Tools {
		if t.Name == name {
			return t
		}
	}
	return nil
}

// The examples of Hyperterse's documentation (docs/concepts/tools.mdx,
// scripts.mdx, reference/tool-config.mdx, reference/adapter-config.mdx,
// databases/*.mdx) and of its demo project, as they are written there.
var hyperterseDocs = map[string]string{
	".hyperterse": `name: demo-framework
version: 2.0.0-beta-1

server:
  port: 8080
  log_level: 3
tools:
  cache:
    enabled: true
    ttl: 60
`,
	"app/adapters/primary-db.terse": `connector: postgres
connection_string: "postgresql://{{ env.DB_USER }}:{{ env.DB_PASS }}@db.internal:5432/production?sslmode=require"
options:
  application_name: hyperterse
  max_connections: "10"
`,
	"app/adapters/sqlite-db.terse": `connector: sqlite
connection_string: file:./demo.db
`,
	"app/adapters/mysql-db.terse": `name: shop
connector: mysql
connection_string: "shop:pw@tcp(db.internal:3307)/shop?parseTime=true"
`,
	"app/tools/get-user/config.terse": `description: 'Retrieve a user by their identifier'
use: primary-db
statement: |
  SELECT id, name, email, created_at
  FROM users
  WHERE id = {{ inputs.user_id }}
inputs:
  user_id:
    type: int
    description: 'Primary key of the user record'
mappers:
  input: './validate-input.ts'
  output: './format-output.ts#shape'
auth:
  plugin: allow_all
cache:
  enabled: true
  ttl: 120
`,
	"app/tools/get-user/validate-input.ts": `export default function inputTransform(payload: { inputs: Record<string, any>; tool: string }) { return payload.inputs; }`,
	"app/tools/get-user/format-output.ts":  `export function shape(payload: { results: any[]; tool: string }) { return payload.results; }`,
	"app/tools/get-weather/config.terse": `description: 'Retrieve current weather conditions for a location'
handler: './weather-handler.ts'
auth:
  plugin: allow_all
`,
	"app/tools/get-weather/weather-handler.ts": `export default function handler(payload: { inputs: Record<string, any>; tool: string }) { return { location: payload.inputs.city || 'unknown' }; }`,
	"app/tools/search-users/config.terse": `description: Search users by name
use: sqlite-db
statement: |
  SELECT id, name FROM users
  WHERE name LIKE '%{{ inputs.q }}%' AND status = '{{ inputs.status }}'
  -- {{ inputs.q }} in a comment is left alone
  ORDER BY id LIMIT {{ inputs.limit }}
inputs:
  q:
    type: string
  status:
    type: string
    optional: true
    default: active
  limit:
    type: int
    default: "10"
  include_inactive:
    type: boolean
    description: 'Whether to include deactivated accounts'
    optional: true
    default: 'false'
`,
	"app/tools/Orders/By Month/config.terse": `description: Orders by month
use: shop
statement: SELECT * FROM orders WHERE note LIKE CONCAT('%', {{ inputs.word }}, '%') AND code = 'M-{{ inputs.month }}'
inputs:
  word: {type: string}
  month: {type: int}
`,
	"app/tools/convention/config.terse": `description: Found by convention
`,
	"app/tools/convention/handler.ts":              `export default () => 1;`,
	"app/tools/convention/user-input-validator.ts": `export default (p: any) => p.inputs;`,
	"app/tools/convention/user-data-mapper.ts":     `export default (p: any) => p.results;`,
	"app/tools/old-form/config.terse": `description: The scripts block of Hyperterse's earlier layout
scripts:
  handler: ./h.ts
  input_transform: ./in.ts
  output_transform: ./out.ts
inputs:
  city: {type: string}
timeout: 5s
allowedHosts: [api.weather.example.com]
`,
	"app/tools/old-form/h.ts":   `export default () => 1;`,
	"app/tools/old-form/in.ts":  `export default (p: any) => p.inputs;`,
	"app/tools/old-form/out.ts": `export default (p: any) => p.results;`,
}

func TestHyperterse_TheDocumentationsExamples(t *testing.T) {
	dir := project(t, hyperterseDocs)
	cfg, ps := loadProject(t, dir, map[string]string{"DB_USER": "reader", "DB_PASS": "pa55word"})
	require.Nil(t, ps, ps.Error())
	assert.Equal(t, dir, cfg.File)
	assert.Len(t, cfg.Tools, 6)

	pg := cfg.Sources["primary-db"]
	require.NotNil(t, pg)
	assert.Equal(t, &Source{Name: "primary-db", Kind: KindPostgres, Line: 1, Host: "db.internal", Port: "5432", Database: "production",
		User: "reader", Password: "pa55word", MaxOpenConns: 10,
		QueryParams: map[string]string{"sslmode": "require", "application_name": "hyperterse"}}, pg)
	assert.Equal(t, filepath.Join(dir, "demo.db"), cfg.Sources["sqlite-db"].Database, "relative to the project")
	my := cfg.Sources["shop"]
	require.NotNil(t, my, "an adapter's name field names it")
	assert.Equal(t, []string{"db.internal", "3307", "shop", "pw", "shop"}, []string{my.Host, my.Port, my.User, my.Password, my.Database})
	assert.Equal(t, "true", my.QueryParams["parseTime"])
	assert.Equal(t, "[...]:{{ env.DB_PASS }}", cfg.Redact("[...]:pa55word"), "a value from the environment is redacted as the file names it")

	user := toolNamed(cfg, "get-user")
	require.NotNil(t, user)
	assert.Equal(t, KindPostgresSQL, user.Kind)
	assert.Equal(t, "SELECT id, name, email, created_at\nFROM users\nWHERE id = $1\n", user.Statement)
	require.Len(t, user.Parameters, 1)
	assert.Equal(t, &Param{Name: "user_id", Type: TypeInteger, Description: "Primary key of the user record", Required: true, Line: 8}, user.Parameters[0])
	assert.True(t, user.ReadOnly)
	assert.Equal(t, filepath.Join(dir, "app", "tools", "get-user", "validate-input.ts"), user.Transforms.Input.Path)
	assert.Equal(t, "shape", user.Transforms.Output.Export)
	assert.True(t, user.Cache)
	assert.Equal(t, 120*time.Second, user.CacheTTL, "the tool's cache over the root's")

	weather := toolNamed(cfg, "get-weather")
	require.NotNil(t, weather)
	assert.Equal(t, KindScript, weather.Kind)
	assert.Equal(t, filepath.Join(dir, "app", "tools", "get-weather", "weather-handler.ts"), weather.Handler.Path)
	assert.True(t, weather.OpenInputs, "no inputs block: any arguments")
	assert.False(t, weather.ReadOnly)

	search := toolNamed(cfg, "search-users")
	require.NotNil(t, search)
	assert.Equal(t, KindSQLiteSQL, search.Kind)
	assert.Equal(t, "SELECT id, name FROM users\nWHERE name LIKE ('%' || $1 || '%') AND status = $2\n-- {{ inputs.q }} in a comment is left alone\nORDER BY id LIMIT $3\n", search.Statement)
	require.Len(t, search.Parameters, 3)
	assert.Equal(t, []any{"active", float64(10)}, []any{search.Parameters[1].Default, search.Parameters[2].Default})
	assert.False(t, search.Parameters[1].Required, "optional, with a default")
	require.Len(t, search.Unbound, 1, "an input the statement does not use is in the schema, unbound")
	assert.Equal(t, "include_inactive", search.Unbound[0].Name)
	assert.Equal(t, false, search.Unbound[0].Default)
	assert.True(t, search.Cache, "the root's tools.cache")
	assert.Equal(t, time.Minute, search.CacheTTL)

	orders := toolNamed(cfg, "orders-by-month")
	require.NotNil(t, orders, "named by its directories")
	assert.Equal(t, KindMySQLSQL, orders.Kind)
	assert.Equal(t, "SELECT * FROM orders WHERE note LIKE CONCAT('%', ?, '%') AND code = CONCAT('M-', ?)", orders.Statement)

	conv := toolNamed(cfg, "convention")
	require.NotNil(t, conv)
	assert.Equal(t, "handler.ts", filepath.Base(conv.Handler.Path))
	assert.Equal(t, "user-input-validator.ts", filepath.Base(conv.Transforms.Input.Path))
	assert.Equal(t, "user-data-mapper.ts", filepath.Base(conv.Transforms.Output.Path))

	old := toolNamed(cfg, "old-form")
	require.NotNil(t, old)
	assert.Equal(t, "h.ts", filepath.Base(old.Handler.Path))
	assert.Equal(t, "in.ts", filepath.Base(old.Transforms.Input.Path))
	assert.Equal(t, 5*time.Second, old.Timeout, "toolexec's fields are read in a tool file")
	assert.Equal(t, []string{"api.weather.example.com"}, old.FetchHosts)

	var watched []string
	for _, w := range cfg.Watched() {
		watched = append(watched, strings.TrimPrefix(w.Path, dir))
	}
	assert.Contains(t, watched, "/.hyperterse")
	assert.Contains(t, watched, "/app")
	assert.Contains(t, watched, "/app/tools/get-user/config.terse")
}

func TestHyperterse_PostgresBindsTextInConcatenations(t *testing.T) {
	dir := project(t, map[string]string{
		"app/adapters/pg.terse": "connector: postgres\nconnection_string: host=db port=5433 user=u dbname=d sslmode=disable\n",
		"app/tools/find/config.terse": `use: pg
statement: SELECT * FROM t WHERE code = 'C-{{ inputs.n }}' AND name ILIKE '%{{ inputs.q }}%' AND since > '{{ inputs.since }}' AND ok = {{ inputs.ok }}
inputs:
  n: {type: int}
  q: {type: string}
  since: {type: datetime}
  ok: {type: boolean}
`,
	})
	cfg, ps := loadProject(t, dir, nil)
	require.Nil(t, ps, ps.Error())
	assert.Equal(t, "5433", cfg.Sources["pg"].Port)
	assert.Equal(t, "disable", cfg.Sources["pg"].QueryParams["sslmode"])
	assert.Equal(t, "SELECT * FROM t WHERE code = ('C-' || $1::bigint) AND name ILIKE ('%' || $2::text || '%') AND since > $3 AND ok = $4", cfg.Tools[0].Statement)
}

// What toolexec cannot do of a Hyperterse project is a problem at its
// line.
func TestHyperterse_ProblemsAtTheirLines(t *testing.T) {
	dir := project(t, map[string]string{
		"app/adapters/cache.terse":  "connector: redis\nconnection_string: \"redis://localhost:6379/0\"\n",
		"app/adapters/docs.terse":   "connector: mongodb\nconnection_string: mongodb://localhost/db\n",
		"app/adapters/turso.terse":  "connector: sqlite\nconnection_string: libsql://db.turso.io\noptions:\n  authToken: x\n",
		"app/adapters/oracle.terse": "connector: oracle\nconnection_string: x\n",
		"app/adapters/local.terse":  "connector: sqlite\nconnection_string: ':memory:'\nport: 1\n",
		"app/tools/get-cached/config.terse": `description: 'Retrieve a cached value by key'
use: cache
statement: 'GET {{ inputs.nokey }}'
inputs:
  key:
    type: string
`,
		"app/tools/find-docs/config.terse": "use: docs\nstatement: '{\"database\": \"db\", \"collection\": \"c\", \"operation\": \"countDocuments\"}'\n",
		"app/tools/keyed/config.terse": `use: local
statement: SELECT * FROM {{ inputs.table }} WHERE "{{ inputs.col }}" = 1 ORDER BY {{ inputs.col }}
inputs:
  table: {type: string}
  col: {type: string}
auth:
  plugin: api_key
  policy:
    value: '{{ env.API_KEY }}'
`,
		"app/tools/undeclared/config.terse": "use: local\nstatement: SELECT {{ inputs.nope }}, {{ input.typo }}\n",
		"app/tools/both/config.terse":       "use: local\nstatement: SELECT 1\nhandler: ./h.ts\n",
		"app/tools/both/h.ts":               "export default () => 1;",
		"app/tools/neither/config.terse":    "description: nothing to run\n",
		"app/tools/env/config.terse":        "use: local\nstatement: SELECT '{{ env.NOT_SET }}'\nmystery: 1\n",
		"app/tools/types/config.terse":      "use: local\nstatement: SELECT {{ inputs.when }}\ninputs:\n  when: {type: timestamp}\n",
	})
	_, ps := loadProject(t, dir, nil)
	require.NotNil(t, ps)
	got := map[string]string{}
	for _, p := range ps {
		rel, err := filepath.Rel(dir, p.File)
		require.NoError(t, err)
		got[rel+":"+strconv.Itoa(p.Line)] += p.Message + "|"
	}
	want := map[string]string{
		"app/adapters/turso.terse:2":          `a remote libSQL or Turso database is not supported`,
		"app/adapters/oracle.terse:1":         `connector "oracle" is not one of postgres, mysql, sqlite, redis, mongodb`,
		"app/adapters/local.terse:3":          `adapter: unknown field "port"`,
		"app/tools/get-cached/config.terse:3": `{{ inputs.nokey }}, which inputs does not declare`,
		"app/tools/find-docs/config.terse:2":  `operation "countDocuments" is not one toolexec serves`,
		"app/tools/keyed/config.terse:2":      `after FROM, where a name goes,`,
		"app/tools/keyed/config.terse:7":      `plugin "api_key" is not supported by toolexec`,
		"app/tools/undeclared/config.terse:2": `the statement uses {{ inputs.nope }}, which inputs does not declare`,
		"app/tools/both/config.terse:3":       `a tool has use or handler, not both`,
		"app/tools/neither/config.terse:1":    `tool "neither" needs use (an adapter and a statement) or handler (a script)`,
		"app/tools/env/config.terse:2":        `environment variable NOT_SET is not set`,
		"app/tools/env/config.terse:3":        `tool: unknown field "mystery"`,
		"app/tools/types/config.terse:4":      `type "timestamp" is not one of string, int, float, boolean, datetime`,
	}
	for at, msg := range want {
		assert.Contains(t, got[at], msg, "at %s; all: %v", at, ps.Error())
	}
	assert.Contains(t, got["app/tools/keyed/config.terse:2"], "in a quoted identifier")
	assert.Contains(t, got["app/tools/keyed/config.terse:2"], "after BY, where a name goes,")
	assert.Contains(t, got["app/tools/undeclared/config.terse:2"], "{{ input.typo }} is not a placeholder toolexec knows")
}

func TestHyperterse_NotAProject(t *testing.T) {
	dir := t.TempDir()
	_, ps := loadProject(t, dir, nil)
	require.Len(t, ps, 1)
	assert.Equal(t, dir+`: not a Hyperterse project: there is no `+filepath.Join(dir, "app")+` directory`, ps[0].String())
}

func TestHyperterse_RootDirectories(t *testing.T) {
	dir := project(t, map[string]string{
		".hyperterse":                      "name: test-service\nroot: src\ntools:\n  directory: routes\nadapters:\n  directory: db\nunknown_block:\n  arbitrary: value\n",
		"src/db/main.terse":                "connector: sqlite\nconnection_string: ':memory:'\n",
		"src/routes/get-user/config.terse": "description: Get user\nuse: main\nstatement: SELECT 1 AS one\n",
	})
	cfg, ps := loadProject(t, filepath.Join(dir, ".hyperterse"), nil)
	require.Nil(t, ps, ps.Error())
	require.Len(t, cfg.Tools, 1)
	assert.Equal(t, "get-user", cfg.Tools[0].Name)
	assert.Equal(t, dir, cfg.File, "the root file names its directory")
}

func TestHyperterse_RedisAndMongoDBAdapters(t *testing.T) {
	dir := project(t, map[string]string{
		"app/adapters/cache.terse": "connector: redis\nconnection_string: \"rediss://app:secret@cache.internal:6380/2\"\noptions:\n  max_connections: 7\n",
		"app/adapters/docs.terse":  "connector: mongodb\nconnection_string: mongodb://docs.internal/db\noptions:\n  appName: demo\n",
		"app/tools/get-user/config.terse": `use: cache
statement: 'HGET user:{{ inputs.id }} {{ inputs.field }}'
inputs:
  id: {type: int}
  field: {type: string}
  trace: {type: string, optional: true}
`,
		"app/tools/find-orders/config.terse": `use: docs
statement: |
  {"database": "shop", "collection": "orders", "operation": "find",
   "filter": {"customer": "{{ inputs.customer }}", "total": {"$gte": {{ inputs.min }}}},
   "options": {"limit": 5, "sort": {"total": -1}}}
inputs:
  customer: {type: string}
  min: {type: float}
`,
		"app/tools/add-order/config.terse": `use: docs
statement: '{"database": "shop", "collection": "orders", "operation": "insertOne", "document": {"customer": "{{ inputs.customer }}"}}'
inputs:
  customer: {type: string}
`,
	})
	cfg, ps := loadProject(t, dir, nil)
	require.Nil(t, ps, ps.Error())

	cache := cfg.Sources["cache"]
	require.NotNil(t, cache)
	assert.Equal(t, KindRedis, cache.Kind)
	assert.Equal(t, []string{"cache.internal:6380"}, cache.Address)
	assert.Equal(t, "app", cache.Username)
	assert.Equal(t, "secret", cache.Password)
	assert.Equal(t, 2, cache.DB)
	assert.True(t, cache.TLS, "rediss:// is TLS")
	assert.Equal(t, 7, cache.MaxOpenConns)

	docs := cfg.Sources["docs"]
	require.NotNil(t, docs)
	assert.Equal(t, KindMongoDB, docs.Kind)
	assert.Equal(t, "mongodb://docs.internal/db?appName=demo", docs.URI, "options join the URI's query")

	get := toolNamed(cfg, "get-user")
	require.NotNil(t, get)
	assert.Equal(t, KindRedisTool, get.Kind)
	assert.True(t, get.ReadOnly)
	require.Len(t, get.Commands, 1)
	args := get.Commands[0].Args
	require.Len(t, args, 3)
	assert.Equal(t, "HGET", args[0].Text)
	require.Len(t, args[1].Parts, 2, "user:{{ inputs.id }} is one word of text and a value")
	assert.Equal(t, "user:", args[1].Parts[0].Text)
	assert.Equal(t, "id", args[1].Parts[1].Param.Name)
	require.NotNil(t, args[2].Param, "a word that is a placeholder is the value")
	require.Len(t, get.Unbound, 1, "an input the statement does not use is in the schema, bound nowhere")
	assert.Equal(t, "trace", get.Unbound[0].Name)
	assert.Equal(t, "field", args[2].Param.Name)

	find := toolNamed(cfg, "find-orders")
	require.NotNil(t, find)
	assert.Equal(t, KindMongoFind, find.Kind)
	assert.Equal(t, "shop", find.Database)
	assert.Equal(t, "orders", find.Collection)
	assert.Equal(t, int64(5), find.Limit)
	assert.True(t, find.ReadOnly)
	require.NotNil(t, find.Filter)
	assert.Equal(t, `{"customer": {{json .customer}}, "total": {"$gte": {{json .min}}}}`, find.Filter.Text)
	require.NotNil(t, find.Filter.Template)
	require.NotNil(t, find.Sort)
	assert.Equal(t, `{"total": -1}`, find.Sort.Text)

	add := toolNamed(cfg, "add-order")
	require.NotNil(t, add)
	assert.Equal(t, KindMongoInsertOne, add.Kind)
	assert.False(t, add.ReadOnly)
	require.NotNil(t, add.Documents)
	assert.Equal(t, `{"customer": {{json .customer}}}`, add.Documents.Text)
	for _, prm := range add.Parameters {
		assert.NotEqual(t, MongoDataParam, prm.Name, "the statement writes the document: no data argument")
	}
}

func TestHyperterse_RedisWords(t *testing.T) {
	assert.Equal(t, []string{"HGET", "user:{{ inputs.id }}", "{{ inputs.f }}"}, redisWords(" HGET  user:{{ inputs.id }}\t{{ inputs.f }}\n"))
	assert.Equal(t, []string{"SET", "k", "{}"}, redisWords("SET k {}"))
}
