package main

import (
	"bytes"
	"context"
	"encoding/json"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// scriptE2ETools is a TypeScript tool and transforms on a SQLite tool.
const scriptE2ETools = `
sources:
  db:
    kind: sqlite
    database: shop.db
    init: schema.sql
tools:
  find:
    kind: sqlite-sql
    source: db
    description: Find an item by id.
    parameters:
      - {name: id, type: integer, description: The id.}
    statement: SELECT id, name FROM items WHERE id = ?
    transforms:
      input: scripts/id.ts
      output: scripts/label.ts
  spin:
    kind: script
    source: scripts/spin.ts
    description: Spins until told to stop, as a task.
    parameters:
      - {name: forever, type: boolean, description: Never stop.}
    taskSupport: optional
    maxConcurrency: 1
    timeout: 10m
`

var scriptE2EFiles = map[string]string{
	"scripts/id.ts":    `export default ({ inputs }: { inputs: { id: unknown } }) => ({ id: Number(inputs.id) });`,
	"scripts/label.ts": `export default ({ results }: { results: { id: number; name: string }[] }) => ({ label: results.map((r) => r.id + ": " + r.name).join(", ") });`,
	"scripts/spin.ts": `export default ({ inputs }: { inputs: { forever: boolean } }) => {
  while (inputs.forever) {}
  return { spun: true };
};`,
}

func writeFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, body := range files {
		p := filepath.Join(dir, name)
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(body), 0o600))
	}
}

// A script tool and transforms over stdio, as MCP clients start servers.
func TestServeStdio_ScriptsAndTransforms(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, scriptE2EFiles)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "tools.yaml"), []byte(scriptE2ETools), 0o600))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "schema.sql"), []byte(e2eSchema), 0o600))
	cmd, stderr := commandFor(t, nil, "serve", "--config", filepath.Join(dir, "tools.yaml"), "--stdio")
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	client := sdk.NewClient(&sdk.Implementation{Name: "stdio-test", Version: "1"}, nil)
	session, err := client.Connect(ctx, &sdk.CommandTransport{Command: cmd, TerminateDuration: 20 * time.Second}, nil)
	require.NoError(t, err, stderr.String())
	defer func() { _ = session.Close() }()

	// The input transform turns the string into the integer the schema
	// wants; the output transform labels the rows.
	res, err := session.CallTool(ctx, &sdk.CallToolParams{Name: "find", Arguments: map[string]any{"id": "2"}})
	require.NoError(t, err)
	require.False(t, res.IsError, "%v", res.Content)
	assert.Equal(t, map[string]any{"label": "2: pear"}, res.StructuredContent)

	res, err = session.CallTool(ctx, &sdk.CallToolParams{Name: "spin", Arguments: map[string]any{"forever": false}})
	require.NoError(t, err)
	assert.Equal(t, `{"spun":true}`, res.Content[0].(*sdk.TextContent).Text)
}

// Cancelling a task that runs a script interrupts the script: its one
// slot (maxConcurrency: 1) serves the next call at once, where a script
// left running would hold it until its 10-minute timeout.
func TestServe_CancellingAScriptTaskInterruptsIt(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, scriptE2EFiles)
	base, _ := startServerWith(t, dir, scriptE2ETools, map[string]string{"TOOLEXEC_TOKEN": "tok"})
	u := createTask(t, base, "spin", `{"forever": true}`, taskAuth...)
	pollTask(t, u, "working", taskAuth...)
	time.Sleep(100 * time.Millisecond)

	code, task := taskAt(t, http.MethodDelete, u, taskAuth...)
	require.Equal(t, http.StatusOK, code)
	assert.Equal(t, "cancelled", task.Status)

	resp, body := do(t, taskClient, http.MethodPost, base+"/api/tools/spin/call", `{"forever": false}`, taskAuth...)
	require.Equal(t, http.StatusOK, resp.StatusCode, string(body))
	var res struct {
		StructuredContent map[string]any `json:"structuredContent"`
	}
	require.NoError(t, json.Unmarshal(body, &res))
	assert.Equal(t, map[string]any{"spun": true}, res.StructuredContent)
}

