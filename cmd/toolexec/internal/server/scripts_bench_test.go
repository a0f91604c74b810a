package server

import (
	"context"
	"encoding/json"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dop251/goja"

	"github.com/toolexec/toolexec"
	"github.com/toolexec/toolexec/cmd/toolexec/internal/script"
)

// The scripts benchmark (make bench prints it, bench/cmd/benchtable): the
// cost of one call of a script tool, and of a tool with an output
// transform, through Executor.Call (the whole pipeline with schema
// validation), against the same work done by Go, and against a script
// run as Hyperterse runs one: a new runtime per call that parses,
// compiles and runs the bundle, then calls the export. Each case reports
// the process's CPU time per call (cpu-ns/op) besides its wall time.

// benchScriptTools are a script tool and SQLite tools with and without an
// output transform: the tool greets, the transform reshapes 10 rows.
const benchScriptTools = `
sources:
  db: {kind: sqlite, database: bench.db, init: schema.sql}
tools:
  greet:
    kind: script
    source: greet.ts
    description: Greets.
    parameters:
      - {name: name, type: string, description: Who.}
      - {name: times, type: integer, description: How often.}
  rows:
    kind: sqlite-sql
    source: db
    description: Ten rows.
    statement: SELECT id, name, price FROM items WHERE id <= 10 ORDER BY id
  rows-shaped:
    kind: sqlite-sql
    source: db
    description: Ten rows, reshaped.
    statement: SELECT id, name, price FROM items WHERE id <= 10 ORDER BY id
    transforms: {output: shape.ts}
`

var benchScriptFiles = map[string]string{
	"schema.sql": benchSchema,
	"greet.ts": `type Inputs = { name: string; times: number };
export default function greet({ inputs, tool }: { inputs: Inputs; tool: string }) {
  return { greeting: ("Hello, " + inputs.name + "! ").repeat(inputs.times).trim(), tool };
}`,
	"shape.ts": `type Row = { id: number; name: string; price: number };
export default ({ results, tool }: { results: Row[]; tool: string }) =>
  ({ tool, items: results.map((r) => ({ id: r.id, label: r.name.toUpperCase(), cents: Math.round(r.price * 100) })) });`,
}

// goGreet is greet.ts in Go.
func goGreet(_ context.Context, args map[string]any) (*toolexec.CallToolResult, error) {
	name, _ := args["name"].(string)
	times, _ := args["times"].(float64)
	out, err := json.Marshal(map[string]any{"greeting": strings.TrimSpace(strings.Repeat("Hello, "+name+"! ", int(times))), "tool": "greet"})
	if err != nil {
		return nil, err
	}
	return jsonResult(out), nil
}

// goShape is shape.ts in Go, as an output transform.
func goShape(_ context.Context, call *toolexec.Call, res *toolexec.CallToolResult) (*toolexec.CallToolResult, error) {
	results, _, err := transformResults("sqlite-sql", res)
	if err != nil {
		return nil, err
	}
	var rows []struct {
		ID    int64   `json:"id"`
		Name  string  `json:"name"`
		Price float64 `json:"price"`
	}
	if err := json.Unmarshal(results, &rows); err != nil {
		return nil, err
	}
	type item struct {
		ID    int64  `json:"id"`
		Label string `json:"label"`
		Cents int64  `json:"cents"`
	}
	items := make([]item, len(rows))
	for i, r := range rows {
		items[i] = item{r.ID, strings.ToUpper(r.Name), int64(r.Price*100 + 0.5)}
	}
	out, err := json.Marshal(map[string]any{"tool": call.Tool.Name, "items": items})
	if err != nil {
		return nil, err
	}
	return jsonResult(out), nil
}

// freshVM calls p's export as Hyperterse calls a script: a new runtime,
// the bundle parsed, compiled and run, the export called with the
// payload, its value (or its promise's) exported and encoded as JSON.
func freshVM(p *script.Program, payload map[string]any) (json.RawMessage, error) {
	vm := goja.New()
	if _, err := vm.RunString(p.Code()); err != nil {
		return nil, err
	}
	fn, ok := goja.AssertFunction(vm.Get(script.GlobalName).ToObject(vm).Get(p.Export))
	if !ok {
		return nil, errors.New("no export")
	}
	v, err := fn(goja.Undefined(), vm.ToValue(payload))
	if err != nil {
		return nil, err
	}
	if pr, ok := v.Export().(*goja.Promise); ok {
		v = pr.Result()
	}
	return json.Marshal(v.Export())
}

// benchProgram compiles one of benchScriptFiles written in dir.
func benchProgram(b *testing.B, dir, name string) *script.Program {
	p, err := script.Compile(script.Source{Path: filepath.Join(dir, name), Dir: dir})
	if err != nil {
		b.Fatal(err)
	}
	return p
}

