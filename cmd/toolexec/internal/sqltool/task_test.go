package sqltool

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolexec/toolexec"
	"github.com/toolexec/toolexec/cmd/toolexec/internal/config"
)

// countTo is a statement that counts to its argument one row at a time: a
// query that runs as long as its argument asks.
const countTo = `WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < ?) SELECT count(*) AS n FROM c`

// openCount parses a file whose tool count (countTo, with taskSupport
// tasks unless empty) runs on a sqlite file, and binds it.
func openCount(t *testing.T, tasks string) *Tool {
	t.Helper()
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "init.sql"), []byte("CREATE TABLE t (x INTEGER);"), 0o600))
	file := "sources:\n  db: {kind: sqlite, database: db.sqlite, init: init.sql}\n" +
		"tools:\n  count:\n    kind: sqlite-sql\n    source: db\n    description: Counts.\n" +
		"    parameters: [{name: n, type: integer, description: how far}]\n" +
		"    statement: " + countTo + "\n"
	if tasks != "" {
		file += "    taskSupport: " + tasks + "\n"
	}
	cfg, err := config.Parse([]byte(file), "tools.yaml", dir, func(string) (string, bool) { return "", false })
	require.NoError(t, err)
	src, err := Open(context.Background(), cfg.Sources["db"], false)
	require.NoError(t, err)
	t.Cleanup(func() { _ = src.Close() })
	tl, err := New(cfg.Tools[0], src, nil)
	require.NoError(t, err)
	return tl
}

// A call whose context ends (a cancelled task, a timeout) stops its query:
// SQLite is interrupted, and the call returns the context's error rather
// than running on. The query here would count for days.
func TestHandle_ACancelledCallInterruptsItsQuery(t *testing.T) {
	tl := openCount(t, "optional")
	res, err := tl.Handle(context.Background(), map[string]any{"n": 1000.0})
	require.NoError(t, err)
	assert.JSONEq(t, `{"rows":[{"n":1000}],"rowCount":1,"truncated":false}`, string(res.StructuredContent.(json.RawMessage)))

	ctx, cancel := context.WithCancel(context.Background())
	type outcome struct {
		res *toolexec.CallToolResult
		err error
	}
	done := make(chan outcome, 1)
	go func() {
		res, err := tl.Handle(ctx, map[string]any{"n": 1e15})
		done <- outcome{res, err}
	}()
	time.Sleep(100 * time.Millisecond) // let the query start (not a timing assertion: it runs for days)
	cancel()
	select {
	case o := <-done:
		assert.Nil(t, o.res)
		assert.ErrorIs(t, o.err, context.Canceled, "the context's error, which the pipeline reports as the cancellation or timeout")
	case <-time.After(30 * time.Second):
		t.Fatal("the query ran on after its context was cancelled")
	}

	// The connection serves the next call.
	res, err = tl.Handle(context.Background(), map[string]any{"n": 3.0})
	require.NoError(t, err)
	assert.JSONEq(t, `{"rows":[{"n":3}],"rowCount":1,"truncated":false}`, string(res.StructuredContent.(json.RawMessage)))
}
