// Package balancertest starts a real HAProxy (the Debian haproxy package,
// or any on PATH) for tests of several replicas serving as one: HTTP
// requests balanced round-robin across the backends, each request on its
// own, with no stickiness of any kind, on a free port of 127.0.0.1, with
// its configuration in a temporary directory.
//
// A backend that refuses connections is retried on another, and health
// checks every 200ms take a dead one out of the rotation, as a production
// balancer would be set up; long-lived responses (SSE streams) may last up
// to ten minutes. HAProxy runs in master-worker mode, so that Reload
// reloads it gracefully, as an operator's reload would.
package balancertest

import (
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// ErrNotInstalled is Start's error when no haproxy binary is found.
var ErrNotInstalled = errors.New("balancertest: haproxy not found (apt-get install haproxy)")

// Balancer is a running HAProxy.
type Balancer struct {
	// Addr is where it listens, 127.0.0.1:PORT.
	Addr string
	dir  string
	cmd  *exec.Cmd
	done chan struct{}
}

// URL is the balancer's base URL, http://127.0.0.1:PORT.
func (b *Balancer) URL() string { return "http://" + b.Addr }

func binary() (string, error) {
	if p, err := exec.LookPath("haproxy"); err == nil {
		return p, nil
	}
	if _, err := os.Stat("/usr/sbin/haproxy"); err == nil {
		return "/usr/sbin/haproxy", nil
	}
	return "", ErrNotInstalled
}

// New starts a balancer across backends (host:port each) for t, and stops
// it when t ends. Without haproxy the test is skipped, saying what to
// install, unless the environment sets CI (to anything): CI must run it,
// so there the test fails.
func New(t testing.TB, backends ...string) *Balancer {
	t.Helper()
	b, err := Start(backends...)
	if errors.Is(err, ErrNotInstalled) && os.Getenv("CI") == "" {
		t.Skip(err)
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(b.Close)
	return b
}

// Config is the HAProxy configuration New and Start use for backends,
// listening on addr.
func Config(addr string, backends ...string) string {
	var sb strings.Builder
	fmt.Fprintf(&sb, `global
	maxconn 4096

defaults
	mode http
	option idle-close-on-response
	timeout connect 2s
	timeout client 10m
	timeout server 10m
	timeout http-request 10s
	retries 3
	option redispatch 1

frontend replicas
	bind %s
	default_backend replicas

backend replicas
	balance roundrobin
`, addr)
	for i, be := range backends {
		fmt.Fprintf(&sb, "\tserver r%d %s check inter 200ms fall 1 rise 1\n", i+1, be)
	}
	return sb.String()
}

// Start starts a balancer across backends; Close stops it.
func Start(backends ...string) (*Balancer, error) {
	bin, err := binary()
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "toolexec-balancertest-")
	if err != nil {
		return nil, err
	}
	for range 5 {
		var b *Balancer
		if b, err = start(bin, dir, backends); err == nil {
			return b, nil
		}
	}
	_ = os.RemoveAll(dir)
	return nil, err
}

func start(bin, dir string, backends []string) (*Balancer, error) {
	port, err := freePort()
	if err != nil {
		return nil, err
	}
	addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
	cfg := filepath.Join(dir, "haproxy.cfg")
	if err := os.WriteFile(cfg, []byte(Config(addr, backends...)), 0o600); err != nil {
		return nil, err
	}
	logFile, err := os.Create(filepath.Join(dir, "haproxy.log"))
	if err != nil {
		return nil, err
	}
	defer func() { _ = logFile.Close() }() // HAProxy writes it; the test only reads it back
	cmd := exec.Command(bin, "-W", "-db", "-f", cfg)
	cmd.Stdout, cmd.Stderr = logFile, logFile
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("balancertest: starting haproxy: %w", err)
	}
	b := &Balancer{Addr: addr, dir: dir, cmd: cmd, done: make(chan struct{})}
	go func() { _ = cmd.Wait(); close(b.done) }()
	deadline := time.Now().Add(10 * time.Second)
	for {
		// Ready when the port answers and the master has its worker (from
		// then on it hears a reload).
		if c, err := net.DialTimeout("tcp", addr, time.Second); err == nil {
			_ = c.Close() // a probe that the port answers: nothing was sent
			if b.loaded() > 0 {
				break
			}
		}
		select {
		case <-b.done:
			log, _ := os.ReadFile(filepath.Join(dir, "haproxy.log"))
			return nil, fmt.Errorf("balancertest: haproxy exited at start:\n%s", log)
		default:
		}
		if time.Now().After(deadline) {
			_ = cmd.Process.Kill()
			<-b.done
			return nil, fmt.Errorf("balancertest: haproxy did not listen on %s within 10s", addr)
		}
		time.Sleep(10 * time.Millisecond)
	}
	watchdog(cmd.Process.Pid)
	return b, nil
}

// Reload reloads HAProxy gracefully (SIGUSR2 to its master process): a
// new worker takes new connections, and the old one finishes the requests
// it holds, then exits. It returns once the new worker is loaded.
func (b *Balancer) Reload() error {
	before := b.loaded()
	// A master that has just started may not hear the signal yet: it is
	// sent again each second until the master says it reloaded.
	var sent time.Time
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if b.loaded() > before {
			return nil
		}
		if time.Since(sent) >= time.Second {
			if err := b.cmd.Process.Signal(syscall.SIGUSR2); err != nil {
				return fmt.Errorf("balancertest: reloading haproxy: %w", err)
			}
			sent = time.Now()
		}
	}
	return errors.New("balancertest: haproxy did not reload within 10s")
}

// loaded is how many times HAProxy's master said it loaded a worker.
func (b *Balancer) loaded() int {
	data, _ := os.ReadFile(filepath.Join(b.dir, "haproxy.log"))
	return strings.Count(string(data), "Loading success.")
}

// Close stops the balancer, its workers with it, and removes its
// directory.
func (b *Balancer) Close() {
	_ = syscall.Kill(-b.cmd.Process.Pid, syscall.SIGKILL) // the master and its workers: one process group
	<-b.done
	_ = os.RemoveAll(b.dir)
}

// watchdog kills pid once this process is gone, so a test binary that dies
// leaves no balancer running.
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
