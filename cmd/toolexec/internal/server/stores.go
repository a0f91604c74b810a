package server

import (
	"context"
	"io"
	"log/slog"

	"github.com/toolexec/toolexec"
	"github.com/toolexec/toolexec/cmd/toolexec/internal/config"
	"github.com/toolexec/toolexec/cmd/toolexec/internal/mongotool"
	"github.com/toolexec/toolexec/cmd/toolexec/internal/redistool"
)

// storeSources are the redis and mongodb sources a Set has opened, by
// name: each is opened once, for its first tool, and closed with the Set.
type storeSources struct {
	redis map[string]*redistool.Source
	mongo map[string]*mongotool.Source
}

// storeTool builds tool t of a redis or mongodb source, opening the
// source on its first tool.
func (s *Set) storeTool(ctx context.Context, cfg *config.Config, src *config.Source, t *config.Tool, logger *slog.Logger, open *storeSources) (toolexec.Tool, handlerFunc, error) {
	if src.Kind == config.KindMongoDB {
		ms, err := openOnce(s, &open.mongo, src.Name, func() (*mongotool.Source, error) { return mongotool.Open(ctx, src) })
		if err != nil {
			return toolexec.Tool{}, nil, err
		}
		tl := mongotool.New(t, ms, logger)
		return tl.Definition(), tl.Handle, nil
	}
	rs, err := openOnce(s, &open.redis, src.Name, func() (*redistool.Source, error) {
		var mine []*config.Tool
		for _, other := range cfg.Tools {
			if other.Source == src.Name {
				mine = append(mine, other)
			}
		}
		return redistool.Open(ctx, src, redistool.ReplyCap(mine))
	})
	if err != nil {
		return toolexec.Tool{}, nil, err
	}
	tl := redistool.New(t, rs, logger)
	return tl.Definition(), tl.Handle, nil
}

// openOnce returns the source of that name in *opened, opening it with
// open (and closing it with the set) the first time.
func openOnce[S io.Closer](s *Set, opened *map[string]S, name string, open func() (S, error)) (S, error) {
	if src, ok := (*opened)[name]; ok {
		return src, nil
	}
	src, err := open()
	if err != nil {
		return src, err
	}
	if *opened == nil {
		*opened = map[string]S{}
	}
	(*opened)[name] = src
	s.closers = append(s.closers, src)
	return src, nil
}

// listResult reports whether res is a list of JSON values, one text block
// each, as a redis tool answers: its structuredContent's results member
// is an array with as many elements as res has text blocks (a cut
// result's last block, which says so, makes one more).
func listResult(res *toolexec.CallToolResult) bool {
	sc, ok := res.StructuredContent.(map[string]any)
	if !ok {
		return false
	}
	results, ok := sc["results"].([]any)
	return ok && len(results) == len(res.Content)
}
