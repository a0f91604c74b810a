package external

import (
	"context"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolexec/toolexec/bench"
	"github.com/toolexec/toolexec/internal/testserver"
)

// root is the repository's root.
func root(t *testing.T) string {
	t.Helper()
	r, err := filepath.Abs(filepath.Join("..", ".."))
	require.NoError(t, err)
	require.FileExists(t, filepath.Join(r, "cmd", "toolexec", "go.mod"))
	return r
}

var (
	buildOnce sync.Once
	built     Binary
	buildErr  error
	buildDir  string
)

// toolexecBinary builds toolexec once for the package's tests.
func toolexecBinary(t *testing.T) Binary {
	t.Helper()
	buildOnce.Do(func() {
		buildDir, buildErr = os.MkdirTemp("", "toolexec-bench-test-")
		if buildErr == nil {
			built, buildErr = BuildToolexec(context.Background(), root(t), buildDir)
		}
	})
	require.NoError(t, buildErr)
	return built
}

var (
	pgOnce sync.Once
	pg     *Postgres
	pgErr  error
)

// postgres returns the package's PostgreSQL server, started on first
// use. Without the binaries the test is skipped, unless CI is set.
func postgres(t *testing.T) *Postgres {
	t.Helper()
	pgOnce.Do(func() { pg, pgErr = StartPostgres() })
	testserver.Require(t, pgErr)
	return pg
}

func TestMain(m *testing.M) {
	code := m.Run()
	if pg != nil {
		pg.Stop()
	}
	if buildDir != "" {
		_ = os.RemoveAll(buildDir)
	}
	os.Exit(code)
}

// serveAndLoad starts b on config, checks its first answer fully and a
// short load's answers quickly, and reads its figures.
func serveAndLoad(t *testing.T, b Binary, config string) {
	t.Helper()
	p, err := b.Start(config, CallRequest(), CheckAnswer, time.Minute)
	require.NoError(t, err)
	defer p.Stop()
	assert.Positive(t, p.Startup)

	res, err := bench.Drive(p.URL, CallRequest(), bench.LoadOptions{
		Clients: 4, Duration: 200 * time.Millisecond, MaxCalls: 200, Warmup: 2, Check: QuickCheck})
	require.NoError(t, err)
	assert.Zero(t, res.Errors, "%v", res.FirstError)
	assert.Positive(t, res.Requests)

	cpu, err := p.CPU()
	require.NoError(t, err)
	assert.Positive(t, cpu, "it parsed its file and served calls")
	m, err := p.Memory()
	require.NoError(t, err)
	assert.Positive(t, m.RSS)
	assert.GreaterOrEqual(t, m.Peak, m.RSS)
	size, err := b.Size()
	require.NoError(t, err)
	assert.Positive(t, size)

	p.Stop()
	assert.True(t, p.Exited())
}

func TestToolexecServeAnswersTheSQLiteWorkload(t *testing.T) {
	b := toolexecBinary(t)
	assert.Equal(t, ToolexecName, b.Name)
	assert.NotEmpty(t, b.Version)
	config, err := WriteSQLite(context.Background(), t.TempDir())
	require.NoError(t, err)
	serveAndLoad(t, b, config)
}

func TestToolexecServeAnswersThePostgreSQLWorkload(t *testing.T) {
	s := postgres(t)
	config, err := WritePostgres(context.Background(), t.TempDir(), s)
	require.NoError(t, err)
	serveAndLoad(t, toolexecBinary(t), config)
}

var (
	floorOnce sync.Once
	floorBin  Binary
	floorErr  error
)

// floorBinary builds the serve floor once for the package's tests.
func floorBinary(t *testing.T) Binary {
	t.Helper()
	toolexecBinary(t) // makes buildDir
	floorOnce.Do(func() { floorBin, floorErr = BuildFloor(context.Background(), root(t), buildDir) })
	require.NoError(t, floorErr)
	return floorBin
}

// The floor answers the workload with the very bytes toolexec serve
// answers it with, on both databases, so the two do the same work.
func TestTheFloorWritesWhatToolexecServeWrites(t *testing.T) {
	for _, db := range []string{"SQLite", "PostgreSQL"} {
		t.Run(db, func(t *testing.T) {
			var config string
			var err error
			if db == "SQLite" {
				config, err = WriteSQLite(context.Background(), t.TempDir())
			} else {
				config, err = WritePostgres(context.Background(), t.TempDir(), postgres(t))
			}
			require.NoError(t, err)
			answer := func(b Binary) string {
				p, err := b.Start(config, CallRequest(), CheckAnswer, time.Minute)
				require.NoError(t, err)
				defer p.Stop()
				req, err := CallRequest().NewRequest(p.URL)
				require.NoError(t, err)
				resp, err := http.DefaultClient.Do(req)
				require.NoError(t, err)
				defer func() { _ = resp.Body.Close() }()
				body, err := io.ReadAll(resp.Body)
				require.NoError(t, err)
				assert.Equal(t, http.StatusOK, resp.StatusCode)
				assert.Equal(t, "application/json", resp.Header.Get("Content-Type"))
				return string(body)
			}
			assert.Equal(t, answer(toolexecBinary(t)), answer(floorBinary(t)))
			serveAndLoad(t, floorBinary(t), config)
		})
	}
}

// mcp-toolbox is about 300 MB: the tests use it only where `make bench`
// installed it already, and never download it.
func toolboxBinary(t *testing.T) Binary {
	t.Helper()
	path := filepath.Join(root(t), ".cache", "toolbox", "node_modules", "@toolbox-sdk", "server-linux-x64", "bin", "toolbox")
	if !exists(path) {
		t.Skip("mcp-toolbox is not installed under .cache/toolbox (make bench installs it)")
	}
	b, err := Toolbox(context.Background(), path)
	require.NoError(t, err)
	return b
}

