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
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/toolexec/toolexec/internal/testserver"
)

// ErrNotInstalled is Start's error when no haproxy binary is found.
var ErrNotInstalled = testserver.NotInstalled("balancertest: haproxy not found", "haproxy")

// Balancer is a running HAProxy.
type Balancer struct {
	// Addr is where it listens, 127.0.0.1:PORT.
	Addr string
	dir  string
	proc *testserver.Process
}

// URL is the balancer's base URL, http://127.0.0.1:PORT.
func (b *Balancer) URL() string { return "http://" + b.Addr }

func binary() (string, error) {
	if p := testserver.Find([]string{"haproxy"}, "/usr/sbin"); p != "" {
		return p, nil
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
	testserver.Require(t, err)
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
	addr, err := testserver.FreeAddr()
	if err != nil {
		return nil, err
	}
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
	proc, err := testserver.Start(cmd, dir)
	if err != nil {
		return nil, fmt.Errorf("balancertest: starting haproxy: %w", err)
	}
	b := &Balancer{Addr: addr, dir: dir, proc: proc}
	// Ready when the port answers and the master has its worker (from
	// then on it hears a reload).
	gone, err := testserver.Await(proc.Done(), 10*time.Second, 10*time.Millisecond, func() error {
		c, err := net.DialTimeout("tcp", addr, time.Second)
		if err != nil {
			return err
		}
		_ = c.Close() // a probe that the port answers: nothing was sent
		if b.loaded() == 0 {
			return errors.New("no worker loaded yet")
		}
		return nil
	})
	if err != nil {
		proc.Kill()
		if gone {
			log, _ := os.ReadFile(filepath.Join(dir, "haproxy.log"))
			return nil, fmt.Errorf("balancertest: haproxy exited at start:\n%s", log)
		}
		return nil, fmt.Errorf("balancertest: haproxy did not listen on %s within 10s", addr)
	}
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
			if err := b.proc.Signal(syscall.SIGUSR2); err != nil {
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
	b.proc.Kill() // the master and its workers: one process group
	_ = os.RemoveAll(b.dir)
}
