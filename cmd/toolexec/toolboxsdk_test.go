package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// toolboxSDKDir is where the pinned SDK (testdata/toolboxsdk) is
// installed: under the repository's .cache/ (or $CONFORMANCE_CACHE), as
// make conformance installs its suites.
func toolboxSDKDir() (string, error) {
	cache := os.Getenv("CONFORMANCE_CACHE")
	if cache == "" {
		root, err := filepath.Abs(filepath.Join("..", ".."))
		if err != nil {
			return "", err
		}
		cache = filepath.Join(root, ".cache")
	}
	return filepath.Join(cache, "toolbox-sdk"), nil
}

// needTool skips the test when the SDK cannot be run here, unless CI is
// set: CI must run it.
func needTool(t *testing.T, err error, what string) {
	t.Helper()
	if err == nil {
		return
	}
	if os.Getenv("CI") == "" {
		t.Skipf("TestToolboxSDK needs %s (npm installs @toolbox-sdk/core from the npm registry into .cache/toolbox-sdk): %v", what, err)
	}
	t.Fatalf("%s: %v", what, err)
}

// installToolboxSDK installs the SDK pinned by testdata/toolboxsdk's
// package-lock.json, once: npm ci into a fresh directory, renamed into
// place, so concurrent runs never see half an installation. It returns the
// directory holding node_modules and the client script.
func installToolboxSDK(t *testing.T) string {
	t.Helper()
	node, err := exec.LookPath("node")
	needTool(t, err, "node (20 or newer)")
	v, err := exec.Command(node, "--version").Output()
	needTool(t, err, "node (20 or newer)")
	if m := regexp.MustCompile(`^v(\d+)\.`).FindSubmatch(v); m == nil || atoi(m[1]) < 20 {
		needTool(t, fmt.Errorf("found %s", bytes.TrimSpace(v)), "node 20 or newer")
	}
	dir, err := toolboxSDKDir()
	require.NoError(t, err)
	lock, err := os.ReadFile(filepath.Join("testdata", "toolboxsdk", "package-lock.json"))
	require.NoError(t, err)
	installed, _ := os.ReadFile(filepath.Join(dir, "package-lock.json"))
	if bytes.Equal(lock, installed) {
		if _, err := os.Stat(filepath.Join(dir, "node_modules", "@toolbox-sdk", "core")); err == nil {
			return copyClient(t, dir)
		}
	}
	npm, err := exec.LookPath("npm")
	needTool(t, err, "npm")
	require.NoError(t, os.MkdirAll(filepath.Dir(dir), 0o755))
	tmp, err := os.MkdirTemp(filepath.Dir(dir), "toolbox-sdk-*")
	require.NoError(t, err)
	defer os.RemoveAll(tmp)
	for _, f := range []string{"package.json", "package-lock.json"} {
		b, err := os.ReadFile(filepath.Join("testdata", "toolboxsdk", f))
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(filepath.Join(tmp, f), b, 0o644))
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, npm, "ci", "--silent", "--no-audit", "--no-fund", "--prefix", tmp)
	cmd.Dir = tmp
	if out, err := cmd.CombinedOutput(); err != nil {
		needTool(t, fmt.Errorf("%v: %s", err, bytes.TrimSpace(out)), "npm ci of @toolbox-sdk/core")
	}
	_ = os.RemoveAll(dir)
	if err := os.Rename(tmp, dir); err != nil && !os.IsExist(err) {
		// Another run installed it meanwhile: use theirs.
		if _, statErr := os.Stat(filepath.Join(dir, "node_modules", "@toolbox-sdk", "core")); statErr != nil {
			require.NoError(t, err)
		}
	}
	return copyClient(t, dir)
}

// copyClient puts the client script beside the SDK's node_modules, where
// node resolves its import, and returns dir.
func copyClient(t *testing.T, dir string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "toolboxsdk", "client.mjs"))
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "client.mjs"), b, 0o644))
	return dir
}

func atoi(b []byte) int {
	n, _ := strconv.Atoi(string(b))
	return n
}

// sdkTools is mcp-toolbox's hotels quickstart, reads only, on SQLite, in
// toolbox's own form, with a tool whose statement fails at run time.
const sdkTools = `
sources:
  my-sqlite:
    kind: sqlite
    database: hotels.db
    init: hotels.sql
tools:
  search-hotels-by-name:
    kind: sqlite-sql
    source: my-sqlite
    description: Search for hotels based on name.
    parameters:
      - name: name
        type: string
        description: The name of the hotel.
    statement: SELECT id, name, location FROM hotels WHERE name LIKE '%' || ? || '%' ORDER BY id
  search-hotels-by-location:
    kind: sqlite-sql
    source: my-sqlite
    description: Search for hotels based on location.
    parameters:
      - name: location
        type: string
        description: The location of the hotel.
      - name: limit
        type: integer
        description: How many hotels at most.
        default: 10
    statement: SELECT id, name FROM hotels WHERE location = ? ORDER BY id LIMIT ?
  get-hotel:
    kind: sqlite-sql
    source: my-sqlite
    description: Get one hotel by its id.
    parameters:
      - name: id
        type: integer
        description: The hotel's id.
    statement: SELECT id, name, location FROM hotels WHERE id = ?
  parse-json:
    kind: sqlite-sql
    source: my-sqlite
    description: Reads a JSON document (fails on anything else).
    parameters:
      - name: doc
        type: string
        description: A JSON document.
    statement: SELECT json_extract(?, '$.a') AS a
toolsets:
  hotels:
    - search-hotels-by-name
    - search-hotels-by-location
`

