package script

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// compile writes files into a temporary directory and compiles the one
// named entry (with an optional #export).
func compile(t testing.TB, files map[string]string, entry string) (*Program, error) {
	t.Helper()
	dir := t.TempDir()
	for name, body := range files {
		p := filepath.Join(dir, name)
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(body), 0o600))
	}
	path, export, _ := strings.Cut(entry, "#")
	return Compile(Source{Path: filepath.Join(dir, path), Export: export, Dir: dir, Shown: "proj"})
}

func mustCompile(t testing.TB, files map[string]string, entry string) *Program {
	t.Helper()
	p, err := compile(t, files, entry)
	require.NoError(t, err)
	return p
}

// logBuffer is a debug-level logger and what it wrote.
type logBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (l *logBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.Write(p)
}

func (l *logBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.String()
}

func (l *logBuffer) logger() *slog.Logger {
	return slog.New(slog.NewTextHandler(l, &slog.HandlerOptions{Level: slog.LevelDebug}))
}

func callJSON(t testing.TB, r *Runner, inputs map[string]any) (any, error) {
	t.Helper()
	out, err := r.CallInputs(context.Background(), inputs)
	if err != nil {
		return nil, err
	}
	var v any
	require.NoError(t, json.Unmarshal(out, &v), "%s", out)
	return v, nil
}

func TestCompile_TypeScriptWithImports(t *testing.T) {
	p := mustCompile(t, map[string]string{
		"tools/add.ts": `import { twice } from "./lib/twice";
type Payload = { inputs: { a: number; b?: number }; tool: string };
export default async function add(p: Payload): Promise<{ sum: number; tool: string }> {
  const b = p.inputs.b ?? 0;
  await Promise.resolve();
  return { sum: twice(p.inputs.a) / 2 + b, tool: p.tool };
}`,
		"tools/lib/twice.ts": `export const twice = (n: number): number => n * 2;`,
	}, "tools/add.ts")
	assert.Equal(t, filepath.Join("proj", "tools", "add.ts"), p.Name)
	assert.Equal(t, "default", p.Export)
	require.Len(t, p.Inputs, 2)
	assert.True(t, strings.HasSuffix(p.Inputs[0], filepath.Join("tools", "add.ts")))
	assert.True(t, strings.HasSuffix(p.Inputs[1], filepath.Join("tools", "lib", "twice.ts")))

	v, err := callJSON(t, p.Runner(Options{Tool: "add"}), map[string]any{"a": 2.0, "b": 3.0})
	require.NoError(t, err)
	assert.Equal(t, map[string]any{"sum": 5.0, "tool": "add"}, v)
}

func TestCompile_ProblemsAtFileLineAndColumn(t *testing.T) {
	cases := []struct {
		name  string
		files map[string]string
		entry string
		want  Problem
	}{
		{"a syntax error", map[string]string{"a.ts": "export default function () {\n  return 1 +;\n}\n"}, "a.ts",
			Problem{File: filepath.Join("proj", "a.ts"), Line: 2, Column: 13, Message: "Unexpected \";\""}},
		{"a syntax error in an import", map[string]string{"a.ts": "import { x } from './b';\nexport default () => x;\n", "b.ts": "export const x = (;\n"}, "a.ts",
			Problem{File: filepath.Join("proj", "b.ts"), Line: 1, Column: 19, Message: "Unexpected \";\""}},
		{"no default export", map[string]string{"a.ts": "export function handler() { return 1 }\n"}, "a.ts",
			Problem{File: filepath.Join("proj", "a.ts"), Line: 1, Column: 1, Message: "the script has no default export: export default the function to run"}},
		{"no such named export", map[string]string{"a.ts": "export default () => 1;\n"}, "a.ts#shape",
			Problem{File: filepath.Join("proj", "a.ts"), Line: 1, Column: 1, Message: `the script exports no "shape"`}},
		{"a module of Node.js", map[string]string{"a.ts": "import { readFileSync } from 'fs';\nexport default () => readFileSync('/etc/passwd', 'utf8');\n"}, "a.ts",
			Problem{File: filepath.Join("proj", "a.ts"), Line: 1, Column: 30}},
		{"a missing file", nil, "nope.ts",
			Problem{File: filepath.Join("proj", "nope.ts"), Line: 1, Column: 1, Message: "the script cannot be read"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := compile(t, c.files, c.entry)
			var ps Problems
			require.True(t, errors.As(err, &ps), "%v", err)
			require.NotEmpty(t, ps)
			got := ps[0]
			if c.want.Message == "" {
				assert.Contains(t, got.Message, "fs")
				got.Message = ""
			}
			assert.Equal(t, c.want, got)
		})
	}
}

