package external

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"

	"github.com/toolexec/toolexec/internal/testserver"
)

// The servers' names in tables, and the pinned version of mcp-toolbox.
const (
	ToolexecName   = "toolexec serve"
	ToolboxName    = "mcp-toolbox"
	FloorName      = "serve floor"
	ToolboxVersion = "1.12.0"
)

// A Binary is a server program the benchmark starts as a process of its
// own.
type Binary struct {
	// Name is how tables name it: ToolexecName or ToolboxName.
	Name string
	// Path is the executable.
	Path string
	// Version is what the program says its version is.
	Version string
	// Env is added to the environment the process starts with, as
	// KEY=value entries (GOGC=400, say).
	Env []string
	// Args are added to the command line that serves the file (for
	// toolexec, serve's flags: --timeout 0, say).
	Args []string
	// args is the command line that serves config on 127.0.0.1:port,
	// logging warnings and errors only.
	args func(config string, port int) []string
}

// Size is the size of the executable file, in bytes.
func (b Binary) Size() (int64, error) {
	fi, err := os.Stat(b.Path)
	if err != nil {
		return 0, err
	}
	return fi.Size(), nil
}

// BuildToolexec builds the toolexec command of the repository at root
// (root/cmd/toolexec) into dir, as a user builds it (go build, no race
// detector), and returns it. It serves with --log-level warn.
func BuildToolexec(ctx context.Context, root, dir string) (Binary, error) {
	path := filepath.Join(dir, "toolexec")
	if runtime.GOOS == "windows" {
		path += ".exe"
	}
	cmd := exec.CommandContext(ctx, goCommand(), "build", "-o", path, ".")
	cmd.Dir = filepath.Join(root, "cmd", "toolexec")
	if out, err := cmd.CombinedOutput(); err != nil {
		return Binary{}, fmt.Errorf("building toolexec: %v\n%s", err, out)
	}
	return ToolexecAt(ctx, path)
}

// ToolexecAt returns the toolexec command already built at path, as
// BuildToolexec returns the one it builds: for comparing two builds.
func ToolexecAt(ctx context.Context, path string) (Binary, error) {
	out, err := exec.CommandContext(ctx, path, "version").Output()
	if err != nil {
		return Binary{}, fmt.Errorf("%s version: %w", path, err)
	}
	return Binary{
		Name:    ToolexecName,
		Path:    path,
		Version: strings.TrimPrefix(strings.TrimSpace(string(out)), "toolexec "),
		args:    toolexecArgs,
	}, nil
}

// BuildFloor builds the floor toolexec serve is compared with
// (root/bench/cmd/servefloor: the benchmark's call answered by hand with
// net/http and database/sql) into dir, and returns it.
func BuildFloor(ctx context.Context, root, dir string) (Binary, error) {
	path := filepath.Join(dir, "servefloor")
	if runtime.GOOS == "windows" {
		path += ".exe"
	}
	cmd := exec.CommandContext(ctx, goCommand(), "build", "-o", path, "./cmd/servefloor")
	cmd.Dir = filepath.Join(root, "bench")
	if out, err := cmd.CombinedOutput(); err != nil {
		return Binary{}, fmt.Errorf("building servefloor: %v\n%s", err, out)
	}
	return Binary{
		Name:    FloorName,
		Path:    path,
		Version: "bench/cmd/servefloor",
		args: func(config string, port int) []string {
			return []string{"-config", config, "-addr", "127.0.0.1:" + strconv.Itoa(port)}
		},
	}, nil
}

// toolexecArgs serves config on 127.0.0.1:port, logging warnings and
// errors only.
func toolexecArgs(config string, port int) []string {
	return []string{"serve", "--config", config, "--addr", "127.0.0.1:" + strconv.Itoa(port), "--log-level", "warn"}
}

// goCommand is the go command that runs this program's build: $GO when
// set (the Makefile's), else go on PATH.
func goCommand() string {
	if g := os.Getenv("GO"); g != "" {
		return g
	}
	return "go"
}