// validate bundles and compiles the scripts, and reports their problems
// at their files, lines and columns, without running them.
func TestValidate_ReportsScriptProblemsAtTheirLines(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, scriptE2EFiles)
	writeFiles(t, dir, map[string]string{
		"scripts/label.ts": "export default ({ results }) => {\n  return results.map((r) => r.name +);\n};\n",
		"scripts/id.ts":    "export function id(p) { return p.inputs; }\n",
		// Top-level code is not run by validate.
		"scripts/spin.ts": "throw new Error('not run');\nexport default () => 1;\n",
	})
	path := filepath.Join(dir, "tools.yaml")
	require.NoError(t, os.WriteFile(path, []byte(scriptE2ETools), 0o600))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "schema.sql"), []byte(e2eSchema), 0o600))
	var out, errOut bytes.Buffer
	code := run(context.Background(), []string{"validate", "--config", path}, nil, nil, &out, &errOut)
	assert.Equal(t, 1, code)
	assert.Contains(t, errOut.String(), filepath.Join(dir, "scripts", "label.ts")+`:2:37: Unexpected ")"`)
	assert.Contains(t, errOut.String(), filepath.Join(dir, "scripts", "id.ts")+":1:1: the script has no default export")
	assert.NotContains(t, errOut.String(), "spin.ts")
	assert.Contains(t, errOut.String(), "2 problem(s)")
}

// `toolexec serve --config DIR` serves a Hyperterse project, and reloads
// it when a tool is added.
func TestServe_AHyperterseProject(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		".hyperterse":                   "name: demo\n",
		"app/adapters/db.terse":         "connector: sqlite\nconnection_string: ':memory:'\n",
		"app/tools/greet/config.terse":  "description: Greets.\nhandler: ./handler.ts\ninputs:\n  name: {type: string}\n",
		"app/tools/greet/handler.ts":    "export default ({ inputs }: { inputs: { name: string } }) => ({ hello: inputs.name });\n",
		"app/tools/answer/config.terse": "description: The answer.\nuse: db\nstatement: SELECT {{ inputs.n }} * 6 AS answer\ninputs:\n  n: {type: int}\n",
	})
	ctx, cancel := context.WithCancel(context.Background())
	ready := make(chan net.Addr, 1)
	done := make(chan int, 1)
	var out, errOut bytes.Buffer
	go func() {
		done <- serve(ctx, []string{"--config", dir, "--addr", "127.0.0.1:0", "--reload-interval", "20ms"}, func(string) (string, bool) { return "", false }, nil, &out, &errOut, ready)
	}()
	var addr net.Addr
	select {
	case addr = <-ready:
	case code := <-done:
		t.Fatalf("serve exited %d: %s", code, errOut.String())
	}
	defer func() { cancel(); assert.Equal(t, 0, <-done) }()
	base := "http://" + addr.String()

	code, body := post(t, base+"/api/tools/greet/call", `{"name": "Ada"}`)
	require.Equal(t, http.StatusOK, code, body)
	assert.Equal(t, map[string]any{"hello": "Ada"}, body["structuredContent"])
	code, body = post(t, base+"/api/tools/answer/call", `{"n": 7}`)
	require.Equal(t, http.StatusOK, code, body)
	assert.Equal(t, []any{map[string]any{"answer": 42.0}}, body["structuredContent"].(map[string]any)["rows"])

	writeFiles(t, dir, map[string]string{
		"app/tools/later/config.terse": "description: Added later.\nhandler: ./h.js\n",
		"app/tools/later/h.js":         "export default () => 'later';\n",
	})
	require.Eventually(t, func() bool {
		code, _ := post(t, base+"/api/tools/later/call", `{}`)
		return code == http.StatusOK
	}, 10*time.Second, 20*time.Millisecond, "a tool added to the project is served")
}

func TestValidate_AHyperterseProject(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"app/adapters/cache.terse":          "connector: redis\nconnection_string: redis://localhost:6379/0\n",
		"app/adapters/oracle.terse":         "connector: oracle\nconnection_string: x\n",
		"app/tools/get-cached/config.terse": "description: A cached value.\nuse: cache\nstatement: 'GET {{ inputs.key }}'\ninputs:\n  key: {type: string}\n",
		"app/tools/set-cached/config.terse": "description: Caches a value.\nuse: cache\nstatement: 'SET k {{ inputs.v }}'\ninputs:\n  v: {type: string}\n",
	})
	var out, errOut bytes.Buffer
	code := run(context.Background(), []string{"validate", "--config", dir}, nil, nil, &out, &errOut)
	assert.Equal(t, 1, code)
	assert.Contains(t, errOut.String(), filepath.Join(dir, "app", "adapters", "oracle.terse")+`:1:12: adapter "oracle": connector "oracle" is not one of postgres, mysql, sqlite, redis, mongodb`)
	assert.Contains(t, errOut.String(), filepath.Join(dir, "app", "tools", "set-cached", "config.terse")+`:3:12: tool "set-cached" statement: SET writes, and the tool is read-only`)
	assert.NotContains(t, errOut.String(), "get-cached", "a redis adapter's read is served")
}
