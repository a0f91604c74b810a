package testserver_test

import (
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolexec/toolexec/internal/testserver"
)

// recorder is a testing.TB that notes how Require ended it; as a test's,
// its Skip and Fatal end the goroutine.
type recorder struct {
	testing.TB
	skipped, failed string
}

func (r *recorder) Helper()           {}
func (r *recorder) Skip(args ...any)  { r.skipped = fmt.Sprint(args...); runtime.Goexit() }
func (r *recorder) Fatal(args ...any) { r.failed = fmt.Sprint(args...); runtime.Goexit() }

// requireAs runs testserver.Require(err) as a test would.
func requireAs(t *testing.T, err error) *recorder {
	r := &recorder{TB: t}
	done := make(chan struct{})
	go func() {
		defer close(done)
		testserver.Require(r, err)
	}()
	<-done
	return r
}

func TestRequireSkipsAMissingServerUnlessCIIsSet(t *testing.T) {
	missing := fmt.Errorf("starting: %w", testserver.NotInstalled("fooserver not found", "foo-server"))

	t.Setenv("CI", "")
	r := requireAs(t, missing)
	assert.Equal(t, "starting: fooserver not found (apt-get install foo-server)", r.skipped, "the skip names the Debian package")
	assert.Empty(t, r.failed)

	t.Setenv("CI", "true")
	r = requireAs(t, missing)
	assert.Empty(t, r.skipped)
	assert.Contains(t, r.failed, "apt-get install foo-server", "CI must run it: the test fails")

	t.Setenv("CI", "")
	r = requireAs(t, errors.New("port taken"))
	assert.Equal(t, "port taken", r.failed, "any other error fails the test")

	r = requireAs(t, nil)
	assert.Empty(t, r.skipped+r.failed)
}

func TestFreeAddrRefusesConnections(t *testing.T) {
	addr, err := testserver.FreeAddr()
	require.NoError(t, err)
	assert.True(t, strings.HasPrefix(addr, "127.0.0.1:"))
	_, err = net.DialTimeout("tcp", addr, time.Second)
	assert.Error(t, err, "nothing listens there")
}

func TestFindLooksOnPathThenInDirs(t *testing.T) {
	dir := t.TempDir()
	bin := filepath.Join(dir, "toolexec-find-me")
	require.NoError(t, os.WriteFile(bin, []byte("#!/bin/sh\n"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "not-executable"), nil, 0o644))

	assert.Equal(t, bin, testserver.Find([]string{"toolexec-missing", "toolexec-find-me"}, dir))
	assert.Empty(t, testserver.Find([]string{"not-executable"}, dir))
	sh, err := exec.LookPath("sh")
	require.NoError(t, err)
	assert.Equal(t, sh, testserver.Find([]string{"sh"}, dir), "PATH first")
}

// alive reports whether process pid exists.
func alive(pid int) bool { return syscall.Kill(pid, 0) == nil }

func TestKillKillsTheWholeProcessGroup(t *testing.T) {
	pidFile := filepath.Join(t.TempDir(), "child")
	// The shell starts a child of its own, and says its pid.
	proc, err := testserver.Start(exec.Command("sh", "-c", "sleep 60 & echo $! > "+pidFile+"; wait"), "")
	require.NoError(t, err)
	var child int
	require.Eventually(t, func() bool {
		b, _ := os.ReadFile(pidFile)
		child, err = strconv.Atoi(strings.TrimSpace(string(b)))
		return err == nil
	}, 10*time.Second, 10*time.Millisecond)
	require.True(t, alive(child))

	proc.Kill()
	select {
	case <-proc.Done():
	default:
		t.Fatal("Kill returns once the process has exited")
	}
	assert.Eventually(t, func() bool { return !alive(child) }, 10*time.Second, 10*time.Millisecond,
		"the child in the process's group died too")
	proc.Kill() // a second Kill does nothing
}

func TestStopLetsTheProcessEndThenKillsIt(t *testing.T) {
	proc, err := testserver.Start(exec.Command("sleep", "60"), "")
	require.NoError(t, err)
	proc.Stop(10 * time.Second)
	var exit *exec.ExitError
	require.ErrorAs(t, proc.Err(), &exit)
	assert.Equal(t, syscall.SIGTERM, exit.Sys().(syscall.WaitStatus).Signal(), "asked to stop, it stopped")

	proc, err = testserver.Start(exec.Command("sh", "-c", "trap '' TERM; sleep 60 & wait"), "")
	require.NoError(t, err)
	time.Sleep(100 * time.Millisecond) // the trap is set
	proc.Stop(50 * time.Millisecond)
	require.ErrorAs(t, proc.Err(), &exit)
	assert.Equal(t, syscall.SIGKILL, exit.Sys().(syscall.WaitStatus).Signal(), "one that does not stop is killed")
}

func TestAwaitSaysWhetherTheServerWasReadyGoneOrLate(t *testing.T) {
	never := make(chan struct{})
	calls := 0
	gone, err := testserver.Await(never, time.Minute, time.Millisecond, func() error {
		calls++
		if calls < 3 {
			return errors.New("not yet")
		}
		return nil
	})
	assert.NoError(t, err)
	assert.False(t, gone)
	assert.Equal(t, 3, calls)

	exited := make(chan struct{})
	close(exited)
	gone, err = testserver.Await(exited, time.Minute, time.Millisecond, func() error { return errors.New("refused") })
	assert.True(t, gone)
	assert.EqualError(t, err, "refused", "ready's last error")

	gone, err = testserver.Await(never, 20*time.Millisecond, time.Millisecond, func() error { return errors.New("refused") })
	assert.False(t, gone)
	assert.EqualError(t, err, "refused")
}

func TestTailKeepsTheLastLines(t *testing.T) {
	assert.Equal(t, "c\nd", testserver.Tail([]byte("a\nb\nc\nd\n"), 2))
	assert.Equal(t, "a", testserver.Tail([]byte("a\n"), 5))
}

// watchdogEnv names a file the helper process of
// TestWatchdogRunsItsScriptOnceTheProcessIsGone has its watchdog create.
const watchdogEnv = "TESTSERVER_WATCHDOG_FILE"

func TestWatchdogHelperProcess(t *testing.T) {
	file := os.Getenv(watchdogEnv)
	if file == "" {
		t.Skip("the helper process of TestWatchdogRunsItsScriptOnceTheProcessIsGone")
	}
	testserver.Watchdog("touch " + file)
	stop := testserver.Watchdog("touch " + file + ".stopped")
	stop()
	// The process exits without stopping the first watchdog, as a test
	// binary that dies does.
}

func TestWatchdogRunsItsScriptOnceTheProcessIsGone(t *testing.T) {
	file := filepath.Join(t.TempDir(), "ran")
	cmd := exec.Command(os.Args[0], "-test.run=^TestWatchdogHelperProcess$")
	cmd.Env = append(os.Environ(), watchdogEnv+"="+file)
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, string(out))
	assert.Eventually(t, func() bool {
		_, err := os.Stat(file)
		return err == nil
	}, 10*time.Second, 20*time.Millisecond, "the watchdog ran its script")
	time.Sleep(1500 * time.Millisecond) // a stopped watchdog would have run its script by now
	assert.NoFileExists(t, file+".stopped", "a stopped watchdog runs nothing")
}
