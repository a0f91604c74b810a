package openapi

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// What the tests run: the pinned npm tools and Node 22, installed once per
// machine, and the two servers built from this repository.

// nodeVersion is the Node major version the tools run on (Prism and
// swagger-parser need 22), the one make conformance installs.
const nodeVersion = "22"

// need skips the test when a tool it needs cannot be had here, unless CI
// is set: CI must run it.
func need(t *testing.T, err error, what string) {
	t.Helper()
	if err == nil {
		return
	}
	if os.Getenv("CI") == "" {
		t.Skipf("needs %s (npm installs the pinned OpenAPI tools of interop/openapi into .cache/openapi; .ci/deps installs npm): %v", what, err)
	}
	t.Fatalf("%s: %v", what, err)
}

// repoRoot is the repository's root directory.
func repoRoot(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs(filepath.Join("..", ".."))
	require.NoError(t, err)
	return root
}

// cacheDir is where the tools are installed: $CONFORMANCE_CACHE, else the
// repository's .cache/ (as interop/conformance/run.sh installs its suites).
func cacheDir(t *testing.T) string {
	if c := os.Getenv("CONFORMANCE_CACHE"); c != "" {
		return c
	}
	return filepath.Join(repoRoot(t), ".cache")
}

// toolchain is the installed tools: dir holds node_modules, and env puts
// Node 22 first on PATH.
type toolchain struct {
	dir string
	env []string
}

var installed struct {
	once sync.Once
	tc   *toolchain
	err  error
	what string
}

// tools installs, once per test binary, Node 22 and the tools pinned here.
func tools(t *testing.T) *toolchain {
	t.Helper()
	installed.once.Do(func() {
		installed.tc, installed.what, installed.err = install(cacheDir(t))
	})
	need(t, installed.err, installed.what)
	return installed.tc
}

func install(cache string) (*toolchain, string, error) {
	npm, err := exec.LookPath("npm")
	if err != nil {
		return nil, "npm", err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	nodeDir := filepath.Join(cache, "node"+nodeVersion)
	node := filepath.Join(nodeDir, "node_modules", ".bin", "node")
	if out, err := exec.CommandContext(ctx, node, "--version").Output(); err != nil || !strings.HasPrefix(string(out), "v"+nodeVersion+".") {
		err := installInto(nodeDir, func(tmp string) *exec.Cmd {
			return exec.CommandContext(ctx, npm, "install", "--silent", "--no-audit", "--no-fund", "--prefix", tmp, "node@"+nodeVersion)
		}, nil)
		if err != nil {
			return nil, "Node " + nodeVersion + " from npm", err
		}
	}
	real, err := filepath.EvalSymlinks(node)
	if err != nil {
		return nil, "Node " + nodeVersion, err
	}
	env := append(os.Environ(), "PATH="+filepath.Dir(real)+string(os.PathListSeparator)+os.Getenv("PATH"))
	lock, err := os.ReadFile("package-lock.json")
	if err != nil {
		return nil, "package-lock.json", err
	}
	dir := filepath.Join(cache, "openapi")
	have, _ := os.ReadFile(filepath.Join(dir, "package-lock.json"))
	if _, err := os.Stat(filepath.Join(dir, "node_modules", ".bin", "prism")); err != nil || !bytes.Equal(have, lock) {
		err := installInto(dir, func(tmp string) *exec.Cmd {
			cmd := exec.CommandContext(ctx, npm, "ci", "--silent", "--no-audit", "--no-fund", "--prefix", tmp)
			cmd.Env = env
			return cmd
		}, []string{"package.json", "package-lock.json"})
		if err != nil {
			return nil, "npm ci of interop/openapi's package-lock.json", err
		}
	}
	return &toolchain{dir: dir, env: env}, "", nil
}

// installInto runs the install cmd makes into a fresh directory beside
// dir (with files copied there first) and renames it to dir, so that a
// concurrent run never sees half an installation.
func installInto(dir string, cmd func(tmp string) *exec.Cmd, files []string) error {
	if err := os.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
		return err
	}
	tmp, err := os.MkdirTemp(filepath.Dir(dir), filepath.Base(dir)+"-*")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(tmp, f), b, 0o644); err != nil {
			return err
		}
	}
	c := cmd(tmp)
	c.Dir = tmp
	if out, err := c.CombinedOutput(); err != nil {
		return fmt.Errorf("%v: %s", err, bytes.TrimSpace(out))
	}
	_ = os.RemoveAll(dir)
	if err := os.Rename(tmp, dir); err != nil {
		if _, statErr := os.Stat(dir); statErr != nil { // else another run installed it meanwhile
			return err
		}
	}
	return nil
}

