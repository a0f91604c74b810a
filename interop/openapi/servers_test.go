package openapi

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/toolexec/toolexec"
)

// The servers whose documents are checked: examples/server and `toolexec
// serve` as built from this repository (each started once per test
// binary), and two in-process servers, one with a tool of each kind the
// document describes differently and one with 1,000 tools.

// token is the bearer token every server here takes.
const token = "openapi-test-token"

var binDir struct {
	once sync.Once
	dir  string
	err  error
}

// buildDir is a directory for the binaries built here, removed when the
// test binary ends.
func buildDir(t *testing.T) string {
	t.Helper()
	binDir.once.Do(func() {
		binDir.dir, binDir.err = os.MkdirTemp("", "openapi-interop-*")
		if binDir.err == nil {
			atExit(func() { _ = os.RemoveAll(binDir.dir) })
		}
	})
	require.NoError(t, binDir.err)
	return binDir.dir
}

var example struct {
	once sync.Once
	base string // the REST mount: http://localhost:PORT/api
	err  error
}

// exampleServer starts examples/server, the program make run starts, and
// returns its REST mount's URL.
func exampleServer(t *testing.T) string {
	t.Helper()
	example.once.Do(func() {
		ok := t.Run("start examples/server", func(t *testing.T) {
			bin := goBuild(t, filepath.Join(repoRoot(t), "examples"), "./server", buildDir(t), "example-server")
			cmd := exec.Command(bin)
			cmd.Env = append(os.Environ(), "PORT=0", "TOOLEXEC_DEMO_TOKEN="+token)
			_, example.base = start(t, cmd, `REST API: +(http://\S+)/tools$`, true)
		})
		if !ok {
			example.err = fmt.Errorf("examples/server did not start")
		}
	})
	require.NoError(t, example.err)
	return example.base
}

var serve struct {
	once sync.Once
	base string // http://127.0.0.1:PORT
	err  error
}

// serveServer starts `toolexec serve` on examples/declarative's tools file
// (copied, since its SQLite database is made beside the file), and returns
// its base URL: the REST mount of every tool is /api, of each toolset
// /toolsets/NAME/api.
func serveServer(t *testing.T) string {
	t.Helper()
	serve.once.Do(func() {
		ok := t.Run("start toolexec serve", func(t *testing.T) {
			root := repoRoot(t)
			bin := goBuild(t, filepath.Join(root, "cmd", "toolexec"), ".", buildDir(t), "toolexec")
			dir := filepath.Join(buildDir(t), "declarative")
			require.NoError(t, os.MkdirAll(dir, 0o755))
			for _, f := range []string{"tools.yaml", "schema.sql"} {
				b, err := os.ReadFile(filepath.Join(root, "examples", "declarative", f))
				require.NoError(t, err)
				require.NoError(t, os.WriteFile(filepath.Join(dir, f), b, 0o644))
			}
			cmd := exec.Command(bin, "serve", "--config", filepath.Join(dir, "tools.yaml"), "--addr", "127.0.0.1:0", "--reload-interval", "0")
			cmd.Env = append(os.Environ(), "TOOLEXEC_TOKEN="+token)
			_, serve.base = start(t, cmd, `REST: +(http://\S+)/api/tools$`, true)
		})
		if !ok {
			serve.err = fmt.Errorf("toolexec serve did not start")
		}
	})
	require.NoError(t, serve.err)
	return serve.base
}

// features is an in-process server with a tool of every kind the document
// describes differently: recursive $defs, an output schema, tasks, a rate
// limit, a concurrency limit, a scope, and one the test removes.
type features struct {
	base    string // the REST mount
	reg     *toolexec.Registry
	release chan struct{} // lets the one running call of "busy" end
	running chan struct{} // a call of "busy" is running
}

// scopeHook is the auth hook: the bearer token, then, for a tool with
// scopes, an X-Scopes header naming each (a stand-in for a token's
// scopes), refused with 403 insufficient_scope as oauth.Verifier does.
func scopeHook(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer "+token {
			toolexec.WriteChallenge(w, http.StatusUnauthorized, `Bearer realm="test"`)
			return
		}
		if c := toolexec.CallFromContext(r.Context()); c != nil {
			for _, s := range c.Tool.Options.Scopes {
				if !slices.Contains(strings.Fields(r.Header.Get("X-Scopes")), s) {
					toolexec.WriteChallenge(w, http.StatusForbidden, `Bearer error="insufficient_scope", scope="`+s+`"`)
					return
				}
			}
		}
		next.ServeHTTP(w, r)
	})
}

// scopeFilter shows a tool only to a caller whose X-Scopes lists its
// scopes.
func scopeFilter(r *http.Request, tools []toolexec.Tool) []toolexec.Tool {
	held := strings.Fields(r.Header.Get("X-Scopes"))
	var out []toolexec.Tool
	for _, t := range tools {
		if !slices.ContainsFunc(t.Options.Scopes, func(s string) bool { return !slices.Contains(held, s) }) {
			out = append(out, t)
		}
	}
	return out
}

// treeSchema is a recursive input schema: a node holds nodes.
const treeSchema = `{"type":"object","properties":{"root":{"$ref":"#/$defs/node"}},"required":["root"],` +
	`"$defs":{"node":{"type":"object","properties":{"name":{"type":"string"},` +
	`"children":{"type":"array","items":{"$ref":"#/$defs/node"}}},"required":["name"]}}}`

// countNodes counts the nodes of a tree argument.
func countNodes(v any) int {
	m, _ := v.(map[string]any)
	n := 1
	children, _ := m["children"].([]any)
	for _, c := range children {
		n += countNodes(c)
	}
	return n
}

