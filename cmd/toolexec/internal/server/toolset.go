package server

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"sync"

	"github.com/toolexec/toolexec"
	"github.com/toolexec/toolexec/cmd/toolexec/internal/config"
	"github.com/toolexec/toolexec/cmd/toolexec/internal/httptool"
	"github.com/toolexec/toolexec/cmd/toolexec/internal/sqltool"
)

// handlerFunc is one built tool's handler.
type handlerFunc func(ctx context.Context, args map[string]any) (*toolexec.CallToolResult, error)

// Set is one generation of tools built from one config: its tools, their
// handlers, the toolsets, and the open sources they use. A Set is
// immutable once built; Close releases its sources after the last call
// that uses it has finished.
type Set struct {
	tools    []toolexec.Tool
	byName   map[string]int
	handlers []handlerFunc
	toolsets map[string]map[string]bool
	closers  []io.Closer
	// watched are the files and directories the set was built from,
	// besides the tools file (scripts and what they import, a Hyperterse
	// project's files), each with its stamp as it was read (see Watch).
	watched []config.Watched

	// mu is held for reading by every call running on this set, and for
	// writing by Close, which so waits for them.
	mu     sync.RWMutex
	closed bool
}

// Build opens every source of cfg and builds its tools. On failure it
// closes what it opened. Its error, and what the tools log, name the
// values the file took from the environment by their ${NAME} (see
// config.Config.Redact), never print them.
func Build(ctx context.Context, cfg *config.Config, logger *slog.Logger) (*Set, error) {
	return buildWith(ctx, cfg, logger)
}

// buildWith is Build with options for the http sources (tests point host
// names at addresses with them).
func buildWith(ctx context.Context, cfg *config.Config, logger *slog.Logger, httpOpts ...httptool.SourceOption) (*Set, error) {
	set, err := buildSet(ctx, cfg, redactLogger(logger, cfg.Redact), httpOpts)
	if ps, ok := err.(config.Problems); ok {
		// A script's problems, each at its line: kept as problems.
		for i := range ps {
			ps[i].Message = cfg.Redact(ps[i].Message)
		}
		return nil, ps
	}
	return set, redactError(err, cfg.Redact)
}

func buildSet(ctx context.Context, cfg *config.Config, logger *slog.Logger, httpOpts []httptool.SourceOption) (*Set, error) {
	s := &Set{byName: map[string]int{}, toolsets: map[string]map[string]bool{}}
	writes := map[string]bool{}
	for _, t := range cfg.Tools {
		if !t.ReadOnly {
			writes[t.Source] = true
		}
	}
	sqlSources := map[string]*sqltool.Source{}
	httpSources := map[string]*httptool.Source{}
	stores := &storeSources{}
	fail := func(err error) (*Set, error) {
		if cerr := s.closeSources(); cerr != nil {
			err = errors.Join(err, cerr)
		}
		return nil, err
	}
	sc := newScripts(cfg, logger, httpOpts)
	if err := sc.compile(); err != nil {
		return nil, err
	}
	for _, t := range cfg.Tools {
		if t.Kind == config.KindScript {
			if err := s.addScriptTool(sc, t); err != nil {
				return fail(err)
			}
			continue
		}
		src := cfg.Sources[t.Source]
		var (
			def toolexec.Tool
			h   handlerFunc
		)
		switch src.Kind {
		case config.KindSQLite, config.KindPostgres, config.KindMySQL:
			db, ok := sqlSources[src.Name]
			if !ok {
				var err error
				db, err = sqltool.Open(ctx, src, writes[src.Name])
				if err != nil {
					return fail(err)
				}
				sqlSources[src.Name] = db
				s.closers = append(s.closers, db)
			}
			tl, err := sqltool.New(t, db, logger)
			if err != nil {
				return fail(err)
			}
			def, h = tl.Definition(), tl.Handle
		case config.KindHTTP:
			hs, ok := httpSources[src.Name]
			if !ok {
				var err error
				hs, err = httptool.NewSource(src, append([]httptool.SourceOption{httptool.WithSecrets(cfg.EnvValues()...)}, httpOpts...)...)
				if err != nil {
					return fail(err)
				}
				httpSources[src.Name] = hs
				s.closers = append(s.closers, hs)
			}
			tl, err := httptool.New(t, hs, logger)
			if err != nil {
				return fail(err)
			}
			def, h = tl.Definition(), tl.Handle
		case config.KindRedis, config.KindMongoDB:
			var err error
			if def, h, err = s.storeTool(ctx, cfg, src, t, logger, stores); err != nil {
				return fail(err)
			}
		default:
			return fail(fmt.Errorf("tool %q: source kind %q", t.Name, src.Kind))
		}
		if err := sc.transforms(t, &def); err != nil {
			return fail(err)
		}
		s.byName[t.Name] = len(s.tools)
		s.tools = append(s.tools, def)
		s.handlers = append(s.handlers, h)
	}
	for name, members := range cfg.Toolsets {
		m := make(map[string]bool, len(members))
		for _, n := range members {
			m[n] = true
		}
		s.toolsets[name] = m
	}
	s.closers = append(s.closers, sc.closers...)
	s.watched = append(cfg.Watched(), sc.deps()...)
	return s, nil
}

// addScriptTool builds the script tool t and adds it to s.
func (s *Set) addScriptTool(sc *scripts, t *config.Tool) error {
	def, h, err := sc.tool(t)
	if err != nil {
		return err
	}
	if err := sc.transforms(t, &def); err != nil {
		return err
	}
	s.byName[t.Name] = len(s.tools)
	s.tools = append(s.tools, def)
	s.handlers = append(s.handlers, h)
	return nil
}

// Tools returns the set's tools, or those of one toolset ("" is all).
func (s *Set) Tools(toolset string) []toolexec.Tool {
	if toolset == "" {
		return append([]toolexec.Tool(nil), s.tools...)
	}
	m := s.toolsets[toolset]
	out := make([]toolexec.Tool, 0, len(m))
	for _, t := range s.tools {
		if m[t.Name] {
			out = append(out, t)
		}
	}
	return out
}

// Lookup finds one tool, in the toolset when one is named.
func (s *Set) Lookup(toolset, name string) (toolexec.Tool, bool) {
	i, ok := s.byName[name]
	if !ok || (toolset != "" && !s.toolsets[toolset][name]) {
		return toolexec.Tool{}, false
	}
	return s.tools[i], true
}

// HasToolset reports whether the set defines the toolset.
func (s *Set) HasToolset(name string) bool {
	_, ok := s.toolsets[name]
	return ok
}

// acquire marks a call as running on s. It fails when s is closed (a
// reload retired it between the load and this call), and the caller then
// takes the current set.
func (s *Set) acquire() bool {
	s.mu.RLock()
	if s.closed {
		s.mu.RUnlock()
		return false
	}
	return true
}

func (s *Set) release() { s.mu.RUnlock() }

// Close waits for the calls running on s to finish, then closes its
// sources. Calls that arrive later move on to the current set.
func (s *Set) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil
	}
	s.closed = true
	return s.closeSources()
}

func (s *Set) closeSources() error {
	var errs []error
	for _, c := range s.closers {
		errs = append(errs, c.Close())
	}
	return errors.Join(errs...)
}
