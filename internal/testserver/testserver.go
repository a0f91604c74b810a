// Package testserver is what the packages that start real, throw-away
// servers for tests share (redis/redistest, internal/balancertest,
// cmd/toolexec's pgtest and mysqltest, bench/external): a free port of
// 127.0.0.1, a server's binary found on PATH or where Debian installs it,
// a process in a process group of its own that a watchdog kills if the
// test binary dies first, waiting until the server is ready, and a test
// skipped, or failed when the environment sets CI, when the server's
// Debian package is not installed. Each package keeps what is its server's
// own: its command line, its readiness probe, its set-up.
package testserver

import (
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// NotInstalledError says a server's binaries were not found, and which
// Debian package installs them.
type NotInstalledError struct {
	// What says what is missing, as the package starting the server words
	// it ("redistest: redis-server not found").
	What string
	// Package is the Debian package to install.
	Package string
}

// Error is What, then the command that installs Package.
func (e *NotInstalledError) Error() string {
	return e.What + " (apt-get install " + e.Package + ")"
}

// NotInstalled returns the error of a server whose binaries are missing:
// what is missing, and the Debian package that installs them. Require
// skips a test that meets it.
func NotInstalled(what, debianPackage string) error {
	return &NotInstalledError{What: what, Package: debianPackage}
}

// Require ends t when err, the error of starting a server for it, is not
// nil: a server that is not installed (a NotInstalledError, wrapped or
// not) skips the test, saying what to install, unless the environment
// sets CI (to anything), since CI must run it; any other error, or one
// under CI, fails it.
func Require(t testing.TB, err error) {
	t.Helper()
	if err == nil {
		return
	}
	var missing *NotInstalledError
	if errors.As(err, &missing) && os.Getenv("CI") == "" {
		t.Skip(err)
	}
	t.Fatal(err)
}

// Find returns the first of names found on PATH or, failing that, in one
// of dirs (where Debian installs it, for a PATH without sbin), as an
// executable file; "" when there is none.
func Find(names []string, dirs ...string) string {
	for _, name := range names {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
		for _, dir := range dirs {
			if p := filepath.Join(dir, name); executable(p) {
				return p
			}
		}
	}
	return ""
}

func executable(p string) bool {
	st, err := os.Stat(p)
	return err == nil && !st.IsDir() && st.Mode()&0o111 != 0
}

// FreePort returns a port of 127.0.0.1 that nothing listens on now. Another
// process may take it before the server binds it: a server that cannot
// bind it is started again on another.
func FreePort() (int, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer func() { _ = ln.Close() }() // a free-port probe: nothing was sent
	return ln.Addr().(*net.TCPAddr).Port, nil
}

// FreeAddr is FreePort as an address, 127.0.0.1:PORT: where a server is to
// listen, or an address that refuses connections.
func FreeAddr() (string, error) {
	port, err := FreePort()
	if err != nil {
		return "", err
	}
	return net.JoinHostPort("127.0.0.1", strconv.Itoa(port)), nil
}

// ServiceUser prepares dir for a server that refuses to run as root
// (PostgreSQL, MariaDB) when this process is root: dir becomes readable by
// all, and owned, each a directory the server writes, belongs to the user
// name. It reports whether this process is root, so that the caller runs
// the server as that user; it does nothing as any other user.
func ServiceUser(name, dir string, owned ...string) (root bool, err error) {
	if os.Geteuid() != 0 {
		return false, nil
	}
	u, err := user.Lookup(name)
	if err != nil {
		return true, fmt.Errorf("running as root needs a %s user: %w", name, err)
	}
	uid, _ := strconv.Atoi(u.Uid)
	gid, _ := strconv.Atoi(u.Gid)
	if err := os.Chmod(dir, 0o755); err != nil {
		return true, err
	}
	for _, d := range owned {
		if err := os.Chown(d, uid, gid); err != nil {
			return true, err
		}
	}
	return true, nil
}

// Watchdog starts a shell that waits for this process to be gone and then
// runs script, so that a test binary that dies (a panic, a timeout) leaves
// no server running and no directory behind. stop ends the watchdog
// without running script, once the caller has cleaned up itself.
func Watchdog(script string) (stop func()) {
	cmd := exec.Command("sh", "-c", fmt.Sprintf("while kill -0 %d 2>/dev/null; do sleep 1; done; %s", os.Getpid(), script))
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if cmd.Start() != nil {
		return func() {}
	}
	done := make(chan struct{})
	go func() { _ = cmd.Wait(); close(done) }()
	var once sync.Once
	return func() {
		once.Do(func() {
			_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) // the shell and its sleep
			<-done
		})
	}
}

// Process is a server's process, in a process group of its own.
type Process struct {
	cmd      *exec.Cmd
	done     chan struct{} // closed once cmd has exited
	err      error         // cmd's exit, once done is closed
	watchdog func()
	killed   sync.Once
}

// Start starts cmd in a process group of its own, with a Watchdog that
// kills the group, and removes dir unless it is "", once this process is
// gone.
func Start(cmd *exec.Cmd, dir string) (*Process, error) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Setpgid = true
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	p := &Process{cmd: cmd, done: make(chan struct{})}
	go func() { p.err = cmd.Wait(); close(p.done) }()
	script := fmt.Sprintf("kill -9 -%d 2>/dev/null", cmd.Process.Pid)
	if dir != "" {
		script += "; rm -rf " + shellQuote(dir)
	}
	p.watchdog = Watchdog(script)
	return p, nil
}

// shellQuote quotes s for sh.
func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// Pid is the process's id, which is its process group's too.
func (p *Process) Pid() int { return p.cmd.Process.Pid }

// Done is closed once the process has exited.
func (p *Process) Done() <-chan struct{} { return p.done }

// Err is how the process exited, once Done is closed.
func (p *Process) Err() error {
	<-p.done
	return p.err
}

// Signal sends sig to the process (not its group).
func (p *Process) Signal(sig syscall.Signal) error { return p.cmd.Process.Signal(sig) }

// Kill kills the process and its group at once (SIGKILL), as a crash
// would, waits for it, and ends its watchdog. What its group still holds
// when it has exited on its own is killed too; a second Kill does nothing.
func (p *Process) Kill() {
	p.killed.Do(func() {
		_ = syscall.Kill(-p.Pid(), syscall.SIGKILL)
		<-p.done
		p.watchdog()
	})
}

// Stop asks the process to stop (SIGTERM), kills it if it has not exited
// after grace (and, either way, what its group still holds), waits for
// it, and ends its watchdog.
func (p *Process) Stop(grace time.Duration) {
	_ = p.Signal(syscall.SIGTERM)
	select {
	case <-p.done:
	case <-time.After(grace):
	}
	p.Kill()
}

// Await calls ready every interval until it returns nil, and returns nil
// then. It gives up, returning ready's last error, once exited is closed
// (the server's process is gone: gone is true) or timeout has passed.
func Await(exited <-chan struct{}, timeout, interval time.Duration, ready func() error) (gone bool, err error) {
	deadline := time.Now().Add(timeout)
	for {
		if err = ready(); err == nil {
			return false, nil
		}
		select {
		case <-exited:
			return true, err
		default:
		}
		if time.Now().After(deadline) {
			return false, err
		}
		time.Sleep(interval)
	}
}

// Tail is the last n lines of a log, for an error that says why a server
// did not start.
func Tail(log []byte, n int) string {
	lines := strings.Split(strings.TrimSpace(string(log)), "\n")
	return strings.Join(lines[max(0, len(lines)-n):], "\n")
}