func newFeatures(t *testing.T) *features {
	t.Helper()
	f := &features{reg: toolexec.NewRegistry(), release: make(chan struct{}), running: make(chan struct{}, 1)}
	text := func(s string) []toolexec.Content { return []toolexec.Content{toolexec.Text(s)} }
	type nodes struct {
		Nodes int `json:"nodes"`
	}
	toolexec.MustAddTool(f.reg, toolexec.Tool{Name: "tree", Description: "Counts the nodes of a tree.", InputSchema: json.RawMessage(treeSchema),
		OutputSchema: json.RawMessage(`{"type":"object","properties":{"nodes":{"type":"integer"}},"required":["nodes"]}`)},
		func(_ context.Context, args map[string]any) (nodes, error) {
			return nodes{countNodes(args["root"])}, nil
		})
	f.reg.MustAdd(toolexec.Tool{Name: "limited", Description: "One call a minute per caller.",
		Options: toolexec.ToolOptions{RateLimit: &toolexec.RateLimit{Rate: 1, Per: time.Minute}}},
		func(string, map[string]any) ([]toolexec.Content, bool, string, error) {
			return text("ok"), false, "", nil
		})
	f.reg.MustAdd(toolexec.Tool{Name: "busy", Description: "One call at a time.",
		Options: toolexec.ToolOptions{ConcurrencyLimit: &toolexec.ConcurrencyLimit{Max: 1, FailFast: true}}},
		func(ctx context.Context, _ string, _ map[string]any) ([]toolexec.Content, bool, string, error) {
			f.running <- struct{}{}
			select {
			case <-f.release:
			case <-ctx.Done():
			}
			return text("done"), false, "", nil
		})
	f.reg.MustAdd(toolexec.Tool{Name: "job", Description: "Runs a second; may run as a task.",
		InputSchema: json.RawMessage(`{"type":"object","properties":{"ms":{"type":"integer"}}}`),
		Options:     toolexec.ToolOptions{TaskSupport: toolexec.TaskSupportOptional}},
		func(ctx context.Context, _ string, args map[string]any) ([]toolexec.Content, bool, string, error) {
			ms, _ := args["ms"].(float64)
			select {
			case <-time.After(time.Duration(ms) * time.Millisecond):
			case <-ctx.Done():
			}
			return text("finished"), false, "", nil
		})
	f.reg.MustAdd(toolexec.Tool{Name: "batch", Description: "Runs only as a task.", Options: toolexec.ToolOptions{TaskSupport: toolexec.TaskSupportRequired}},
		func(string, map[string]any) ([]toolexec.Content, bool, string, error) {
			return text("ok"), false, "", nil
		})
	f.reg.MustAdd(toolexec.Tool{Name: "report", Description: "Needs the reports scope.", Options: toolexec.ToolOptions{Scopes: []string{"reports"}}},
		func(string, map[string]any) ([]toolexec.Content, bool, string, error) {
			return text("report"), false, "", nil
		})
	f.reg.MustAdd(toolexec.Tool{Name: "gone", Description: "Removed by the test after the document is read."},
		func(string, map[string]any) ([]toolexec.Content, bool, string, error) {
			return text("here"), false, "", nil
		})
	x := toolexec.New(f.reg, f.reg, toolexec.WithAllowExecute(true), toolexec.WithAuthHook(scopeHook), toolexec.WithToolFilter(scopeFilter),
		toolexec.WithLogger(discard()), toolexec.WithOpenAPI(toolexec.OpenAPI{Title: "Features", Version: "0.1.0"}))
	mux := http.NewServeMux()
	mux.Handle("/api/", http.StripPrefix("/api", toolexec.NewHandler(x)))
	srv := httptest.NewServer(mux)
	t.Cleanup(func() {
		select {
		case <-f.release:
		default:
			close(f.release)
		}
		srv.Close()
	})
	f.base = srv.URL + "/api"
	return f
}

// thousandTools is an in-process server of 1,000 tools, each with a schema
// of its own, and returns its REST mount.
func thousandTools(t *testing.T) string {
	t.Helper()
	reg := toolexec.NewRegistry()
	for i := range 1000 {
		reg.MustAdd(toolexec.Tool{Name: fmt.Sprintf("tool_%04d", i), Description: fmt.Sprintf("Tool number %d.", i),
			InputSchema: json.RawMessage(fmt.Sprintf(`{"type":"object","properties":{"a%d":{"type":"integer"},"b":{"type":"string"}},"required":["a%d"]}`, i, i))},
			func(string, map[string]any) ([]toolexec.Content, bool, string, error) { return nil, false, "", nil })
	}
	x := toolexec.New(reg, reg, toolexec.WithAuthHook(scopeHook), toolexec.WithLogger(discard()))
	srv := httptest.NewServer(http.StripPrefix("/api", toolexec.NewHandler(x)))
	t.Cleanup(srv.Close)
	return srv.URL + "/api"
}

// get fetches url with the headers (name, value, ...) and returns the
// body, failing unless the answer is 200.
func get(t *testing.T, url string, headers ...string) []byte {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, url, nil)
	require.NoError(t, err)
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	res, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer res.Body.Close()
	body, err := io.ReadAll(res.Body)
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, res.StatusCode, "%s: %s", url, body)
	return body
}

// save fetches url into dir/name and returns the file's path.
func save(t *testing.T, dir, name, url string, headers ...string) string {
	t.Helper()
	path := filepath.Join(dir, name)
	require.NoError(t, os.WriteFile(path, get(t, url, headers...), 0o644))
	return path
}

func discard() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }
