package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolexec/toolexec"
	"github.com/toolexec/toolexec/cmd/toolexec/internal/config"
)

// scriptFiles are the scripts of scriptTools.
var scriptFiles = map[string]string{
	"schema.sql": sqliteSchema,
	"greet.ts": `type Inputs = { name: string; times: number };
export default function greet({ inputs, tool }: { inputs: Inputs; tool: string }) {
  return { greeting: ("Hello, " + inputs.name + "! ").repeat(inputs.times).trim(), tool };
}`,
	"lower.ts": `export default ({ inputs }: { inputs: Record<string, unknown> }) =>
  ({ ...inputs, name: String(inputs.name).trim().toLowerCase() });`,
	"shape.ts": `type Row = { id: number; name: string; price: number };
export default ({ results, tool }: { results: Row[]; tool: string }) =>
  ({ tool, items: results.map((r) => ({ id: r.id, label: r.name.toUpperCase(), cents: Math.round(r.price * 100) })) });`,
	"wrong.ts":   `export default ({ inputs }) => ({ name: 42 });`,
	"notobj.ts":  `export default () => [1, 2];`,
	"throws.ts":  `export default () => { throw new Error("the order is closed"); };`,
	"loop.ts":    `export default () => { for (;;) {} };`,
	"count.js":   `let n = 0; export default ({ inputs }) => ({ n: ++n, echo: inputs.echo ?? null });`,
	"rows.ts":    `export default ({ results }) => results.length;`,
	"version.ts": `export default () => ({ v: 1 });`,
}

const scriptTools = `
sources:
  db: {kind: sqlite, database: test.db, init: schema.sql}
tools:
  greet:
    kind: script
    source: greet.ts
    description: Greets someone.
    parameters:
      - {name: name, type: string, description: Who.}
      - {name: times, type: integer, description: How often., default: 1, minValue: 1, maxValue: 3}
    annotations: {readOnlyHint: true}
  by-name:
    kind: sqlite-sql
    source: db
    description: An item by name.
    parameters: [{name: name, type: string, description: The name.}]
    statement: SELECT id, name, price FROM items WHERE name = ?
    transforms: {input: lower.ts, output: shape.ts}
  wrong-input:
    kind: sqlite-sql
    source: db
    description: An input transform that breaks the schema.
    parameters: [{name: name, type: string, description: The name.}]
    statement: SELECT id FROM items WHERE name = ?
    transforms: {input: wrong.ts}
  not-object:
    kind: script
    source: count.js
    description: An input transform that returns no object.
    transforms: {input: notobj.ts}
  throws:
    kind: script
    source: throws.ts
    description: Throws.
  throws-in-output:
    kind: sqlite-sql
    source: db
    description: An output transform that throws.
    statement: SELECT 1 AS one
    transforms: {output: throws.ts}
  loops:
    kind: script
    source: loop.ts
    description: Never ends.
    timeout: 200ms
  count:
    kind: script
    source: count.js
    description: Counts its calls.
    parameters: [{name: echo, type: string, description: Echoed., required: false}]
  count-rows:
    kind: sqlite-sql
    source: db
    description: How many items.
    statement: SELECT id FROM items
    maxRows: 2
    transforms: {output: rows.ts}
`

// surface calls tool with args on one surface of srv and returns what the
// caller reads: the result's structuredContent (nil without one) and
// text, or the error's message; failed says the call failed.
type surface struct {
	name string
	call func(t *testing.T, srv *httptest.Server, tool, args string) (sc any, text string, failed bool)
}