// benchExecutor builds the benchmark's tools, changes tool name's
// definition with change and replaces its handler with h (when set), and
// serves them through an Executor.
func benchExecutor(b *testing.B, name string, change func(*toolexec.Tool), h handlerFunc) *toolexec.Executor {
	set := buildIn(b, b.TempDir(), benchScriptTools, benchScriptFiles, nil)
	i := set.byName[name]
	change(&set.tools[i])
	if h != nil {
		set.handlers[i] = h
	}
	return executor(set, Options{})
}

func BenchmarkScripts(b *testing.B) {
	dir := b.TempDir()
	buildIn(b, dir, benchScriptTools, benchScriptFiles, nil)
	same := func(*toolexec.Tool) {}
	greetArgs := json.RawMessage(`{"name": "Ada", "times": 2}`)
	greetOut := `{"greeting":"Hello, Ada! Hello, Ada!","tool":"greet"}`
	greet := benchProgram(b, dir, "greet.ts")
	shape := benchProgram(b, dir, "shape.ts")

	cases := []struct {
		name string
		x    func() *toolexec.Executor
		tool string
		args json.RawMessage
		want string // the result's first text block; "" skips the check
	}{
		{"tool/go", func() *toolexec.Executor {
			return benchExecutor(b, "greet", same, goGreet)
		}, "greet", greetArgs, greetOut},
		{"tool/script", func() *toolexec.Executor {
			return benchExecutor(b, "greet", same, nil)
		}, "greet", greetArgs, greetOut},
		{"tool/vm-per-call", func() *toolexec.Executor {
			return benchExecutor(b, "greet", same, func(_ context.Context, args map[string]any) (*toolexec.CallToolResult, error) {
				out, err := freshVM(greet, map[string]any{"inputs": args, "tool": "greet"})
				if err != nil {
					return nil, err
				}
				return jsonResult(out), nil
			})
		}, "greet", greetArgs, greetOut},
		{"transform/none", func() *toolexec.Executor { return benchExecutor(b, "rows", same, nil) }, "rows", nil, ""},
		{"transform/go", func() *toolexec.Executor {
			return benchExecutor(b, "rows-shaped", func(t *toolexec.Tool) {
				t.Options.OutputTransforms = []toolexec.OutputTransform{goShape}
			}, nil)
		}, "rows-shaped", nil, ""},
		{"transform/script", func() *toolexec.Executor { return benchExecutor(b, "rows-shaped", same, nil) }, "rows-shaped", nil, ""},
		{"transform/vm-per-call", func() *toolexec.Executor {
			return benchExecutor(b, "rows-shaped", func(t *toolexec.Tool) {
				t.Options.OutputTransforms = []toolexec.OutputTransform{func(_ context.Context, call *toolexec.Call, res *toolexec.CallToolResult) (*toolexec.CallToolResult, error) {
					results, _, err := transformResults("sqlite-sql", res)
					if err != nil {
						return nil, err
					}
					var rows any
					if err := json.Unmarshal(results, &rows); err != nil {
						return nil, err
					}
					out, err := freshVM(shape, map[string]any{"results": rows, "tool": call.Tool.Name})
					if err != nil {
						return nil, err
					}
					return jsonResult(out), nil
				}}
			}, nil)
		}, "rows-shaped", nil, ""},
	}
	ctx := context.Background()
	var shaped string
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			x := c.x()
			res, err := x.Call(ctx, toolexec.CallRequest{Name: c.tool, Arguments: c.args})
			if err != nil || res.IsError {
				b.Fatal(err, res)
			}
			if got := res.Content[0].(*toolexec.TextContent).Text; c.want != "" && got != c.want {
				b.Fatalf("%s answered %s, not %s", c.name, got, c.want)
			}
			if strings.HasPrefix(c.name, "transform/") && c.name != "transform/none" {
				// Every transform answers the same.
				got := res.Content[0].(*toolexec.TextContent).Text
				var v any
				if json.Unmarshal([]byte(got), &v) != nil {
					b.Fatalf("%s answered %s", c.name, got)
				}
				norm, _ := json.Marshal(v)
				if shaped == "" {
					shaped = string(norm)
				} else if string(norm) != shaped {
					b.Fatalf("%s answered %s, not %s", c.name, norm, shaped)
				}
			}
			b.ReportAllocs()
			b.ResetTimer()
			n, start := 0, processCPU()
			for b.Loop() {
				res, err := x.Call(ctx, toolexec.CallRequest{Name: c.tool, Arguments: c.args})
				if err != nil || res.IsError {
					b.Fatal(err, res)
				}
				n++
			}
			// CPU time per call, which others' load on the machine
			// changes less than wall time.
			if cpu := processCPU() - start; cpu > 0 && n > 0 {
				b.ReportMetric(float64(cpu.Nanoseconds())/float64(n), "cpu-ns/op")
			}
		})
	}
}
