package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"path/filepath"
	"slices"
	"strings"

	"github.com/toolexec/toolexec"
	"github.com/toolexec/toolexec/cmd/toolexec/internal/config"
	"github.com/toolexec/toolexec/cmd/toolexec/internal/httptool"
	"github.com/toolexec/toolexec/cmd/toolexec/internal/script"
	"github.com/toolexec/toolexec/cmd/toolexec/internal/tooldef"
	"github.com/toolexec/toolexec/internal/rawjson"
)

// scripts builds the scripts of one Set: each file (and export) compiled
// once, a runner per tool that runs it, a fetcher per tool that lists
// hosts.
type scripts struct {
	cfg      *config.Config
	logger   *slog.Logger
	httpOpts []httptool.SourceOption
	programs map[scriptKey]*script.Program
	warmed   map[*script.Program]bool
	closers  []io.Closer
}

type scriptKey struct{ path, export string }

func newScripts(cfg *config.Config, logger *slog.Logger, httpOpts []httptool.SourceOption) *scripts {
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	return &scripts{cfg: cfg, logger: logger, httpOpts: httpOpts, programs: map[scriptKey]*script.Program{}, warmed: map[*script.Program]bool{}}
}

// CheckScripts bundles and compiles every script of cfg, without running
// any: what `validate` checks beyond the file. Its error is
// config.Problems, each at its script's file, line and column.
func CheckScripts(cfg *config.Config) error {
	return newScripts(cfg, nil, nil).compile()
}

// compile compiles every script of the config, each file and export
// once, and returns every problem found.
func (sc *scripts) compile() error {
	var ps config.Problems
	for _, t := range sc.cfg.Tools {
		for _, s := range t.Scripts() {
			k := scriptKey{s.Path, s.Export}
			if _, done := sc.programs[k]; done {
				continue
			}
			p, err := script.Compile(script.Source{Path: s.Path, Export: s.Export, Dir: sc.cfg.Dir, Shown: filepath.Dir(sc.cfg.File)})
			if err != nil {
				var sps script.Problems
				if !errors.As(err, &sps) {
					return err
				}
				for _, sp := range sps {
					ps = append(ps, config.Problem{File: sp.File, Line: sp.Line, Column: sp.Column, Message: sp.Message})
				}
				sc.programs[k] = nil
				continue
			}
			sc.programs[k] = p
		}
	}
	if len(ps) > 0 {
		return ps
	}
	return nil
}

// deps are the files the compiled scripts were bundled from, each with
// the stamp of what was bundled.
func (sc *scripts) deps() []config.Watched {
	seen := map[string]config.Watched{}
	for _, p := range sc.programs {
		if p == nil {
			continue
		}
		for _, in := range p.Inputs {
			seen[in] = config.Watched{Path: in, Sum: p.Sums[in]}
		}
	}
	out := make([]config.Watched, 0, len(seen))
	for _, path := range slices.Sorted(maps.Keys(seen)) {
		out = append(out, seen[path])
	}
	return out
}

// runner returns the runner of script s for tool t. The first runner of
// each program runs its top-level code once, so that code that fails is
// a problem of the load, not of the first call.
func (sc *scripts) runner(t *config.Tool, s *config.Script) (*script.Runner, error) {
	p := sc.programs[scriptKey{s.Path, s.Export}]
	if p == nil {
		return nil, fmt.Errorf("tool %q: script %s is not compiled", t.Name, s.Path)
	}
	// The byte cap of every kind (tooldef.Caps): a script's result is
	// its text and its structuredContent, as an http tool's JSON is.
	_, maxBytes := tooldef.Caps(t)
	o := script.Options{Tool: t.Name, Logger: sc.logger, MaxResultBytes: maxBytes, FetchFailure: fetchFailure}
	if len(t.FetchHosts) > 0 {
		f, err := httptool.NewFetcher(t.FetchHosts, t.FetchPrivate, sc.httpOpts...)
		if err != nil {
			return nil, fmt.Errorf("tool %q: allowedHosts: %w", t.Name, err)
		}
		sc.closers = append(sc.closers, f)
		o.Fetcher = f
	}
	r := p.Runner(o)
	if !sc.warmed[p] {
		sc.warmed[p] = true
		if err := r.Warm(); err != nil {
			return nil, config.Problems{{File: p.Name, Line: 1, Column: 1, Message: err.Error()}}
		}
	}
	return r, nil
}

// fetchFailure is what a script's fetch is told of a failed request, and
// what is logged: httptool's words for the refusals.
func fetchFailure(err error) (string, string) {
	f := httptool.Classify(err)
	return f.Message, f.Log
}

// tool builds a script tool: its definition (the schema of its
// parameters, its annotations, the execution settings every tool takes)
// and its handler, which calls the script with {inputs, tool}, the
// arguments with their defaults filled in.
func (sc *scripts) tool(t *config.Tool) (toolexec.Tool, handlerFunc, error) {
	r, err := sc.runner(t, t.Handler)
	if err != nil {
		return toolexec.Tool{}, nil, err
	}
	// A script that fetches reaches outside: openWorldHint true.
	def := tooldef.Definition(t, tooldef.Kind{OpenWorld: len(t.FetchHosts) > 0})
	ps := t.Parameters
	h := func(ctx context.Context, args map[string]any) (*toolexec.CallToolResult, error) {
		out, err := r.CallInputs(ctx, withDefaults(ps, args))
		if err != nil {
			return nil, handlerError(err)
		}
		return jsonResult(out), nil
	}
	return def, h, nil
}