var callSurfaces = []surface{
	{"REST", func(t *testing.T, srv *httptest.Server, tool, args string) (any, string, bool) {
		code, body := postJSON(t, srv.URL+"/api/tools/"+tool+"/call", args)
		return body["structuredContent"], contentText(body), code != http.StatusOK || body["isError"] == true
	}},
	{"MCP", func(t *testing.T, srv *httptest.Server, tool, args string) (any, string, bool) {
		res := mcpToolCall(t, srv.URL, tool, args)
		return res["structuredContent"], contentText(res), res["isError"] == true
	}},
	{"HandsAI", func(t *testing.T, srv *httptest.Server, tool, args string) (any, string, bool) {
		_, body := postJSON(t, srv.URL+"/mcp/tools/call", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"`+tool+`","arguments":`+args+`}}`)
		if e, ok := body["error"].(map[string]any); ok {
			return nil, e["message"].(string), true
		}
		res := body["result"].(map[string]any)
		return res["structuredContent"], contentText(res), res["isError"] == true
	}},
	{"OXP", func(t *testing.T, srv *httptest.Server, tool, args string) (any, string, bool) {
		_, body := postJSON(t, srv.URL+"/oxp/tools/call", `{"tool_id":"Tools.`+tool+`","input":`+args+`}`)
		if body["success"] != true {
			msg := fmt.Sprint(body)
			if e, ok := body["error"].(map[string]any); ok {
				msg, _ = e["message"].(string)
			}
			return nil, msg, true
		}
		b, _ := json.Marshal(body["value"])
		var sc any
		if v, ok := body["value"].(map[string]any); ok {
			sc = v
		}
		return sc, string(b), false
	}},
	{"toolbox", func(t *testing.T, srv *httptest.Server, tool, args string) (any, string, bool) {
		_, body := postJSON(t, srv.URL+"/api/tool/"+tool+"/invoke", args)
		s, _ := body["result"].(string)
		var e map[string]any
		if json.Unmarshal([]byte(s), &e) == nil && e["error"] != nil && len(e) == 1 {
			return nil, e["error"].(string), true
		}
		var sc any
		if strings.HasPrefix(s, "{") {
			_ = json.Unmarshal([]byte(s), &sc)
		}
		return sc, s, false
	}},
}

// contentText joins the text blocks of a result.
func contentText(res map[string]any) string {
	return strings.Join(contentTexts(res), "\n")
}

func scriptServer(t *testing.T) *httptest.Server {
	t.Helper()
	set := build(t, scriptTools, scriptFiles, nil)
	h, _ := Handler(NewProvider(set), Options{Timeout: 5 * time.Second})
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv
}

// A script tool, and a SQLite tool with an input and an output transform,
// answer the same on every surface: the script's value as the result's
// text and structuredContent, the transformed arguments bound, the rows
// reshaped.
func TestScripts_EveryStageOnEverySurface(t *testing.T) {
	srv := scriptServer(t)
	for _, s := range callSurfaces {
		t.Run(s.name, func(t *testing.T) {
			sc, text, failed := s.call(t, srv, "greet", `{"name": "Ada", "times": 2}`)
			require.False(t, failed, text)
			want := map[string]any{"greeting": "Hello, Ada! Hello, Ada!", "tool": "greet"}
			assert.Equal(t, want, sc)
			var got map[string]any
			require.NoError(t, json.Unmarshal([]byte(text), &got), text)
			assert.Equal(t, want, got)

			sc, _, failed = s.call(t, srv, "greet", `{"name": "Bo"}`)
			require.False(t, failed)
			assert.Equal(t, "Hello, Bo!", sc.(map[string]any)["greeting"], "a parameter's default is passed")

			sc, text, failed = s.call(t, srv, "by-name", `{"name": "  PEAR "}`)
			require.False(t, failed, text)
			assert.Equal(t, map[string]any{"tool": "by-name", "items": []any{map[string]any{"id": 2.0, "label": "PEAR", "cents": 225.0}}}, sc)
		})
	}
}

// Validation runs before a script tool's script, and after an input
// transform, on its value; a script's throw is a tool error with its
// message alone; a runaway script ends at its timeout.
func TestScripts_FailuresOnEverySurface(t *testing.T) {
	srv := scriptServer(t)
	cases := []struct{ tool, args, msg string }{
		{"greet", `{"name": 7}`, "name"},
		{"greet", `{"name": "x", "times": 9}`, "times"},
		{"greet", `{"name": "x", "extra": 1}`, "extra"},
		{"wrong-input", `{"name": "pear"}`, "name"},
		{"not-object", `{}`, "the input transform must return an object of arguments"},
		{"throws", `{}`, "the order is closed"},
		{"throws-in-output", `{}`, "the order is closed"},
		{"loops", `{}`, "Tool loops timed out after 200ms"},
	}
	for _, s := range callSurfaces {
		t.Run(s.name, func(t *testing.T) {
			for _, c := range cases {
				_, text, failed := s.call(t, srv, c.tool, c.args)
				assert.True(t, failed, "%s %s: %s", c.tool, c.args, text)
				assert.Contains(t, text, c.msg, "%s %s", c.tool, c.args)
				assert.NotContains(t, text, ".ts", "no path or stack reaches the caller")
			}
		})
	}
	code, body := postJSON(t, srv.URL+"/api/tools/wrong-input/call", `{"name": "pear"}`)
	assert.Equal(t, http.StatusUnprocessableEntity, code, "the transformed arguments fail validation as any: %v", body)
}

// A script that never ends stops at its timeout, and the calls of other
// tools, and later calls of the same tool, go on meanwhile.
func TestScripts_ARunawayScriptStopsAtItsTimeoutAndOthersGoOn(t *testing.T) {
	srv := scriptServer(t)
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			code, body := postJSON(t, srv.URL+"/api/tools/loops/call", `{}`)
			assert.Equal(t, http.StatusInternalServerError, code)
			assert.Contains(t, contentText(body), "timed out after 200ms")
		}()
	}
	start := time.Now()
	for time.Since(start) < 300*time.Millisecond {
		code, body := postJSON(t, srv.URL+"/api/tools/greet/call", `{"name": "Ada"}`)
		require.Equal(t, http.StatusOK, code, body)
	}
	wg.Wait()
	code, body := postJSON(t, srv.URL+"/api/tools/count/call", `{"echo": "still here"}`)
	require.Equal(t, http.StatusOK, code, body)
	assert.Equal(t, "still here", body["structuredContent"].(map[string]any)["echo"])
}

// An output transform of a SQL tool whose rows were cut gets the rows
// kept, and its result keeps the note that says they were cut.
func TestScripts_OutputTransformKeepsTheTruncationNote(t *testing.T) {
	x := executor(build(t, scriptTools, scriptFiles, nil), Options{})
	res, err := call(t, x, "count-rows", map[string]any{})
	require.NoError(t, err)
	assert.Equal(t, []string{"2", "[truncated: more than 2 rows; only the first 2 are returned]"}, texts(t, res))
}

// An http tool's output transform gets the JSON the upstream answered.
func TestScripts_HTTPToolOutputTransform(t *testing.T) {
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"city": %q, "temp_f": 68}`, r.URL.Query().Get("city"))
	}))
	defer up.Close()
	set := build(t, fmt.Sprintf(`
sources:
  api: {kind: http, baseUrl: %s}
tools:
  weather:
    kind: http
    source: api
    method: GET
    path: /weather
    description: The weather.
    queryParams: [{name: city, type: string, description: The city.}]
    transforms: {output: celsius.ts}
`, up.URL), map[string]string{"celsius.ts": `export default ({ results }) => ({ city: results.city, temp_c: Math.round((results.temp_f - 32) * 5 / 9) });`}, nil)
	res, err := call(t, executor(set, Options{}), "weather", map[string]any{"city": "Oslo"})
	require.NoError(t, err)
	assert.Equal(t, map[string]any{"city": "Oslo", "temp_c": 20.0}, structured(t, res))
}