func TestCompile_NamedExport(t *testing.T) {
	p := mustCompile(t, map[string]string{"a.ts": "export default () => 1;\nexport function shape(p: any) { return {n: p.inputs.n + 1} }\n"}, "a.ts#shape")
	v, err := callJSON(t, p.Runner(Options{}), map[string]any{"n": 1.0})
	require.NoError(t, err)
	assert.Equal(t, map[string]any{"n": 2.0}, v)
}

func TestRun_ADefaultExportThatIsNotAFunction(t *testing.T) {
	p := mustCompile(t, map[string]string{"a.js": "export default 42;\n"}, "a.js")
	err := p.Runner(Options{}).Warm()
	assert.EqualError(t, err, "the default export of the script is not a function")
}

func TestRun_TopLevelCodeThatThrowsOrLoops(t *testing.T) {
	p := mustCompile(t, map[string]string{"a.js": "throw new Error('no config');\nexport default () => 1;\n"}, "a.js")
	assert.EqualError(t, p.Runner(Options{}).Warm(), "the script's top-level code failed: no config")

	p = mustCompile(t, map[string]string{"a.js": "for (;;) {}\nexport default () => 1;\n"}, "a.js")
	start := time.Now()
	assert.EqualError(t, p.Runner(Options{}).Warm(), "the script's top-level code ran longer than 1s")
	assert.Less(t, time.Since(start), 10*time.Second)
}

// TestRun_RuntimesArePooled checks that calls reuse runtimes (module
// state survives from call to call) rather than make one per call.
func TestRun_RuntimesArePooled(t *testing.T) {
	p := mustCompile(t, map[string]string{"a.js": "let n = 0;\nexport default () => ++n;\n"}, "a.js")
	r := p.Runner(Options{})
	for want := 1.0; want <= 5; want++ {
		v, err := callJSON(t, r, nil)
		require.NoError(t, err)
		assert.Equal(t, want, v)
	}
}

