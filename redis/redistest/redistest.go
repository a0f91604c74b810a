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

	"github.com/toolexec/toolexec/internal/testserver"
)

// ErrNotInstalled is Start's error when no redis-server binary is found.
var ErrNotInstalled = testserver.NotInstalled("redistest: redis-server not found", "redis-server")

// Server is a running redis-server.
type Server struct {
	// Addr is the server's address, 127.0.0.1:PORT.
	Addr string
	bin  string
	dir  string
	args []string // redis-server's arguments besides the common ones
	bus  string   // a cluster node's cluster bus port
	mu   sync.Mutex
	proc *testserver.Process // nil while stopped
}

// URL is the server's redis:// URL.
func (s *Server) URL() string { return "redis://" + s.Addr + "/0" }

// binary finds redis-server.
func binary() (string, error) {
	if p := testserver.Find([]string{"redis-server"}, "/usr/bin"); p != "" {
		return p, nil
	}
	return "", ErrNotInstalled
}

// New starts a server for t and stops it when t ends. Without redis-server
// the test is skipped, saying what to install, unless the environment sets
// CI (to anything): CI must run it, so there the test fails.
func New(t testing.TB) *Server {
	t.Helper()
	s, err := Start()
	testserver.Require(t, err)
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
		if port, err = testserver.FreePort(); err != nil {
			break
		}
		if clusterArgs != nil {
			if bus, err = testserver.FreePort(); err != nil {
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
	if s.proc != nil {
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
	proc, err := testserver.Start(cmd, s.dir)
	if err != nil {
		return fmt.Errorf("redistest: starting redis-server: %w", err)
	}
	if gone, err := testserver.Await(proc.Done(), 10*time.Second, 10*time.Millisecond, func() error { return ping(s.Addr) }); err != nil {
		proc.Kill()
		if gone {
			log, _ := os.ReadFile(logFile)
			return fmt.Errorf("redistest: redis-server exited at start:\n%s", testserver.Tail(log, 20))
		}
		return fmt.Errorf("redistest: redis-server did not answer on %s within 10s", s.Addr)
	}
	s.proc = proc
	return nil
}

// Kill stops the server at once (SIGKILL), as a crash would; Restart
// brings it back.
func (s *Server) Kill() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.proc == nil {
		return
	}
	_ = s.proc.Signal(syscall.SIGCONT) // a paused server dies too
	s.proc.Kill()
	s.proc = nil
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
	if s.proc != nil {
		_ = s.proc.Signal(sig)
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
