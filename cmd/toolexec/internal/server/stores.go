package server

import (
	"context"
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
		ms, ok := open.mongo[src.Name]
		if !ok {
			var err error
			if ms, err = mongotool.Open(ctx, src); err != nil {
				return toolexec.Tool{}, nil, err
			}
			if open.mongo == nil {
				open.mongo = map[string]*mongotool.Source{}
			}
			open.mongo[src.Name] = ms
			s.closers = append(s.closers, ms)
		}
		tl := mongotool.New(t, ms, logger)
		return tl.Definition(), tl.Handle, nil
	}
	rs, ok := open.redis[src.Name]
	if !ok {
		var mine []*config.Tool
		for _, other := range cfg.Tools {
			if other.Source == src.Name {
				mine = append(mine, other)
			}
		}
		var err error
		if rs, err = redistool.Open(ctx, src, redistool.ReplyCap(mine)); err != nil {
			return toolexec.Tool{}, nil, err
		}
		if open.redis == nil {
			open.redis = map[string]*redistool.Source{}
		}
		open.redis[src.Name] = rs
		s.closers = append(s.closers, rs)
	}
	tl := redistool.New(t, rs, logger)
	return tl.Definition(), tl.Handle, nil
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