func TestRun_BadScripts(t *testing.T) {
	const script = `export default function (p) {
  switch (p.inputs.what) {
  case "throw": throw new Error("the order is closed");
  case "type": { const o = undefined; o.x; break; }
  case "string": throw "plain text";
  case "object": throw {code: 7};
  case "reject": return Promise.reject(new RangeError("too far"));
  case "pending": return new Promise(() => {});
  case "undefined": return undefined;
  case "nothing": return;
  case "function": return () => 1;
  case "cycle": { const a = {}; a.self = a; return {a}; }
  case "bigint": return {n: 10n};
  case "deep": { let v = {}; for (let i = 0; i < 500; i++) v = {v}; return v; }
  case "recursion": { const f = (n) => f(n + 1); return f(0); }
  case "repeat": return "x".repeat(1e9);
  case "pad": return "x".padStart(1e10);
  case "join": return new Array(8000000).join("abc");
  case "array": return new Array(1e10);
  case "from": return Array.from({length: 1e12});
  case "buffer": return new ArrayBuffer(1e12);
  case "typed": return new Float64Array(1e10);
  case "big": return "x".repeat(2000000);
  case "many": return Array.from({length: 300000}, (_, i) => i);
  }
  return "ok";
}`
	logs := &logBuffer{}
	r := mustCompile(t, map[string]string{"a.js": script}, "a.js").Runner(Options{Tool: "t", Logger: logs.logger()})
	cases := map[string]string{
		"throw":     "the order is closed",
		"type":      "TypeError: Cannot read property 'x' of undefined",
		"string":    "plain text",
		"object":    `{"code":7}`,
		"reject":    "RangeError: too far",
		"pending":   "the script's promise never settled (scripts have no timers: use await on fetch only)",
		"undefined": "the script returned undefined: return a JSON value (null for nothing)",
		"nothing":   "the script returned undefined: return a JSON value (null for nothing)",
		"function":  "the script returned a function: return a JSON value",
		"cycle":     "the script returned a circular value, which has no JSON",
		"bigint":    "the script returned a BigInt, which has no JSON: convert it to a string or a number",
		"deep":      "the script returned a value nested deeper than 200 levels",
		"recursion": "RangeError: maximum call stack size exceeded",
		"repeat":    "RangeError: Invalid string length: a script's strings hold at most 8388608 characters",
		"pad":       "RangeError: Invalid string length: a script's strings hold at most 8388608 characters",
		"join":      "RangeError: Invalid string length: a script's strings hold at most 8388608 characters",
		"array":     "RangeError: Invalid length: a script's arrays and buffers hold at most 8388608 elements",
		"from":      "RangeError: Invalid length: a script's arrays and buffers hold at most 8388608 elements",
		"buffer":    "RangeError: Invalid length: a script's arrays and buffers hold at most 8388608 elements",
		"typed":     "RangeError: Invalid length: a script's arrays and buffers hold at most 8388608 elements",
		"big":       "the script returned more than 1048576 bytes of JSON",
		"many":      "the script returned more than 1048576 bytes of JSON",
	}
	for what, msg := range cases {
		t.Run(what, func(t *testing.T) {
			_, err := r.CallInputs(context.Background(), map[string]any{"what": what})
			var e *Error
			require.True(t, errors.As(err, &e), "%v", err)
			assert.Equal(t, msg, e.Message)
			assert.NotContains(t, e.Message, "a.js", "no stack or path reaches the caller")
		})
	}
	v, err := callJSON(t, r, map[string]any{"what": "fine"})
	require.NoError(t, err)
	assert.Equal(t, "ok", v, "the runtime goes on after every failure")
	assert.Contains(t, logs.String(), "a.js:3:", "the stack of a thrown error is logged, with the script's own line")
}

func TestRun_AnInfiniteLoopStopsAtTheDeadline(t *testing.T) {
	p := mustCompile(t, map[string]string{"a.js": "let calls = 0;\nexport default (p) => { calls++; if (p.inputs.loop) for (;;) {} return calls; };\n"}, "a.js")
	r := p.Runner(Options{})
	v, err := callJSON(t, r, map[string]any{})
	require.NoError(t, err)
	assert.Equal(t, 1.0, v)

	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err = r.CallInputs(ctx, map[string]any{"loop": true})
	assert.ErrorIs(t, err, context.DeadlineExceeded)
	assert.Less(t, time.Since(start), 5*time.Second)

	// The interrupted runtime is dropped: the next call runs on a new one.
	v, err = callJSON(t, r, map[string]any{})
	require.NoError(t, err)
	assert.Equal(t, 1.0, v)
}

func TestRun_CancelInterrupts(t *testing.T) {
	p := mustCompile(t, map[string]string{"a.js": "export default () => { for (;;) {} };\n"}, "a.js")
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(20*time.Millisecond, cancel)
	_, err := p.Runner(Options{}).CallInputs(ctx, nil)
	assert.ErrorIs(t, err, context.Canceled)
}

func TestRun_NoHostOfTheServer(t *testing.T) {
	p := mustCompile(t, map[string]string{"a.js": `export default () => [
  typeof setTimeout, typeof setInterval, typeof setImmediate, typeof queueMicrotask,
  typeof globalThis.require, typeof process, typeof globalThis.module, typeof Deno, typeof Bun, typeof globalThis.fs,
];`}, "a.js")
	v, err := callJSON(t, p.Runner(Options{}), nil)
	require.NoError(t, err)
	for i, typ := range v.([]any) {
		assert.Equal(t, "undefined", typ, "global %d", i)
	}
}

