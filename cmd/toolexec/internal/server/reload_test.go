package server

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolexec/toolexec"
)

func versionFile(v int) string {
	return fmt.Sprintf(`
sources:
  mem: {kind: sqlite, database: ":memory:"}
tools:
  version:
    kind: sqlite-sql
    source: mem
    description: version %d
    statement: SELECT %d AS v
  only-in-%d:
    kind: sqlite-sql
    source: mem
    description: only in this version
    statement: SELECT 1 AS one
`, v, v, v)
}

func TestReload_UnderLoadLosesNoCall(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "tools.yaml")
	require.NoError(t, os.WriteFile(path, []byte(versionFile(1)), 0o600))
	watch := NewWatch(path)
	load := FileLoader(path, nil, nil)
	set, err := load(t.Context())
	require.NoError(t, err)
	p := NewProvider(set)
	t.Cleanup(func() { _ = p.Current().Close() })
	x := Options{}.executor(p)

	var changes atomic.Int32
	stop := x.SurfaceKit().OnToolsChanged(func() { changes.Add(1) })
	defer stop()

	ctx, cancel := context.WithCancel(t.Context())
	watchDone := make(chan struct{})
	go func() { watch.Run(ctx, p, 5*time.Millisecond, load, nil); close(watchDone) }()

	const workers = 8
	var (
		calls, failures atomic.Int64
		seen            sync.Map
		wg              sync.WaitGroup
	)
	loadCtx, stopLoad := context.WithCancel(t.Context())
	for w := 0; w < workers; w++ {
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
				row := structured(t, res)["rows"].([]any)[0].(map[string]any)
				seen.Store(row["v"], true)
			}
		}()
	}
	const last = 6
	for v := 2; v <= last; v++ {
		time.Sleep(40 * time.Millisecond)
		if v == 4 {
			// An invalid file in between is ignored: version 3 keeps serving.
			require.NoError(t, os.WriteFile(path, []byte("tools:\n  broken: [\n"), 0o600))
			time.Sleep(40 * time.Millisecond)
		}
		require.NoError(t, os.WriteFile(path, []byte(versionFile(v)), 0o600))
	}
	require.Eventually(t, func() bool {
		_, ok := x.Lookup(fmt.Sprintf("only-in-%d", last), "")
		return ok
	}, 5*time.Second, 10*time.Millisecond, "the last file is served")
	time.Sleep(30 * time.Millisecond)
	stopLoad()
	wg.Wait()
	cancel()
	<-watchDone

	assert.Zero(t, failures.Load(), "no call failed during %d reloads (%d calls)", last-1, calls.Load())
	assert.Greater(t, calls.Load(), int64(50))
	_, sawFirst := seen.Load(float64(1))
	_, sawLast := seen.Load(float64(last))
	assert.True(t, sawFirst && sawLast, "calls ran on the first and the last tool set")
	assert.Positive(t, changes.Load(), "swaps are reported as changes (MCP list_changed)")
	_, ok := x.Lookup("only-in-1", "")
	assert.False(t, ok, "the old tools are gone")
}

func TestReload_InFlightCallFinishesOnOldSet(t *testing.T) {
	started := make(chan struct{})
	release := make(chan struct{})
	old := &Set{byName: map[string]int{"t": 0}, tools: []toolexec.Tool{{Name: "t"}}, handlers: []handlerFunc{
		func(ctx context.Context, _ map[string]any) (*toolexec.CallToolResult, error) {
			close(started)
			<-release
			return &toolexec.CallToolResult{Content: []toolexec.Content{toolexec.Text("old")}}, nil
		},
	}}
	var closed atomic.Bool
	old.closers = append(old.closers, closerFunc(func() error { closed.Store(true); return nil }))
	p := NewProvider(old)
	done := make(chan string)
	go func() {
		res, _ := p.HandleCallResult(context.Background(), "t", nil)
		done <- res.Text()
	}()
	<-started
	next := &Set{byName: map[string]int{}}
	prev := p.Swap(next)
	closeDone := make(chan struct{})
	go func() { _ = prev.Close(); close(closeDone) }()
	time.Sleep(20 * time.Millisecond)
	assert.False(t, closed.Load(), "the old sources stay open while a call runs on them")
	close(release)
	assert.Equal(t, "old", <-done)
	<-closeDone
	assert.True(t, closed.Load(), "and close once it finished")
}

type closerFunc func() error

func (f closerFunc) Close() error { return f() }
