package config

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// parseIn parses yaml as dir/tools.yaml with files beside it.
func parseIn(t *testing.T, yaml string, files ...string) (*Config, Problems, string) {
	t.Helper()
	dir := t.TempDir()
	for _, f := range files {
		p := filepath.Join(dir, f)
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte("export default () => 1;\n"), 0o600))
	}
	cfg, err := Parse([]byte(yaml), "tools.yaml", dir, env(nil))
	if err == nil {
		return cfg, nil, dir
	}
	var ps Problems
	require.True(t, errors.As(err, &ps), err)
	return nil, ps, dir
}

func TestParse_ScriptTool(t *testing.T) {
	cfg, ps, dir := parseIn(t, `
sources:
  db: {kind: sqlite, database: ":memory:"}
tools:
  shout:
    kind: script
    source: scripts/shout.ts
    description: Shouts.
    parameters:
      - {name: text, type: string, description: The text.}
      - {name: times, type: integer, description: How often., default: 1}
    annotations: {readOnlyHint: true, idempotentHint: true}
    timeout: 2s
    maxConcurrency: 3
    rateLimit: 10/1m
    cache: true
    cacheTTL: 1m
    taskSupport: optional
    maxBytes: 4096
    allowedHosts: [api.example.com, "*.cdn.example.com:8443"]
    transforms: {input: scripts/in.ts, output: "scripts/out.js#shape"}
  rows:
    kind: sqlite-sql
    source: db
    description: Rows.
    statement: SELECT 1 AS one
    transforms:
      output: scripts/out.js
`, "scripts/shout.ts", "scripts/in.ts", "scripts/out.js")
	require.Nil(t, ps, ps.Error())
	shout := cfg.Tools[0]
	assert.Equal(t, KindScript, shout.Kind)
	assert.Equal(t, &Script{Path: filepath.Join(dir, "scripts", "shout.ts"), File: "tools.yaml", Line: 7, Column: 13}, shout.Handler)
	assert.Equal(t, &Script{Path: filepath.Join(dir, "scripts", "in.ts"), File: "tools.yaml", Line: 21, Column: 25}, shout.Transforms.Input)
	assert.Equal(t, "shape", shout.Transforms.Output.Export)
	assert.True(t, shout.ReadOnly)
	assert.Equal(t, []string{"api.example.com", "*.cdn.example.com:8443"}, shout.FetchHosts)
	assert.Len(t, shout.Scripts(), 3)
	assert.Equal(t, TaskOptional, shout.TaskSupport)
	assert.Len(t, shout.Parameters, 2)
	rows := cfg.Tools[1]
	assert.Nil(t, rows.Transforms.Input)
	assert.Equal(t, filepath.Join(dir, "scripts", "out.js"), rows.Transforms.Output.Path)
}

func TestParse_ScriptToolIsNotReadOnlyUnlessSaid(t *testing.T) {
	cfg, ps, _ := parseIn(t, `
tools:
  t: {kind: script, source: a.js, description: d}
`, "a.js")
	require.Nil(t, ps, ps.Error())
	assert.False(t, cfg.Tools[0].ReadOnly)
}

func TestParse_ScriptProblemsAtTheirLines(t *testing.T) {
	src := strings.Join([]string{
		/* 1 */ "sources:",
		/* 2 */ "  api: {kind: http, baseUrl: 'https://api.example.com'}",
		/* 3 */ "tools:",
		/* 4 */ "  missing:",
		/* 5 */ "    kind: script",
		/* 6 */ "    source: nope.ts",
		/* 7 */ "    description: d",
		/* 8 */ "  not-a-script:",
		/* 9 */ "    kind: script",
		/* 10 */ "    source: a.py",
		/* 11 */ "    description: d",
		/* 12 */ "    statement: SELECT 1",
		/* 13 */ "  bad-transforms:",
		/* 14 */ "    kind: http",
		/* 15 */ "    source: api",
		/* 16 */ "    method: GET",
		/* 17 */ "    description: d",
		/* 18 */ "    transforms: {input: gone.ts, after: a.js}",
		/* 19 */ "  hosts-without-scripts:",
		/* 20 */ "    kind: http",
		/* 21 */ "    source: api",
		/* 22 */ "    method: GET",
		/* 23 */ "    description: d",
		/* 24 */ "    allowedHosts: [other.example.com, 'https://x']",
		/* 25 */ "  private-without-hosts:",
		/* 26 */ "    kind: script",
		/* 27 */ "    source: a.js",
		/* 28 */ "    description: d",
		/* 29 */ "    allowPrivateNetworks: true",
	}, "\n")
	_, ps, _ := parseIn(t, src, "a.js")
	require.NotNil(t, ps)
	assert.Contains(t, at(ps, 6, 13), `tool "missing" source: the script "nope.ts" cannot be read`, ps.Error())
	assert.Contains(t, at(ps, 10, 13), `tool "not-a-script" source: "a.py" is not a script`, ps.Error())
	assert.Contains(t, at(ps, 8, 3), `tool "not-a-script": statement and templateParameters are for sql tools`, ps.Error())
	assert.Contains(t, at(ps, 18, 25), `tool "bad-transforms" transforms input: the script "gone.ts" cannot be read`, ps.Error())
	assert.Contains(t, at(ps, 18, 34), `tool "bad-transforms" transforms: unknown field "after"`, ps.Error())
	assert.Contains(t, at(ps, 24, 39), `allowedHosts entry "https://x": it is a host name, not a URL`, ps.Error())
	assert.Contains(t, at(ps, 24, 19), `tool "hosts-without-scripts": allowedHosts on a tool lists the hosts its scripts' fetch may reach, and the tool has no script`, ps.Error())
	assert.Contains(t, at(ps, 29, 27), `tool "private-without-hosts": allowPrivateNetworks on a tool is for the hosts of its allowedHosts, and it lists none`, ps.Error())
}