func TestToolboxAnswersTheSameWorkload(t *testing.T) {
	b := toolboxBinary(t)
	config, err := WriteSQLite(context.Background(), t.TempDir())
	require.NoError(t, err)
	t.Run("SQLite", func(t *testing.T) { serveAndLoad(t, b, config) })
	t.Run("PostgreSQL", func(t *testing.T) {
		config, err := WritePostgres(context.Background(), t.TempDir(), postgres(t))
		require.NoError(t, err)
		serveAndLoad(t, b, config)
	})
}

func TestStartFailsClearlyWhenTheServerCannotServe(t *testing.T) {
	config := filepath.Join(t.TempDir(), "tools.yaml")
	require.NoError(t, os.WriteFile(config, []byte("sources: [not a map]\n"), 0o600))
	_, err := toolexecBinary(t).Start(config, CallRequest(), CheckAnswer, time.Minute)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "exited while starting")
}

func TestPostgresCountsEverySessionAndAsksForAPassword(t *testing.T) {
	s := postgres(t)
	ctx := context.Background()
	before, err := s.Sessions()
	require.NoError(t, err)
	for range 3 {
		c, err := pgx.Connect(ctx, s.URL())
		require.NoError(t, err)
		require.NoError(t, c.Ping(ctx))
		require.NoError(t, c.Close(ctx))
	}
	wrong := *s
	wrong.Password = "not-the-password"
	_, err = pgx.Connect(ctx, wrong.URL())
	require.Error(t, err, "TCP sessions authenticate")
	// Backends write the line as the session starts; give the last one a
	// moment to reach the file.
	require.Eventually(t, func() bool {
		n, err := s.Sessions()
		return err == nil && n == before+3
	}, 10*time.Second, 10*time.Millisecond)

	cpu, err := s.CPU()
	require.NoError(t, err)
	assert.Positive(t, cpu)
}

func TestTreeCPUTimeCountsChildrenThatExited(t *testing.T) {
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh")
	}
	before, err := TreeCPUTime(os.Getpid())
	require.NoError(t, err)
	cmd := exec.Command(sh, "-c", "i=0; while [ $i -lt 300000 ]; do i=$((i+1)); done")
	require.NoError(t, cmd.Run())
	child := cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
	after, err := TreeCPUTime(os.Getpid())
	require.NoError(t, err)
	// Both figures come from the same accounting, in 10 ms units here.
	assert.GreaterOrEqual(t, after-before, child-10*time.Millisecond)
}

func TestCheckAnswerWantsTheRow(t *testing.T) {
	for _, tc := range []struct {
		name string
		body string
		ok   bool
	}{
		{"a row per text block", `{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"{\"id\":4242,\"name\":\"item-4242\",\"price\":2121}"}]}}`, true},
		{"rows in one block", `{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"{\"rows\":[{\"id\":4242,\"name\":\"item-4242\",\"price\":2121}],\"rowCount\":1}"}],"isError":false}}`, true},
		{"another row", `{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"{\"id\":4243,\"name\":\"item-4243\"}"}]}}`, false},
		{"no row", `{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"null"}]}}`, false},
		{"a tool error", `{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"{\"id\":4242,\"name\":\"item-4242\"}"}],"isError":true}}`, false},
		{"a JSON-RPC error", `{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"item-4242"}}`, false},
		{"another id", `{"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"{\"id\":4242,\"name\":\"item-4242\"}"}]}}`, false},
		{"not JSON", `item-4242`, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := CheckAnswer([]byte(tc.body))
			if tc.ok {
				assert.NoError(t, err)
				assert.NoError(t, QuickCheck([]byte(tc.body)))
			} else {
				assert.Error(t, err)
			}
		})
	}
	assert.Error(t, QuickCheck([]byte(`{"result":{"content":[{"type":"text","text":"item-4242"}],"isError":true}}`)))
	assert.Error(t, QuickCheck([]byte(`{"error":{"message":"no such table"}}`)))
}

// Without npm, and without a copy installed already, InstallToolbox says
// why it cannot provide mcp-toolbox instead of failing obscurely.
func TestInstallToolboxSaysWhyItCannot(t *testing.T) {
	r := t.TempDir()
	pinned := filepath.Join(r, "bench", "toolbox")
	require.NoError(t, os.MkdirAll(pinned, 0o755))
	for _, f := range []string{"package.json", "package-lock.json"} {
		b, err := os.ReadFile(filepath.Join(root(t), "bench", "toolbox", f))
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(filepath.Join(pinned, f), b, 0o644))
	}
	t.Setenv("PATH", t.TempDir()) // no npm on it
	_, err := InstallToolbox(context.Background(), r, func(string) {})
	require.ErrorIs(t, err, ErrToolboxUnavailable)
	if runtime.GOOS == "linux" && runtime.GOARCH == "amd64" {
		assert.Contains(t, err.Error(), "npm not found")
	}
	assert.NoDirExists(t, filepath.Join(r, ".cache", "toolbox", "node_modules"))
}

func TestThePinnedToolboxIsTheVersionCompared(t *testing.T) {
	b, err := os.ReadFile(filepath.Join(root(t), "bench", "toolbox", "package-lock.json"))
	require.NoError(t, err)
	assert.Contains(t, string(b), `"node_modules/@toolbox-sdk/server-linux-x64": {
      "version": "`+ToolboxVersion+`"`)
	assert.Contains(t, string(b), `"integrity": "sha512-`)
}