// A script's fetch goes through the same guard as an http source: a host
// name that resolves to a private address is refused before any dial.
func TestScripts_FetchToAPrivateAddressIsRefusedBeforeDialling(t *testing.T) {
	var lookups atomic.Int32
	var dialled []string
	var mu sync.Mutex
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "peek.ts"), []byte(`export default async () => {
  try { await fetch("http://metadata.internal.example.com/latest/meta-data"); return "reached"; }
  catch (e) { return e.message; }
};`), 0o600))
	cfg, err := config.Parse([]byte(`
tools:
  peek:
    kind: script
    source: peek.ts
    description: Peeks.
    allowedHosts: [metadata.internal.example.com]
`), "tools.yaml", dir, nil)
	require.NoError(t, err)
	set, err := buildWith(context.Background(), cfg, nil, resolveAs(&lookups, "169.254.169.254"), loopbackOnlyDial(&dialled, &mu))
	require.NoError(t, err)
	t.Cleanup(func() { _ = set.Close() })
	res, err := call(t, executor(set, Options{}), "peek", map[string]any{})
	require.NoError(t, err)
	assert.Equal(t, `"fetch failed: the upstream request was refused: the upstream host resolves to a private or local network address"`, res.Text())
	assert.Equal(t, int32(1), lookups.Load())
	mu.Lock()
	assert.Empty(t, dialled, "nothing was dialled")
	mu.Unlock()
}

