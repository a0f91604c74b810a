package server

import (
	"context"
	"database/sql"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolexec/toolexec"
	_ "modernc.org/sqlite" // the demo's database is made beforehand
)

// hyperProject writes a Hyperterse project into a temporary directory,
// loads it as serve does, and serves its tools through an Executor.
func hyperProject(t *testing.T, files map[string]string, env map[string]string, prepare ...func(dir string)) *toolexec.Executor {
	t.Helper()
	dir := t.TempDir()
	for name, body := range files {
		p := filepath.Join(dir, name)
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(body), 0o600))
	}
	for _, f := range prepare {
		f(dir)
	}
	set, err := FileLoader(dir, func(k string) (string, bool) { v, ok := env[k]; return v, ok }, nil)(context.Background())
	require.NoError(t, err)
	t.Cleanup(func() { _ = set.Close() })
	return executor(set, Options{})
}

// The demo project of Hyperterse's repository, on SQLite: a DB tool with
// an input and an output mapper, and a handler tool.
var hyperDemo = map[string]string{
	".hyperterse":                   "name: demo-framework\nversion: 2.0.0-beta-1\nserver:\n  port: 8080\n  log_level: 3\n",
	"app/adapters/my-adapter.terse": "connector: sqlite\nconnection_string: file:./demo.db\n",
	"app/tools/get-user/config.terse": `description: "Get user by id, with input validation and response mapping."
use: my-adapter
statement: |
  SELECT * FROM users WHERE id = {{ inputs.userId }}
inputs:
  userId:
    type: int
    description: "User ID to fetch."
mappers:
  input: "./user-input-validator.ts"
  output: "./user-data-mapper.ts"
auth:
  plugin: allow_all
`,
	"app/tools/get-user/user-input-validator.ts": `export default async function inputTransform(payload: { inputs?: Record<string, unknown> }) {
  const inputs = payload?.inputs ?? {};
  const userId = Number(inputs.userId);
  if (!Number.isFinite(userId) || userId <= 0 || !Number.isInteger(userId)) {
    throw new Error("user_id must be a positive integer");
  }
  return { ...inputs, userId };
}`,
	"app/tools/get-user/user-data-mapper.ts": `type Row = Record<string, unknown>;
export default async function outputTransform(payload: { results?: Row[] }) {
  const rows = payload?.results ?? [];
  return rows.map((row) => ({ id: row.id, name: row.name, email: row.email }));
}`,
	"app/tools/search/config.terse": `description: Search users by name.
use: my-adapter
statement: SELECT id, name FROM users WHERE name LIKE '%{{ inputs.q }}%' ORDER BY id
inputs:
  q: {type: string, description: Part of the name.}
`,
	"app/tools/get-weather/config.terse": `description: "Custom weather MCP tool implemented entirely in TypeScript handler."
handler: "./weather-handler.ts"
auth:
  plugin: allow_all
`,
	"app/tools/get-weather/weather-handler.ts": `type Inputs = { city?: string; units?: "metric" | "imperial" };
export default async function handler(payload: { inputs?: Inputs; tool?: string }) {
  const city = payload?.inputs?.city ?? "Bengaluru";
  const units = payload?.inputs?.units ?? "metric";
  return [{ city, units, temperature: units === "imperial" ? 77 : 25, tool: payload?.tool ?? "unknown" }];
}`,
}

func TestHyperterse_DemoProjectOnSQLite(t *testing.T) {
	x := hyperProject(t, hyperDemo, nil, func(dir string) {
		db, err := sql.Open("sqlite", filepath.Join(dir, "demo.db"))
		require.NoError(t, err)
		defer db.Close()
		_, err = db.Exec(`CREATE TABLE users (id INTEGER PRIMARY KEY, name TEXT, email TEXT, password_hash TEXT);
INSERT INTO users VALUES (1, 'Ada', 'ada@example.com', 'x'), (2, 'Bo', 'bo@example.com', 'y'), (3, 'Cy', 'cy@example.com', 'z');
CREATE TABLE keys (secret TEXT); INSERT INTO keys VALUES ('top-secret');`)
		require.NoError(t, err)
	})

	res, err := call(t, x, "get-user", map[string]any{"userId": 2})
	require.NoError(t, err)
	require.False(t, res.IsError, res.Text())
	assert.JSONEq(t, `[{"id":2,"name":"Bo","email":"bo@example.com"}]`, res.Text())

	_, err = call(t, x, "get-user", map[string]any{"userId": -1})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "user_id must be a positive integer", "the input mapper's throw, as its message")

	res, err = call(t, x, "get-weather", map[string]any{"city": "Oslo", "units": "imperial"})
	require.NoError(t, err)
	assert.JSONEq(t, `[{"city":"Oslo","units":"imperial","temperature":77,"tool":"get-weather"}]`, res.Text())

	// {{ inputs.q }} inside '%...%' is bound: what the caller sends is
	// matched as text, never read as SQL.
	res, err = call(t, x, "search", map[string]any{"q": "o"})
	require.NoError(t, err)
	assert.Equal(t, []map[string]any{{"id": 2.0, "name": "Bo"}}, rows(t, res))
	for _, inj := range []string{"' OR 1=1 --", "%' UNION SELECT 1, secret FROM keys --", "'"} {
		res, err = call(t, x, "search", map[string]any{"q": inj})
		require.NoError(t, err)
		assert.Empty(t, rows(t, res), inj)
	}
}