// bin is the path of an installed tool's command.
func (tc *toolchain) bin(name string) string {
	return filepath.Join(tc.dir, "node_modules", ".bin", name)
}

// workDir is a fresh directory inside the installation, where scripts
// find its node_modules as Node and tsc resolve them; it is removed when
// the test ends.
func (tc *toolchain) workDir(t *testing.T) string {
	t.Helper()
	dir, err := os.MkdirTemp(tc.dir, "run-*")
	require.NoError(t, err)
	t.Cleanup(func() { _ = os.RemoveAll(dir) })
	return dir
}

// run runs a command of the toolchain in dir and returns its output; the
// test fails if it cannot start or times out, not if it exits non-zero.
func (tc *toolchain) run(t *testing.T, dir string, timeout time.Duration, name string, args ...string) (stdout, stderr string, exit int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = dir
	cmd.Env = tc.env
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	require.NoError(t, ctx.Err(), "%s timed out: %s", name, errOut.String())
	if ee, ok := err.(*exec.ExitError); ok {
		return out.String(), errOut.String(), ee.ExitCode()
	}
	require.NoError(t, err, "%s", name)
	return out.String(), errOut.String(), 0
}

// goBuild builds the command in pkg of the module at modDir into
// dir/name.
func goBuild(t *testing.T, modDir, pkg, dir, name string) string {
	t.Helper()
	out := filepath.Join(dir, name)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "go", "build", "-o", out, pkg)
	cmd.Dir = modDir
	b, err := cmd.CombinedOutput()
	require.NoError(t, err, "go build %s: %s", pkg, b)
	return out
}

// process is a server this test started.
type process struct {
	cmd    *exec.Cmd
	stderr lockedBuffer
}

// lockedBuffer is a bytes.Buffer a process writes while a test reads it.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// start runs cmd and waits for a line of its standard output that pattern
// matches, returning the pattern's first group. The process is killed
// when the test ends, or, with shared, when the test binary ends.
func start(t *testing.T, cmd *exec.Cmd, pattern string, shared bool) (*process, string) {
	t.Helper()
	p := &process{cmd: cmd}
	out, err := cmd.StdoutPipe()
	require.NoError(t, err)
	cmd.Stderr = &p.stderr
	require.NoError(t, cmd.Start())
	stop := func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	}
	if shared {
		atExit(stop)
	} else {
		t.Cleanup(stop)
	}
	re := regexp.MustCompile(pattern)
	found := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			if m := re.FindStringSubmatch(sc.Text()); m != nil {
				found <- m[1]
				break
			}
		}
		_, _ = io.Copy(io.Discard, out)
	}()
	select {
	case v := <-found:
		return p, v
	case <-time.After(2 * time.Minute):
		t.Fatalf("%s did not start: %s", cmd.Path, p.stderr.String())
	}
	return nil, ""
}

var exits struct {
	mu  sync.Mutex
	fns []func()
}

// atExit registers f to run when the test binary's tests have ended.
func atExit(f func()) {
	exits.mu.Lock()
	defer exits.mu.Unlock()
	exits.fns = append(exits.fns, f)
}

func TestMain(m *testing.M) {
	code := m.Run()
	exits.mu.Lock()
	for _, f := range exits.fns {
		f()
	}
	exits.mu.Unlock()
	os.Exit(code)
}