const sdkSchema = `CREATE TABLE hotels (id INTEGER PRIMARY KEY, name TEXT NOT NULL, location TEXT NOT NULL);
INSERT INTO hotels VALUES (1, 'Hilton Basel', 'Basel'), (2, 'Marriott Zurich', 'Zurich'), (3, 'Hyatt Regency Basel', 'Basel'),
  (4, 'Radisson Blu Lucerne', 'Lucerne'), (5, 'Best Western Bern', 'Bern');`

// sdkStep is what client.mjs reports of one step.
type sdkStep struct {
	OK    bool            `json:"ok"`
	Value json.RawMessage `json:"value"`
	Error string          `json:"error"`
}

// TestToolboxSDK drives mcp-toolbox's own JavaScript SDK (@toolbox-sdk/core
// 1.2.0, from npm) against `toolexec serve` with a tools file in toolbox's
// form, at the SDK's default protocol and at every version it offers:
// loading the default toolset, a named toolset (/mcp/NAME) and single
// tools, and invoking them with a token in the client's headers, as a
// toolbox user's code does.
func TestToolboxSDK(t *testing.T) {
	if testing.Short() {
		t.Skip("starts node once per protocol version")
	}
	dir := installToolboxSDK(t)
	work := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(work, "hotels.sql"), []byte(sdkSchema), 0o600))
	base, _ := startServerWith(t, work, sdkTools, map[string]string{"TOOLEXEC_TOKEN": "tok"})

	for _, c := range []struct{ protocol, negotiated string }{
		{"", "2026-07-28"}, // the SDK's default
		{"2026-07-28", "2026-07-28"},
		{"2025-11-25", "2025-11-25"},
		{"2025-06-18", "2025-06-18"},
		{"2025-03-26", "2025-03-26"},
		// toolexec does not speak 2024-11-05: initialize answers the
		// newest version it negotiates, and the SDK goes on with that.
		{"2024-11-05", "2025-11-25"},
	} {
		name := c.protocol
		if name == "" {
			name = "default"
		}
		t.Run(name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			defer cancel()
			cmd := exec.CommandContext(ctx, "node", "client.mjs", base, c.protocol, "tok")
			cmd.Dir = dir
			var stdout, stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			require.NoError(t, cmd.Run(), stderr.String())
			var out struct {
				Steps           map[string]sdkStep
				ProtocolVersion string
			}
			raw := map[string]json.RawMessage{}
			require.NoError(t, json.Unmarshal(stdout.Bytes(), &raw), stdout.String())
			out.Steps = map[string]sdkStep{}
			for k, v := range raw {
				if k == "protocolVersion" {
					require.NoError(t, json.Unmarshal(v, &out.ProtocolVersion))
					continue
				}
				var s sdkStep
				require.NoError(t, json.Unmarshal(v, &s))
				out.Steps[k] = s
			}
			step := func(name string) sdkStep {
				s, ok := out.Steps[name]
				require.True(t, ok, "step %s: %s", name, stdout.String())
				return s
			}
			ok := func(name string) string {
				s := step(name)
				require.True(t, s.OK, "%s failed: %s\nstderr: %s", name, s.Error, stderr.String())
				return string(s.Value)
			}

			assert.Equal(t, c.negotiated, out.ProtocolVersion)
			assert.JSONEq(t, `["get-hotel","parse-json","search-hotels-by-location","search-hotels-by-name"]`, ok("defaultToolset"))
			assert.JSONEq(t, `["search-hotels-by-location","search-hotels-by-name"]`, ok("namedToolset"), "/mcp/hotels lists the toolset only")
			assert.False(t, step("unknownToolset").OK, "an unknown toolset fails to load")

			// The SDK returns a call's text content as a string.
			assert.Contains(t, ok("invokeFromToolset"), "Hilton Basel")
			v := ok("invokeWithDefault")
			assert.Contains(t, v, "Hilton Basel")
			assert.Contains(t, v, "Hyatt Regency Basel")
			assert.NotContains(t, v, "Zurich")
			assert.Contains(t, ok("loadTool"), "Hyatt Regency Basel")
			assert.NotContains(t, ok("noRows"), "Hilton")

			// The SDK checks argument types itself before calling.
			assert.False(t, step("wrongType").OK)
			assert.Contains(t, step("wrongType").Error, "Argument validation failed")
			// A statement that fails is a tool error (isError: true, the
			// database's message as the text). @toolbox-sdk/core 1.2.0 does
			// not read isError, with toolbox as with toolexec: its caller
			// gets the message as the call's string.
			assert.Contains(t, ok("failingCall"), "malformed JSON")
			assert.False(t, step("unknownTool").OK)
		})
	}
}
