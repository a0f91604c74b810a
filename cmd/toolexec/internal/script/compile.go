// Package script runs the JavaScript and TypeScript of script tools and
// transforms: a file (and what it imports) is bundled by esbuild's Go API
// into one program, compiled once by goja, and run on runtimes kept in a
// pool, each call under the call's deadline, with the bounds this package
// documents (Limits). A script's default export (or the export it names)
// is called with a payload object and its return value, or the value of
// the Promise it returns, is encoded as JSON.
//
// A script has no file system, no process, no timers and no modules of
// the host: its globals are ECMAScript's, console (to the server's log, at
// debug level) and fetch (through the tool's allow-list, when it has one).
package script

import (
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/dop251/goja"
	"github.com/dop251/goja/parser"
	"github.com/evanw/esbuild/pkg/api"
)

// GlobalName is the global the bundled program assigns the script's
// exports to.
const GlobalName = "__toolexec_exports"

// maxScriptBytes bounds the bundled program of one script, and each file
// it is bundled from.
const maxScriptBytes = 16 << 20

// Program is one script compiled once: its bundle as a goja program and
// the export it calls. It is immutable and safe for concurrent use.
type Program struct {
	// Path is the script's file, absolute.
	Path string
	// Name is how problems and logs name it (relative to the base
	// directory Compile was given, as the tools file names it).
	Name string
	// Export is the function the script runs: "default", or the name
	// after a # in the reference.
	Export string
	// Inputs are the absolute paths of every file bundled: the script and
	// what it imports.
	Inputs []string
	// Sums are the SHA-256 sums of the contents of Inputs as they were
	// bundled (config.StampData), by path.
	Sums map[string][sha256.Size]byte

	prog *goja.Program
	code string
}

// Code returns the bundled program's JavaScript: an IIFE that assigns the
// script's exports to the global GlobalName, with an inline source map.
func (p *Program) Code() string { return p.code }

// Problem is what is wrong with a script at load, at a line and column
// (1-based) of a file.
type Problem struct {
	File         string
	Line, Column int
	Message      string
}

// Error renders the problem as file:line:column: message.
func (p Problem) Error() string {
	return fmt.Sprintf("%s:%d:%d: %s", p.File, p.Line, p.Column, p.Message)
}

// Problems is the error Compile returns when the script cannot be loaded:
// every problem esbuild found, or the one that stops it.
type Problems []Problem

// Error joins the problems, one a line.
func (ps Problems) Error() string {
	s := make([]string, len(ps))
	for i, p := range ps {
		s[i] = p.Error()
	}
	return strings.Join(s, "\n")
}

// Source is a script to compile.
type Source struct {
	// Path is the script's file, absolute.
	Path string
	// Export is the function to run; "" is the default export.
	Export string
	// Dir is the directory the tools file is in: esbuild resolves
	// relative to it, and Name reads relative to it.
	Dir string
	// Shown is how problems name Dir (the tools file's directory as the
	// command line gave it); "" shows paths relative to Dir.
	Shown string
}

// Compile bundles the script at src.Path with what it imports (TypeScript
// or JavaScript, ES modules; npm packages from node_modules; no module of
// Node.js) and compiles it. It fails with Problems, each at its file, line
// and column: a syntax or type-stripping error, an import that cannot be
// resolved, a script without the export to run. The script's code does
// not run.
func Compile(src Source) (*Program, error) {
	export := src.Export
	if export == "" {
		export = "default"
	}
	p := &Program{Path: src.Path, Export: export, Name: shown(src, src.Path)}
	if st, err := os.Stat(src.Path); err != nil || st.IsDir() {
		return nil, Problems{{File: p.Name, Line: 1, Column: 1, Message: "the script cannot be read"}}
	}
	files := &reader{data: map[string][]byte{}}
	opts := api.BuildOptions{
		Plugins:       []api.Plugin{files.plugin()},
		EntryPoints:   []string{src.Path},
		AbsWorkingDir: src.Dir,
		Bundle:        true,
		Write:         false,
		Outfile:       "bundle.js",
		Platform:      api.PlatformBrowser,
		Target:        api.ES2020,
		Charset:       api.CharsetUTF8,
		LogLevel:      api.LogLevelSilent,
		Metafile:      true,
	}
	// The exports: the bundle as an ES module lists them in its metafile.
	esm := opts
	esm.Format = api.FormatESModule
	res := api.Build(esm)
	if len(res.Errors) > 0 {
		return nil, problems(src, res.Errors)
	}
	exports, inputs, err := readMetafile(res.Metafile, src.Dir)
	if err != nil {
		return nil, Problems{{File: p.Name, Line: 1, Column: 1, Message: "the script cannot be bundled: " + err.Error()}}
	}
	p.Inputs = inputs
	p.Sums = make(map[string][sha256.Size]byte, len(inputs))
	for _, in := range inputs {
		if data, ok := files.get(in); ok {
			p.Sums[in] = sha256.Sum256(data)
		}
	}
	if !slices.Contains(exports, export) {
		msg := "the script has no default export: export default the function to run"
		if export != "default" {
			msg = fmt.Sprintf("the script exports no %q", export)
		}
		return nil, Problems{{File: p.Name, Line: 1, Column: 1, Message: msg}}
	}
	// The program: an IIFE that assigns the exports to GlobalName, with
	// an inline source map, so that stack traces (logged) name the
	// script's own lines.
	iife := opts
	iife.Format = api.FormatIIFE
	iife.GlobalName = GlobalName
	iife.Sourcemap = api.SourceMapInline
	iife.SourcesContent = api.SourcesContentExclude
	iife.Metafile = false
	res = api.Build(iife)
	if len(res.Errors) > 0 {
		return nil, problems(src, res.Errors)
	}
	if len(res.OutputFiles) != 1 {
		return nil, Problems{{File: p.Name, Line: 1, Column: 1, Message: "the script cannot be bundled"}}
	}
	code := res.OutputFiles[0].Contents
	p.code = string(code)
	if len(code) > maxScriptBytes {
		return nil, Problems{{File: p.Name, Line: 1, Column: 1, Message: fmt.Sprintf("the bundled script is larger than %d bytes", maxScriptBytes)}}
	}
	ast, err := goja.Parse(p.Name, string(code), parser.WithSourceMapLoader(func(string) ([]byte, error) {
		return nil, errors.New("only inline source maps are read")
	}))
	if err == nil {
		p.prog, err = goja.CompileAST(ast, true)
	}
	if err != nil {
		return nil, Problems{{File: p.Name, Line: 1, Column: 1, Message: "the JavaScript engine cannot compile the bundled script: " + err.Error()}}
	}
	return p, nil
}

