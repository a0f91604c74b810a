// Package redistest starts real, throw-away Redis servers for tests, as
// net/http/httptest starts HTTP servers: the redis-server binary (the
// Debian redis-server package, or any on PATH) in a temporary directory,
// listening on 127.0.0.1 at a free port, with persistence off.
//
//	srv := redistest.New(t) // skipped when redis-server is missing, unless CI is set
//	store, err := redis.Open(ctx, srv.URL(), redis.Options{})
//
// NewCluster starts several and forms a Redis Cluster of them, in about
// two seconds:
//
//	c := redistest.NewCluster(t, redistest.ClusterConfig{Masters: 3})
//	store, err := redis.Open(ctx, c.URL(), redis.Options{})
//
// A server outlives nothing: Close (or the test's cleanup) stops it and
// removes its directory, and a watchdog stops it if the test binary dies
// first.
package redistest

import (
	"bufio"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// ErrNotInstalled is Start's error when no redis-server binary is found.
var ErrNotInstalled = errors.New("redistest: redis-server not found (apt-get install redis-server)")

// Server is a running redis-server.
type Server struct {
	// Addr is the server's address, 127.0.0.1:PORT.
	Addr string
	bin  string
	dir  string
	args []string // redis-server's arguments besides the common ones
	bus  string   // a cluster node's cluster bus port
	mu   sync.Mutex
	cmd  *exec.Cmd     // nil while stopped
	done chan struct{} // closed when cmd has exited
}

// URL is the server's redis:// URL.
func (s *Server) URL() string { return "redis://" + s.Addr + "/0" }

// binary finds redis-server.
func binary() (string, error) {
	if p, err := exec.LookPath("redis-server"); err == nil {
		return p, nil
	}
	if _, err := os.Stat("/usr/bin/redis-server"); err == nil {
		return "/usr/bin/redis-server", nil
	}
	return "", ErrNotInstalled
}

// New starts a server for t and stops it when t ends. Without redis-server
// the test is skipped, saying what to install, unless the environment sets
// CI (to anything): CI must run it, so there the test fails.
func New(t testing.TB) *Server {
	t.Helper()
	s, err := Start()
	if errors.Is(err, ErrNotInstalled) && os.Getenv("CI") == "" {
		t.Skip(err)
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	return s
}

// Start starts a server on a free port of 127.0.0.1; Close stops it.
func Start() (*Server, error) { return start(nil) }

// start starts a server or, with clusterArgs (redis-server arguments)
// not nil, a cluster node: cluster mode on, its cluster bus on a free
// port of its own.
func start(clusterArgs []string) (*Server, error) {
	bin, err := binary()
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "toolexec-redistest-")
	if err != nil {
		return nil, err
	}
	s := &Server{bin: bin, dir: dir}
	// A free port may be taken between finding it and redis-server binding
	// it; try a few.
	for range 5 {
		var port, bus int
		if port, err = freePort(); err != nil {
			break
		}
		if clusterArgs != nil {
			if bus, err = freePort(); err != nil {
				break
			}
			if bus == port {
				continue
			}
			// The bus port is set, not left at port+10000, which may be
			// taken or out of range.
			s.bus = strconv.Itoa(bus)
			s.args = []string{"--cluster-enabled", "yes", "--cluster-port", s.bus,
				"--cluster-config-file", filepath.Join(dir, "nodes.conf")}
			s.args = append(s.args, clusterArgs...)
		}
		s.Addr = net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
		if err = s.Restart(); err == nil {
			return s, nil
		}
	}
	_ = os.RemoveAll(dir)
	return nil, err
}

// Restart starts the server again, on the same port, after Kill; a
// server that runs is left as it is. It holds no data from before: a
// restarted Redis without persistence has forgotten everything.
func (s *Server) Restart() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cmd != nil {
		return nil
	}
	_, port, _ := net.SplitHostPort(s.Addr)
	logFile := filepath.Join(s.dir, "redis.log")
	cmd := exec.Command(s.bin,
		"--bind", "127.0.0.1", "--port", port, "--dir", s.dir,
		"--save", "", "--appendonly", "no", "--daemonize", "no",
		"--logfile", logFile, "--databases", "16")
	cmd.Args = append(cmd.Args, s.args...)
	cmd.Dir = s.dir
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("redistest: starting redis-server: %w", err)
	}
	exited := make(chan struct{})
	go func() { _ = cmd.Wait(); close(exited) }()
	deadline := time.Now().Add(10 * time.Second)
	for {
		if ping(s.Addr) == nil {
			break
		}
		select {
		case <-exited:
			log, _ := os.ReadFile(logFile)
			return fmt.Errorf("redistest: redis-server exited at start:\n%s", tail(log))
		default:
		}
		if time.Now().After(deadline) {
			_ = cmd.Process.Kill()
			return fmt.Errorf("redistest: redis-server did not answer on %s within 10s", s.Addr)
		}
		time.Sleep(10 * time.Millisecond)
	}
	s.cmd, s.done = cmd, exited
	watchdog(cmd.Process.Pid)
	return nil
}

// Kill stops the server at once (SIGKILL), as a crash would; Restart
// brings it back.
func (s *Server) Kill() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cmd == nil {
		return
	}
	_ = s.cmd.Process.Signal(syscall.SIGCONT) // a paused server dies too
	_ = s.cmd.Process.Kill()
	<-s.done
	s.cmd = nil
}

// Pause stops the server without closing its connections (SIGSTOP), as a
// network partition or a stalled host would: clients get no answer at
// all. Resume lets it go on.
func (s *Server) Pause() { s.signal(syscall.SIGSTOP) }

// Resume undoes Pause (SIGCONT).
func (s *Server) Resume() { s.signal(syscall.SIGCONT) }

func (s *Server) signal(sig syscall.Signal) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cmd != nil {
		_ = s.cmd.Process.Signal(sig)
	}
}

// Close stops the server and removes its directory.
func (s *Server) Close() {
	s.Kill()
	_ = os.RemoveAll(s.dir)
}

// ping sends PING and reads the reply.
func ping(addr string) error {
	c, err := net.DialTimeout("tcp", addr, time.Second)
	if err != nil {
		return err
	}
	defer func() { _ = c.Close() }() // a probe that the server answers
	_ = c.SetDeadline(time.Now().Add(time.Second))
	if _, err := c.Write([]byte("PING\r\n")); err != nil {
		return err
	}
	line, err := bufio.NewReader(c).ReadString('\n')
	if err != nil {
		return err
	}
	if !strings.HasPrefix(line, "+PONG") {
		return fmt.Errorf("redistest: PING answered %q", line)
	}
	return nil
}

// watchdog starts a shell that kills pid once this process is gone, so a
// test binary that dies (a panic, a timeout) leaves no server running.
func watchdog(pid int) {
	script := fmt.Sprintf("while kill -0 %d 2>/dev/null; do sleep 1; done; kill -9 %d 2>/dev/null", os.Getpid(), pid)
	cmd := exec.Command("sh", "-c", script)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if cmd.Start() == nil {
		go func() { _ = cmd.Wait() }()
	}
}

func freePort() (int, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer func() { _ = ln.Close() }() // a free-port probe: nothing was sent
	return ln.Addr().(*net.TCPAddr).Port, nil
}

// tail is the last lines of a log.
func tail(b []byte) string {
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	if len(lines) > 20 {
		lines = lines[len(lines)-20:]
	}
	return strings.Join(lines, "\n")
}
