package server

import (
	"bytes"
	"context"
	"crypto/sha256"
	"io"
	"log/slog"
	"os"
	"time"

	"github.com/toolexec/toolexec/cmd/toolexec/internal/config"
)

// Loader loads and builds a config file into a Set.
type Loader func(ctx context.Context) (*Set, error)

// FileLoader returns the Loader of the tools file at path.
func FileLoader(path string, getenv func(string) (string, bool), logger *slog.Logger) Loader {
	return func(ctx context.Context) (*Set, error) {
		cfg, err := config.Load(path, getenv)
		if err != nil {
			return nil, err
		}
		return Build(ctx, cfg, logger)
	}
}

// fileStamp identifies a version of a file: its size, modification time
// and content hash (the hash catches a rewrite within the mtime's
// resolution).
type fileStamp struct {
	size int64
	mod  time.Time
	sum  [sha256.Size]byte
}

func stamp(path string) (fileStamp, error) {
	f, err := os.Open(path)
	if err != nil {
		return fileStamp{}, err
	}
	defer func() { _ = f.Close() }() // opened for reading: closing it loses nothing
	st, err := f.Stat()
	if err != nil {
		return fileStamp{}, err
	}
	h := sha256.New()
	if _, err := io.Copy(h, io.LimitReader(f, config.MaxFileBytes+1)); err != nil {
		return fileStamp{}, err
	}
	s := fileStamp{size: st.Size(), mod: st.ModTime()}
	copy(s.sum[:], h.Sum(nil))
	return s, nil
}

// A Watch follows a tools file from the version it was created on.
type Watch struct {
	path string
	last fileStamp
}

// NewWatch records the current version of the file at path. Create it
// before loading the file: a change made after that moment, even one made
// while the server starts, is then seen by Run.
func NewWatch(path string) *Watch {
	last, _ := stamp(path)
	return &Watch{path: path, last: last}
}

// Run polls the file every interval until ctx is done. When the file's
// contents change, or those of a file the served set was also built from
// (a script, what it imports, a Hyperterse project's files: Set.watched),
// it loads them with load: a good file replaces the served set (the old
// one closes once its calls finish; MCP clients get
// notifications/tools/list_changed through OnToolsChanged); a bad one is
// logged, with every problem, and the old set keeps serving.
func (w *Watch) Run(ctx context.Context, p *Provider, interval time.Duration, load Loader, logger *slog.Logger) {
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	path, last := w.path, w.last
	// deps is the stamp of the set's other files as last seen: as they
	// were read to build it, at first.
	deps := watchedSum(p.Current().watched, false)
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		changed := false
		if cur, err := stamp(path); err == nil {
			switch {
			case cur.size == last.size && cur.mod.Equal(last.mod) && bytes.Equal(cur.sum[:], last.sum[:]):
			case cur.sum == last.sum:
				last = cur // touched, not changed
			default:
				last, changed = cur, true
			}
		} // else being replaced, or gone (or a directory): keep serving
		if d := watchedSum(p.Current().watched, true); d != deps {
			deps, changed = d, true
		}
		if !changed {
			continue
		}
		set, err := load(ctx)
		if err != nil {
			logger.Error("reload: the new tools file is invalid; still serving the previous one", "file", path, "problems", err.Error())
			continue
		}
		deps = watchedSum(set.watched, false)
		old := p.Swap(set)
		logger.Info("reload: serving the new tools file", "file", path, "tools", len(set.tools))
		go func() {
			if err := old.Close(); err != nil {
				logger.Warn("reload: closing the previous sources", "error", err.Error())
			}
		}()
	}
}

// watchedSum is one stamp of ws: of the paths as they are now (config.Stamp)
// when now is set, else as they were read.
func watchedSum(ws []config.Watched, now bool) [sha256.Size]byte {
	h := sha256.New()
	for _, w := range ws {
		_, _ = io.WriteString(h, w.Path+"\x00")
		sum := w.Sum
		if now {
			sum = config.Stamp(w.Path)
		}
		_, _ = h.Write(sum[:])
	}
	var out [sha256.Size]byte
	copy(out[:], h.Sum(nil))
	return out
}
