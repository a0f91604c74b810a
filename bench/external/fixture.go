package external

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strconv"

	_ "modernc.org/sqlite" // the "sqlite" database/sql driver, to create the database both servers read

	"github.com/toolexec/toolexec/bench"
)

// The workload: one tool, ToolName, that reads one row by its primary key
// from a table of Rows rows, called for row ItemID.
const (
	ToolName = "item"
	Rows     = 10_000
	ItemID   = 4242
)

// itemName is the name column of row ItemID: what a correct answer holds.
var itemName = "item-" + strconv.Itoa(ItemID)

const sqliteSchema = `
CREATE TABLE items (id INTEGER PRIMARY KEY, name TEXT NOT NULL, price REAL NOT NULL);
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 10000)
INSERT INTO items SELECT i, 'item-' || i, i * 0.5 FROM n;
`

const postgresSchema = `
DROP TABLE IF EXISTS items;
CREATE TABLE items (id integer PRIMARY KEY, name text NOT NULL, price double precision NOT NULL);
INSERT INTO items SELECT i, 'item-' || i, i * 0.5 FROM generate_series(1, 10000) AS i;
ANALYZE items;
`

// The tools files, in mcp-toolbox's tools.yaml form, which both servers
// read unchanged.
const (
	sqliteTools = `sources:
  db:
    kind: sqlite
    database: %s
tools:
  item:
    kind: sqlite-sql
    source: db
    description: One item by its id.
    parameters:
      - name: id
        type: integer
        description: The item's id.
    statement: SELECT id, name, price FROM items WHERE id = ?
`
	postgresTools = `sources:
  db:
    kind: postgres
    host: %s
    port: "%d"
    database: %s
    user: %s
    password: %s
tools:
  item:
    kind: postgres-sql
    source: db
    description: One item by its id.
    parameters:
      - name: id
        type: integer
        description: The item's id.
    statement: SELECT id, name, price FROM items WHERE id = $1
`
)

// WriteSQLite creates, in dir, a SQLite database of Rows items and a tools
// file serving ToolName from it, and returns the tools file's path.
func WriteSQLite(ctx context.Context, dir string) (string, error) {
	path := filepath.Join(dir, "items.db")
	db, err := sql.Open("sqlite", (&url.URL{Scheme: "file", Path: path}).String())
	if err != nil {
		return "", err
	}
	_, err = db.ExecContext(ctx, sqliteSchema)
	if cerr := db.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return "", fmt.Errorf("creating %s: %w", path, err)
	}
	return writeTools(dir, "sqlite.yaml", fmt.Sprintf(sqliteTools, strconv.Quote(path)))
}

// WritePostgres creates (or creates anew) the items table in pg's database and, in dir, a
// tools file serving ToolName from it, and returns the tools file's path.
func WritePostgres(ctx context.Context, dir string, pg *Postgres) (string, error) {
	if err := pg.Exec(ctx, postgresSchema); err != nil {
		return "", fmt.Errorf("creating the items table: %w", err)
	}
	return writeTools(dir, "postgres.yaml", fmt.Sprintf(postgresTools, pg.Host, pg.Port, pg.Database, pg.User, pg.Password))
}

func writeTools(dir, name, text string) (string, error) {
	path := filepath.Join(dir, name)
	return path, os.WriteFile(path, []byte(text), 0o600)
}

// CallRequest is the MCP tools/call of ToolName for row ItemID, POSTed to
// /mcp (both servers' MCP endpoint) as a stateless Streamable HTTP client
// sends it.
func CallRequest() bench.Request {
	r := bench.WireJSONRPC.CallRequest(ToolName, []byte(`{"id":`+strconv.Itoa(ItemID)+`}`))
	r.Path = "/mcp"
	return r
}

// CheckAnswer checks an answer to CallRequest fully: a JSON-RPC result,
// not a tool error, with a text block whose JSON holds row ItemID (as the
// row itself, or inside a list of rows). Each server words its result its
// own way; both must carry the row.
func CheckAnswer(body []byte) error {
	var env struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Error   json.RawMessage `json:"error"`
		Result  *struct {
			Content []struct {
				Type string `json:"type"`
				Text string `json:"text"`
			} `json:"content"`
			IsError bool `json:"isError"`
		} `json:"result"`
	}
	if err := json.Unmarshal(body, &env); err != nil {
		return fmt.Errorf("answer is not JSON: %w: %.300s", err, body)
	}
	if env.JSONRPC != "2.0" || string(env.ID) != "1" || env.Error != nil || env.Result == nil {
		return fmt.Errorf("answer is not a JSON-RPC result: %.300s", body)
	}
	if env.Result.IsError {
		return fmt.Errorf("the tool failed: %.300s", body)
	}
	for _, c := range env.Result.Content {
		var v any
		if c.Type == "text" && json.Unmarshal([]byte(c.Text), &v) == nil && holdsItem(v) {
			return nil
		}
	}
	return fmt.Errorf("no text block holds row %d: %.300s", ItemID, body)
}

// holdsItem reports whether v is, or holds, the object of row ItemID.
func holdsItem(v any) bool {
	switch v := v.(type) {
	case map[string]any:
		if id, ok := v["id"].(float64); ok && id == ItemID && v["name"] == itemName {
			return true
		}
		for _, x := range v {
			if holdsItem(x) {
				return true
			}
		}
	case []any:
		for _, x := range v {
			if holdsItem(x) {
				return true
			}
		}
	}
	return false
}

// QuickCheck is the check made of every answer under load: cheap enough
// not to weigh on the clients, it still tells a row from an error (an
// error does not hold the row's name, a failed tool says isError true).
func QuickCheck(body []byte) error {
	if !bytes.Contains(body, []byte(itemName)) || bytes.Contains(body, []byte(`"isError":true`)) {
		return fmt.Errorf("wrong answer: %.300s", body)
	}
	return nil
}
