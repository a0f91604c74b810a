package server

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/toolexec/toolexec"
	"github.com/toolexec/toolexec/cmd/toolexec/internal/config"
)

// build parses yaml (written to a temp dir, with extra files beside it)
// and builds its Set, closed at the end of the test.
func build(t testing.TB, yaml string, files map[string]string, env map[string]string) *Set {
	t.Helper()
	return buildIn(t, t.TempDir(), yaml, files, env)
}

// buildIn is build with the files in dir.
func buildIn(t testing.TB, dir, yaml string, files map[string]string, env map[string]string) *Set {
	t.Helper()
	for name, body := range files {
		require.NoError(t, os.WriteFile(filepath.Join(dir, name), []byte(body), 0o600))
	}
	path := filepath.Join(dir, "tools.yaml")
	require.NoError(t, os.WriteFile(path, []byte(yaml), 0o600))
	cfg, err := config.Load(path, func(k string) (string, bool) { v, ok := env[k]; return v, ok })
	require.NoError(t, err)
	set, err := Build(context.Background(), cfg, nil)
	require.NoError(t, err)
	t.Cleanup(func() { _ = set.Close() })
	return set
}

// buildWithConfig is build with a change to the loaded config before the
// set is built (a test simulating what a file cannot say).
func buildWithConfig(t testing.TB, yaml string, files map[string]string, change func(*config.Config)) *Set {
	t.Helper()
	dir := t.TempDir()
	for name, body := range files {
		require.NoError(t, os.WriteFile(filepath.Join(dir, name), []byte(body), 0o600))
	}
	path := filepath.Join(dir, "tools.yaml")
	require.NoError(t, os.WriteFile(path, []byte(yaml), 0o600))
	cfg, err := config.Load(path, func(string) (string, bool) { return "", false })
	require.NoError(t, err)
	change(cfg)
	set, err := Build(context.Background(), cfg, nil)
	require.NoError(t, err)
	t.Cleanup(func() { _ = set.Close() })
	return set
}

// executor serves set through a real Executor with the command's options.
func executor(set *Set, o Options) *toolexec.Executor {
	return o.executor(NewProvider(set))
}

// call runs one in-process call and returns the result (nil on a failed
// call) and the error.
func call(t testing.TB, x *toolexec.Executor, name string, args any) (*toolexec.CallToolResult, error) {
	t.Helper()
	b, err := json.Marshal(args)
	require.NoError(t, err)
	return x.Call(context.Background(), toolexec.CallRequest{Name: name, Arguments: b})
}

// rows returns the rows of a SQL tool's result.
func rows(t testing.TB, res *toolexec.CallToolResult) []map[string]any {
	t.Helper()
	require.NotNil(t, res)
	require.False(t, res.IsError, res.Text())
	sc, ok := res.StructuredContent.(map[string]any)
	require.True(t, ok, "structuredContent is an object")
	rs, ok := sc["rows"].([]any)
	require.True(t, ok)
	out := make([]map[string]any, len(rs))
	for i, r := range rs {
		out[i] = r.(map[string]any)
	}
	return out
}

// texts returns the text of each content block of res.
func texts(t testing.TB, res *toolexec.CallToolResult) []string {
	t.Helper()
	require.NotNil(t, res)
	out := make([]string, 0, len(res.Content))
	for _, c := range res.Content {
		tc, ok := c.(*toolexec.TextContent)
		require.True(t, ok, "%T", c)
		out = append(out, tc.Text)
	}
	return out
}