func TestRun_TheBoundsKeepTheLanguageWorking(t *testing.T) {
	p := mustCompile(t, map[string]string{"a.js": `export default () => [
  [].constructor === Array, new Array(3).length, Array(2, 3), Array.isArray([]), [1, 2] instanceof Array,
  Array.from({length: 2}, (_, i) => i), Array.of(7), new Uint8Array(2).constructor === Uint8Array,
  Array.from(new Uint8Array([1, 2]).map((x) => x * 2)), new ArrayBuffer(4).byteLength,
  "ab".repeat(2), "7".padStart(3, "0"), "7".padEnd(2), [1, null, undefined, "x"].join("-"), String([1, [2, 3]]),
  Object.getPrototypeOf(Array) === Function.prototype,
];`}, "a.js")
	v, err := callJSON(t, p.Runner(Options{}), nil)
	require.NoError(t, err)
	assert.Equal(t, []any{true, 3.0, []any{2.0, 3.0}, true, true, []any{0.0, 1.0}, []any{7.0}, true,
		[]any{2.0, 4.0}, 4.0, "abab", "007", "7 ", "1---x", "1,2,3", true}, v)
}

// TestRun_EncodesAsJSONStringify compares the encoding of returned values
// with JSON.stringify in the same runtime (except for the HTML
// characters, which encoding/json escapes too).
func TestRun_EncodesAsJSONStringify(t *testing.T) {
	p := mustCompile(t, map[string]string{"a.js": `const values = [
  null, true, 0, -0, 1.5, 1e21, 1e-7, 123456789012345680000, 2 ** 53 + 2, NaN, -Infinity, "héllo\n\"\\\u0001",
  [1, undefined, () => 1, Symbol("s")], {a: undefined, b: () => 1, c: 1, [Symbol("k")]: 2},
  new Date(86400000), {toJSON(k) { return "via " + k }}, {n: {toJSON(k) { return k }}},
  new String("boxed"), new Number(3), new Boolean(false), new Map([[1, 2]]), {z: 1, a: 2, 10: 3, 2: 4},
];
export default () => JSON.stringify(values);
export function raw() { return values; }`}, "a.js")
	want, err := callJSON(t, p.Runner(Options{}), nil)
	require.NoError(t, err)
	p2 := *p
	p2.Export = "raw"
	out, err := p2.Runner(Options{}).CallInputs(context.Background(), nil)
	require.NoError(t, err)
	assert.JSONEq(t, want.(string), string(out))
}

func TestRun_InputsAreAPlainCopy(t *testing.T) {
	p := mustCompile(t, map[string]string{"a.js": `export default (p) => {
  const keys = Object.keys(p.inputs);
  p.inputs.list.push(4); p.inputs.added = true;
  return [p.tool, keys, p.inputs.n, p.inputs.big, p.inputs.list.length];
};`}, "a.js")
	in := map[string]any{"list": []any{1.0, 2.0, 3.0}, "n": json.Number("12"), "big": json.Number("12345678901234567890")}
	v, err := callJSON(t, p.Runner(Options{Tool: "shape"}), in)
	require.NoError(t, err)
	assert.Equal(t, []any{"shape", []any{"big", "list", "n"}, 12.0, 12345678901234567000.0, 4.0}, v)
	assert.Len(t, in["list"], 3, "the caller's arguments are not changed")
	assert.NotContains(t, in, "added")
}

func TestRun_ResultsArgument(t *testing.T) {
	p := mustCompile(t, map[string]string{"a.js": `export default (p) => p.results.map((r) => r.name.toUpperCase());`}, "a.js")
	out, err := p.Runner(Options{}).CallResults(context.Background(), json.RawMessage(`[{"name":"apple"},{"name":"pear"}]`))
	require.NoError(t, err)
	assert.JSONEq(t, `["APPLE","PEAR"]`, string(out))
}