// Toolbox returns the mcp-toolbox server binary at path, after checking
// that it reports ToolboxVersion. It serves with --log-level WARN (its
// default, INFO, logs every request), --disable-version-check (which
// would otherwise reach out to the internet at start-up) and every other
// setting at its default.
func Toolbox(ctx context.Context, path string) (Binary, error) {
	out, err := exec.CommandContext(ctx, path, "--version").Output()
	if err != nil {
		return Binary{}, fmt.Errorf("%s --version: %w", path, err)
	}
	// "toolbox version 1.12.0+binary.linux.amd64.c97ca4d"
	v := strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(string(out)), "toolbox version"))
	if base, _, _ := strings.Cut(v, "+"); base != ToolboxVersion {
		return Binary{}, fmt.Errorf("%s is version %q, want %s", path, v, ToolboxVersion)
	}
	return Binary{
		Name:    ToolboxName,
		Path:    path,
		Version: v,
		args: func(config string, port int) []string {
			return []string{"--config", config, "--address", "127.0.0.1", "--port", strconv.Itoa(port),
				"--log-level", "WARN", "--disable-version-check"}
		},
	}, nil
}

// ErrToolboxUnavailable wraps every reason InstallToolbox could not
// provide mcp-toolbox.
var ErrToolboxUnavailable = errors.New("mcp-toolbox is not available")

// InstallToolbox returns mcp-toolbox's server, the version that
// root/bench/toolbox/package-lock.json pins (npm's
// @toolbox-sdk/server-linux-x64, a binary of about 300 MB), installed with
// npm ci under root/.cache/toolbox the first time, as `make conformance`
// installs its suites. An error (wrapping ErrToolboxUnavailable) says why
// it could not: no npm, no network, a platform the package is not built
// for. log receives what it is doing.
func InstallToolbox(ctx context.Context, root string, log func(string)) (Binary, error) {
	pinned := filepath.Join(root, "bench", "toolbox")
	cache := filepath.Join(root, ".cache", "toolbox")
	bin := filepath.Join(cache, "node_modules", "@toolbox-sdk", "server-linux-x64", "bin", "toolbox")
	lock, err := os.ReadFile(filepath.Join(pinned, "package-lock.json"))
	if err != nil {
		return Binary{}, fmt.Errorf("%w: %v", ErrToolboxUnavailable, err)
	}
	if have, _ := os.ReadFile(filepath.Join(cache, "package-lock.json")); !bytes.Equal(have, lock) || !exists(bin) {
		if runtime.GOOS != "linux" || runtime.GOARCH != "amd64" {
			return Binary{}, fmt.Errorf("%w: npm ships it for linux/amd64 only, this is %s/%s", ErrToolboxUnavailable, runtime.GOOS, runtime.GOARCH)
		}
		npm, err := exec.LookPath("npm")
		if err != nil {
			return Binary{}, fmt.Errorf("%w: npm not found (apt-get install npm)", ErrToolboxUnavailable)
		}
		log(fmt.Sprintf("installing mcp-toolbox %s (about 300 MB) with npm ci into %s", ToolboxVersion, cache))
		if err := os.MkdirAll(cache, 0o755); err != nil {
			return Binary{}, fmt.Errorf("%w: %v", ErrToolboxUnavailable, err)
		}
		for _, f := range []string{"package.json", "package-lock.json"} {
			b, err := os.ReadFile(filepath.Join(pinned, f))
			if err == nil {
				err = os.WriteFile(filepath.Join(cache, f), b, 0o644)
			}
			if err != nil {
				return Binary{}, fmt.Errorf("%w: %v", ErrToolboxUnavailable, err)
			}
		}
		cmd := exec.CommandContext(ctx, npm, "ci", "--silent", "--no-audit", "--no-fund", "--prefix", cache)
		if out, err := cmd.CombinedOutput(); err != nil {
			return Binary{}, fmt.Errorf("%w: npm ci: %v\n%s", ErrToolboxUnavailable, err, testserver.Tail(out, 10))
		}
	}
	b, err := Toolbox(ctx, bin)
	if err != nil {
		return Binary{}, fmt.Errorf("%w: %v", ErrToolboxUnavailable, err)
	}
	return b, nil
}

func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}