// A script that cannot load is a problem of the file at its line and
// column, and the set is not built.
func TestScripts_LoadProblems(t *testing.T) {
	for _, c := range []struct{ name, body, want string }{
		{"syntax", "export default () => {\n  return [1,;\n};\n", "bad.ts:2:13: Unexpected \";\""},
		{"no default export", "export const x = 1;\n", "bad.ts:1:1: the script has no default export: export default the function to run"},
		{"top-level throw", "throw new Error('missing key');\nexport default () => 1;\n", "bad.ts:1:1: the script's top-level code failed: missing key"},
		{"default not a function", "export default {};\n", "bad.ts:1:1: the default export of the script is not a function"},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			require.NoError(t, os.WriteFile(filepath.Join(dir, "bad.ts"), []byte(c.body), 0o600))
			path := filepath.Join(dir, "tools.yaml")
			require.NoError(t, os.WriteFile(path, []byte("tools:\n  bad: {kind: script, source: bad.ts, description: d}\n"), 0o600))
			_, err := FileLoader(path, nil, nil)(context.Background())
			var ps config.Problems
			require.True(t, errors.As(err, &ps), "%v", err)
			require.Len(t, ps, 1)
			assert.Equal(t, filepath.Join(dir, c.want), ps[0].String())
		})
	}
}

// A changed script is reloaded, under load, with no failed call; its
// tools file does not change.
func TestReload_AChangedScriptUnderLoadLosesNoCall(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "tools.yaml")
	require.NoError(t, os.WriteFile(path, []byte("tools:\n  version: {kind: script, source: lib/version.ts, description: The version.}\n"), 0o600))
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "lib"), 0o755))
	writeVersion := func(v int) {
		// The script imports the file that changes.
		require.NoError(t, os.WriteFile(filepath.Join(dir, "lib", "v.ts"), []byte(fmt.Sprintf("export const v: number = %d;\n", v)), 0o600))
	}
	require.NoError(t, os.WriteFile(filepath.Join(dir, "lib", "version.ts"), []byte("import { v } from './v';\nexport default () => ({ v });\n"), 0o600))
	writeVersion(1)
	watch := NewWatch(path)
	load := FileLoader(path, nil, nil)
	set, err := load(t.Context())
	require.NoError(t, err)
	p := NewProvider(set)
	t.Cleanup(func() { _ = p.Current().Close() })
	x := Options{}.executor(p)

	ctx, cancel := context.WithCancel(t.Context())
	watchDone := make(chan struct{})
	go func() { watch.Run(ctx, p, 5*time.Millisecond, load, nil); close(watchDone) }()

	var (
		calls, failures atomic.Int64
		seen            sync.Map
		wg              sync.WaitGroup
	)
	loadCtx, stopLoad := context.WithCancel(t.Context())
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for loadCtx.Err() == nil {
				res, err := x.Call(context.Background(), toolexec.CallRequest{Name: "version"})
				calls.Add(1)
				if err != nil || res.IsError {
					failures.Add(1)
					continue
				}
				seen.Store(structured(t, res)["v"], true)
			}
		}()
	}
	const last = 5
	for v := 2; v <= last; v++ {
		time.Sleep(40 * time.Millisecond)
		if v == 4 {
			// A broken script in between is ignored: version 3 keeps serving.
			require.NoError(t, os.WriteFile(filepath.Join(dir, "lib", "v.ts"), []byte("export const v = ;\n"), 0o600))
			time.Sleep(40 * time.Millisecond)
		}
		writeVersion(v)
	}
	require.Eventually(t, func() bool {
		_, ok := seen.Load(float64(last))
		return ok
	}, 10*time.Second, 10*time.Millisecond, "the last script is served")
	stopLoad()
	wg.Wait()
	cancel()
	<-watchDone
	assert.Zero(t, failures.Load(), "no call failed during the reloads (%d calls)", calls.Load())
	_, sawFirst := seen.Load(float64(1))
	assert.True(t, sawFirst)
}
