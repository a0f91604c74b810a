// Package npmtest installs, for tests, npm packages pinned by a
// package-lock.json and the Node.js they run on, under the repository's
// .cache/ directory (or $CONFORMANCE_CACHE), as make conformance installs
// its suites: once, with npm ci into a fresh directory renamed into place,
// so that concurrent test processes never see half an installation.
package npmtest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// NodeMajor is the major version of the Node.js Node installs: the one
// make conformance installs, which oidc-provider 9 asks for.
const NodeMajor = "22"

// ErrNoNPM is the error of Node and Install when npm is not on PATH.
var ErrNoNPM = errors.New("npmtest: npm not found (apt-get install npm)")

// installTimeout bounds one npm run.
const installTimeout = 10 * time.Minute

// Need skips t when err says npm could not install what a test needs,
// naming it (what), unless the environment sets CI: CI must run every
// test, so there t fails.
func Need(t testing.TB, err error, what string) {
	t.Helper()
	if err == nil {
		return
	}
	if os.Getenv("CI") == "" {
		t.Skipf("%s is needed, installed with npm under .cache/ (set CI to make this a failure): %v", what, err)
	}
	t.Fatalf("%s: %v", what, err)
}

// CacheDir is where packages are installed: $CONFORMANCE_CACHE, else the
// .cache directory of the repository holding the working directory.
func CacheDir() (string, error) {
	if c := os.Getenv("CONFORMANCE_CACHE"); c != "" {
		return c, nil
	}
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		b, err := os.ReadFile(filepath.Join(dir, "go.mod"))
		if err == nil && bytes.HasPrefix(b, []byte("module github.com/toolexec/toolexec\n")) {
			return filepath.Join(dir, ".cache"), nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("npmtest: not inside the toolexec repository")
		}
		dir = parent
	}
}

// Node returns the path of a Node.js binary of major version NodeMajor,
// installed with npm under CacheDir()/node22 the first time.
func Node() (string, error) {
	cache, err := CacheDir()
	if err != nil {
		return "", err
	}
	dir := filepath.Join(cache, "node"+NodeMajor)
	bin := filepath.Join(dir, "node_modules", ".bin", "node")
	if nodeVersionOK(bin) {
		return bin, nil
	}
	err = installInto(dir, func(tmp string) error {
		return npm(tmp, "install", "--silent", "--no-audit", "--no-fund", "--prefix", tmp, "node@"+NodeMajor)
	}, func() bool { return nodeVersionOK(bin) })
	if err != nil {
		return "", err
	}
	if !nodeVersionOK(bin) {
		return "", fmt.Errorf("npmtest: Node %s did not install into %s", NodeMajor, dir)
	}
	return bin, nil
}

func nodeVersionOK(bin string) bool {
	out, err := exec.Command(bin, "--version").Output()
	return err == nil && strings.HasPrefix(string(out), "v"+NodeMajor+".")
}

// Install installs the packages that packageJSON and lock pin into
// CacheDir()/name with npm ci, unless the lock there is already lock, and
// returns that directory (its node_modules beside the two files).
func Install(name string, packageJSON, lock []byte) (string, error) {
	cache, err := CacheDir()
	if err != nil {
		return "", err
	}
	dir := filepath.Join(cache, name)
	complete := func() bool {
		installed, err := os.ReadFile(filepath.Join(dir, "package-lock.json"))
		if err != nil || !bytes.Equal(installed, lock) {
			return false
		}
		_, err = os.Stat(filepath.Join(dir, "node_modules"))
		return err == nil
	}
	if complete() {
		return dir, nil
	}
	err = installInto(dir, func(tmp string) error {
		if err := os.WriteFile(filepath.Join(tmp, "package.json"), packageJSON, 0o644); err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(tmp, "package-lock.json"), lock, 0o644); err != nil {
			return err
		}
		return npm(tmp, "ci", "--silent", "--no-audit", "--no-fund", "--prefix", tmp)
	}, complete)
	return dir, err
}

// installInto runs fill on a fresh directory beside dir and renames it to
// dir, replacing what was there, unless complete reports that another
// process has put a complete installation there meanwhile.
func installInto(dir string, fill func(tmp string) error, complete func() bool) error {
	if _, err := exec.LookPath("npm"); err != nil {
		return ErrNoNPM
	}
	if err := os.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
		return err
	}
	tmp, err := os.MkdirTemp(filepath.Dir(dir), filepath.Base(dir)+"-install-*")
	if err != nil {
		return err
	}
	defer func() { _ = os.RemoveAll(tmp) }() // gone after a rename
	if err := fill(tmp); err != nil {
		return err
	}
	if complete() {
		return nil
	}
	old := dir + ".old-" + filepath.Base(tmp)
	if err := os.Rename(dir, old); err == nil {
		defer func() { _ = os.RemoveAll(old) }()
	}
	if err := os.Rename(tmp, dir); err != nil && !errors.Is(err, os.ErrExist) {
		if _, statErr := os.Stat(dir); statErr != nil {
			return err
		}
	}
	return nil
}

// npm runs npm with args in dir.
func npm(dir string, args ...string) error {
	ctx, cancel := context.WithTimeout(context.Background(), installTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "npm", args...)
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("npm %s: %v: %s", args[0], err, bytes.TrimSpace(out))
	}
	return nil
}