// shown is how problems and logs name path: relative to src.Dir, under
// src.Shown.
func shown(src Source, path string) string {
	if !filepath.IsAbs(path) {
		path = filepath.Join(src.Dir, path)
	}
	rel, err := filepath.Rel(src.Dir, path)
	if err != nil {
		return path
	}
	if src.Shown == "" {
		return rel
	}
	return filepath.Join(src.Shown, rel)
}

// problems turns esbuild's errors into Problems at their files, lines and
// columns (esbuild counts columns from 0, in bytes).
func problems(src Source, msgs []api.Message) Problems {
	out := make(Problems, 0, len(msgs))
	for _, m := range msgs {
		p := Problem{File: shown(src, src.Path), Line: 1, Column: 1, Message: m.Text}
		if l := m.Location; l != nil {
			p.File = shown(src, l.File)
			p.Line, p.Column = l.Line, l.Column+1
			if p.Line < 1 {
				p.Line = 1
			}
		}
		out = append(out, p)
	}
	return out
}

// readMetafile returns the exports of the one output of an ES module
// build, and the absolute paths of its inputs.
func readMetafile(meta, dir string) (exports, inputs []string, err error) {
	var m struct {
		Inputs  map[string]json.RawMessage `json:"inputs"`
		Outputs map[string]struct {
			Exports []string `json:"exports"`
		} `json:"outputs"`
	}
	if err := json.Unmarshal([]byte(meta), &m); err != nil {
		return nil, nil, err
	}
	if len(m.Outputs) != 1 {
		return nil, nil, fmt.Errorf("%d outputs", len(m.Outputs))
	}
	for _, o := range m.Outputs {
		exports = o.Exports
	}
	for in := range m.Inputs {
		if strings.Contains(in, ":") && !filepath.IsAbs(in) {
			continue // a namespace of esbuild's own, not a file
		}
		if !filepath.IsAbs(in) {
			in = filepath.Join(dir, in)
		}
		inputs = append(inputs, in)
	}
	slices.Sort(inputs)
	return exports, inputs, nil
}

// loaders are the files a script may import, by extension, and how each
// is read.
var loaders = map[string]api.Loader{
	".ts": api.LoaderTS, ".mts": api.LoaderTS, ".cts": api.LoaderTS, ".tsx": api.LoaderTSX,
	".js": api.LoaderJS, ".mjs": api.LoaderJS, ".cjs": api.LoaderJS, ".jsx": api.LoaderJSX,
	".json": api.LoaderJSON, ".txt": api.LoaderText,
}

// reader reads the files of a bundle for esbuild, once each, keeping
// their contents: the two builds of Compile see the same bytes, and the
// sums of Program are those of what was bundled.
type reader struct {
	mu   sync.Mutex // esbuild loads files concurrently
	data map[string][]byte
}

func (r *reader) get(path string) ([]byte, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	data, ok := r.data[path]
	return data, ok
}

func (r *reader) plugin() api.Plugin {
	return api.Plugin{Name: "toolexec-files", Setup: func(b api.PluginBuild) {
		b.OnLoad(api.OnLoadOptions{Filter: ".*", Namespace: "file"}, func(args api.OnLoadArgs) (api.OnLoadResult, error) {
			loader, ok := loaders[strings.ToLower(filepath.Ext(args.Path))]
			if !ok {
				return api.OnLoadResult{}, fmt.Errorf("a script may import .ts, .tsx, .mts, .cts, .js, .jsx, .mjs, .cjs, .json and .txt files, not %s", filepath.Base(args.Path))
			}
			data, ok := r.get(args.Path)
			if !ok {
				st, err := os.Stat(args.Path)
				if err != nil {
					return api.OnLoadResult{}, errors.New("the file cannot be read")
				}
				if st.Size() > maxScriptBytes {
					return api.OnLoadResult{}, fmt.Errorf("the file is larger than %d bytes", maxScriptBytes)
				}
				if data, err = os.ReadFile(args.Path); err != nil {
					return api.OnLoadResult{}, errors.New("the file cannot be read")
				}
				r.mu.Lock()
				r.data[args.Path] = data
				r.mu.Unlock()
			}
			contents := string(data)
			return api.OnLoadResult{Contents: &contents, Loader: loader, ResolveDir: filepath.Dir(args.Path)}, nil
		})
	}}
}