func TestHyperterse_PostgresAndMySQLAdapters(t *testing.T) {
	t.Run("postgres", func(t *testing.T) {
		s := postgres(t)
		db := pgDB(t, s)
		_, err := db.Exec(`DROP TABLE IF EXISTS hyusers;
CREATE TABLE hyusers (id bigint PRIMARY KEY, name text NOT NULL, created_at timestamptz NOT NULL, code text NOT NULL, score double precision NOT NULL);
INSERT INTO hyusers VALUES (1, 'Ada', '2024-01-01T00:00:00Z', 'C-1', 9.5), (2, 'Bo', '2025-01-01T00:00:00Z', 'C-2', 7);`)
		require.NoError(t, err)
		x := hyperProject(t, map[string]string{
			"app/adapters/primary-db.terse": fmt.Sprintf("connector: postgres\nconnection_string: \"postgresql://{{ env.PGUSER_FOR_TEST }}@%s/%s\"\noptions:\n  sslmode: disable\n",
				net.JoinHostPort(s.Host, strconv.Itoa(s.Port)), s.Database),
			"app/tools/find/config.terse": `use: primary-db
statement: |
  SELECT id, name FROM hyusers
  WHERE name ILIKE '%{{ inputs.q }}%' AND code = 'C-{{ inputs.n }}'
    AND created_at > '{{ inputs.since }}' AND score >= {{ inputs.min }}
inputs:
  q: {type: string}
  n: {type: int}
  since: {type: datetime}
  min: {type: float, default: 0}
`,
		}, map[string]string{"PGUSER_FOR_TEST": s.User})
		res, err := call(t, x, "find", map[string]any{"q": "b", "n": 2, "since": "2024-06-01T00:00:00Z"})
		require.NoError(t, err)
		assert.Equal(t, []map[string]any{{"id": 2.0, "name": "Bo"}}, rows(t, res))
		res, err = call(t, x, "find", map[string]any{"q": "' OR ''='", "n": 2, "since": "2000-01-01T00:00:00Z"})
		require.NoError(t, err)
		assert.Empty(t, rows(t, res))
	})
	t.Run("mysql", func(t *testing.T) {
		s := mariadb(t)
		db := myDB(t, s)
		_, err := db.Exec(`DROP TABLE IF EXISTS hyorders;
CREATE TABLE hyorders (id BIGINT PRIMARY KEY, note TEXT NOT NULL, code VARCHAR(20) NOT NULL);
INSERT INTO hyorders VALUES (1, 'blue widget', 'M-3'), (2, 'red widget', 'M-4');`)
		require.NoError(t, err)
		x := hyperProject(t, map[string]string{
			"app/adapters/shop.terse": fmt.Sprintf("connector: mysql\nconnection_string: \"%s:{{ env.MYSQL_PASS }}@tcp(%s)/%s\"\n",
				s.User, net.JoinHostPort(s.Host, strconv.Itoa(s.Port)), s.Database),
			"app/tools/orders/config.terse": `use: shop
statement: SELECT id, note FROM hyorders WHERE note LIKE '%{{ inputs.word }}%' AND code = 'M-{{ inputs.month }}'
inputs:
  word: {type: string}
  month: {type: int}
`,
		}, map[string]string{"MYSQL_PASS": s.Password})
		res, err := call(t, x, "orders", map[string]any{"word": "widget", "month": 4})
		require.NoError(t, err)
		assert.Equal(t, []map[string]any{{"id": 2.0, "note": "red widget"}}, rows(t, res))
		res, err = call(t, x, "orders", map[string]any{"word": "' OR 1=1 -- ", "month": 4})
		require.NoError(t, err)
		assert.Empty(t, rows(t, res))
	})
}