// withDefaults is args with the default of each absent parameter that has
// one (a copy when it adds any).
func withDefaults(ps []*config.Param, args map[string]any) map[string]any {
	var out map[string]any
	for _, p := range ps {
		if _, ok := args[p.Name]; ok || !p.HasDefault {
			continue
		}
		if out == nil {
			out = maps.Clone(args)
			if out == nil {
				out = map[string]any{}
			}
		}
		out[p.Name] = p.Default
	}
	if out == nil {
		return args
	}
	return out
}

// jsonResult is the result of a script's JSON value: the JSON as a text
// block and, when it is an object, as structuredContent too.
func jsonResult(out json.RawMessage) *toolexec.CallToolResult {
	res := &toolexec.CallToolResult{Content: []toolexec.Content{toolexec.Text(string(out))}}
	if len(out) > 0 && out[0] == '{' {
		res.StructuredContent = out
	}
	return res
}

// handlerError is a script tool's error: what the script threw, as a tool
// error carrying its message; the call's context error as it is (the
// pipeline reports the timeout or the cancellation).
func handlerError(err error) error {
	var se *script.Error
	if errors.As(err, &se) {
		return &toolexec.ToolError{Message: se.Message, Err: err}
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	return &toolexec.ToolError{Message: "the script failed", Err: err}
}

// transformError is a transform's error: what the script threw as a tool
// error carrying its message (the pipeline names the transform stage),
// the call's context error as it is.
func transformError(err error) error {
	te, ok := handlerError(err).(*toolexec.ToolError)
	if !ok {
		return err
	}
	return &toolexec.Error{Code: toolexec.CodeToolError, Message: te.Message, Err: te}
}

// transforms adds t's transforms to its definition: the input transform
// before validation (its value, an object, is the new arguments, which
// the schema then checks), the output transform on every result that is
// not an error (its value is the new result, as a script tool's).
func (sc *scripts) transforms(t *config.Tool, def *toolexec.Tool) error {
	if s := t.Transforms.Input; s != nil {
		r, err := sc.runner(t, s)
		if err != nil {
			return err
		}
		def.Options.InputTransforms = append(def.Options.InputTransforms, func(ctx context.Context, call *toolexec.Call) (map[string]any, error) {
			out, err := r.CallInputs(ctx, call.Arguments)
			if err != nil {
				return nil, transformError(err)
			}
			args, _ := rawjson.DecodeObject(out)
			if args == nil || len(out) == 0 || out[0] != '{' {
				msg := "the input transform must return an object of arguments"
				return nil, &toolexec.Error{Code: toolexec.CodeToolError, Message: msg, Err: &toolexec.ToolError{Message: msg}}
			}
			return args, nil
		})
	}
	if s := t.Transforms.Output; s != nil {
		r, err := sc.runner(t, s)
		if err != nil {
			return err
		}
		kind := t.Kind
		def.Options.OutputTransforms = append(def.Options.OutputTransforms, func(ctx context.Context, _ *toolexec.Call, res *toolexec.CallToolResult) (*toolexec.CallToolResult, error) {
			if res.IsError {
				return res, nil
			}
			results, note, err := transformResults(kind, res)
			if err != nil {
				return nil, err
			}
			out, err := r.CallResults(ctx, results)
			if err != nil {
				return nil, transformError(err)
			}
			next := jsonResult(out)
			if note != "" {
				next.Content = append(next.Content, toolexec.Text(note))
			}
			return next, nil
		})
	}
	return nil
}

// transformResults is the results an output transform receives for res,
// a result of a tool of kind: a SQL tool's rows, else the
// structuredContent, else the text (its JSON when it is JSON, else the
// text as a string); and the note of a result cut at its cap
// ("[truncated: ...]"), which the transformed result keeps.
func transformResults(kind string, res *toolexec.CallToolResult) (json.RawMessage, string, error) {
	var note string
	texts := make([]string, 0, len(res.Content))
	for _, c := range res.Content {
		if tc, ok := c.(*toolexec.TextContent); ok {
			if strings.HasPrefix(tc.Text, "[truncated:") {
				note = tc.Text
				continue
			}
			texts = append(texts, tc.Text)
		}
	}
	var sc json.RawMessage
	switch v := res.StructuredContent.(type) {
	case nil:
	case json.RawMessage:
		sc = v
	default:
		b, err := json.Marshal(v)
		if err != nil {
			return nil, "", err
		}
		sc = b
	}
	switch kind {
	case config.KindSQLiteSQL, config.KindPostgresSQL, config.KindMySQLSQL:
		var rows struct {
			Rows json.RawMessage `json:"rows"`
		}
		if sc != nil && json.Unmarshal(sc, &rows) == nil && rows.Rows != nil {
			return rows.Rows, note, nil
		}
	}
	if sc != nil {
		return sc, note, nil
	}
	text := strings.Join(texts, "\n")
	if json.Valid([]byte(text)) && strings.TrimSpace(text) != "" {
		return json.RawMessage(text), note, nil
	}
	b, err := json.Marshal(text)
	return b, note, err
}