func TestRun_ConsoleGoesToTheLogAtDebugLevel(t *testing.T) {
	logs := &logBuffer{}
	p := mustCompile(t, map[string]string{"a.js": `export default () => {
  console.log("hello", {a: 1}, [1, 2]);
  console.error(new TypeError("bad"));
  for (let i = 0; i < 200; i++) console.info("line", i);
  return null;
};`}, "a.js")
	_, err := p.Runner(Options{Tool: "greet", Logger: logs.logger()}).CallInputs(context.Background(), nil)
	require.NoError(t, err)
	out := logs.String()
	assert.Contains(t, out, `level=DEBUG msg="script console" tool=greet script=proj/a.js level=log message="hello {\"a\":1} [1,2]"`)
	assert.Contains(t, out, `level=error message="TypeError: bad"`)
	assert.Contains(t, out, "line 97")
	assert.NotContains(t, out, "line 98", "at most 100 lines a call")
	assert.Contains(t, out, "further lines of this call are dropped")

	quiet := &logBuffer{}
	_, err = p.Runner(Options{Logger: slog.New(slog.NewTextHandler(quiet, nil))}).CallInputs(context.Background(), nil)
	require.NoError(t, err)
	assert.Empty(t, quiet.String(), "nothing at info level")
}

// fromJSON makes of JSON what JSON.parse makes of it, members in order.
func TestFromJSON_AsJSONParse(t *testing.T) {
	p := mustCompile(t, map[string]string{"a.js": `export default (p) => p.results;
export function parse(p) { return JSON.parse(p.inputs.raw); }`}, "a.js")
	viaParse := *p
	viaParse.Export = "parse"
	r, jp := p.Runner(Options{}), viaParse.Runner(Options{})
	for _, doc := range []string{
		`[1, {"z": 1, "a": [true, false, null], "m": {"": "x"}}, "é\u00e9\\\"\n", -0.5e3, 12345678901234567890, -1e-300]`,
		` [ {} , [] , "\ud83d\ude00" , 0 , {"k": {"k": {"k": []}}} ] `,
		`{"b": 2, "a": 1, "10": 3, "2": 4}`,
	} {
		got, err := r.CallResults(context.Background(), json.RawMessage(doc))
		require.NoError(t, err, doc)
		want, err := jp.CallInputs(context.Background(), map[string]any{"raw": doc})
		require.NoError(t, err, doc)
		assert.Equal(t, string(want), string(got), doc)
	}
	for _, bad := range []string{`[1,]`, `{"a" 1}`, `tru`, `[1] 2`, "\"\x01\"", strings.Repeat("[", 300) + strings.Repeat("]", 300)} {
		_, err := r.CallResults(context.Background(), json.RawMessage(bad))
		assert.Error(t, err, bad)
	}
}

// An npm package under node_modules is bundled in, CommonJS or ES module.
func TestCompile_BundlesAnNPMPackage(t *testing.T) {
	p := mustCompile(t, map[string]string{
		"node_modules/shout/package.json":     `{"name": "shout", "version": "1.0.0", "main": "index.js"}`,
		"node_modules/shout/index.js":         `module.exports = function shout(s) { return String(s).toUpperCase() + "!"; };`,
		"node_modules/@acme/pad/package.json": `{"name": "@acme/pad", "version": "1.0.0", "type": "module", "exports": "./pad.mjs"}`,
		"node_modules/@acme/pad/pad.mjs":      `export const pad = (s, n) => String(s).padStart(n, "0");`,
		"data.json":                           `{"greeting": "hi"}`,
		"tools/a.ts": `import shout from "shout";
import { pad } from "@acme/pad";
import data from "../data.json";
export default ({ inputs }: { inputs: { n: number } }) => [shout(data.greeting), pad(inputs.n, 3)];`,
	}, "tools/a.ts")
	assert.Len(t, p.Inputs, 4)
	v, err := callJSON(t, p.Runner(Options{}), map[string]any{"n": 7.0})
	require.NoError(t, err)
	assert.Equal(t, []any{"HI!", "007"}, v)
}
