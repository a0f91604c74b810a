package external

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"syscall"
	"time"

	"github.com/toolexec/toolexec/bench"
	"github.com/toolexec/toolexec/internal/testserver"
)

// Process is a server started by Start, listening on a loopback port.
type Process struct {
	Binary Binary
	// URL is where it listens: http://127.0.0.1:PORT.
	URL string
	// Startup is how long it took from being started until it first
	// answered the probe correctly.
	Startup time.Duration

	cmd  *exec.Cmd
	out  *tail
	done chan struct{} // closed when the process has exited
	err  error         // its exit, once done is closed
}

// Start starts b serving the tools file config on a free port of
// 127.0.0.1, and waits until it answers probe with a 200 whose body check
// accepts, for at most timeout. Its working directory is config's, its
// environment holds only PATH, HOME and TMPDIR (no token, no telemetry)
// and b.Env, and it is killed if this process dies. Start measures Startup from the
// moment the process is started.
func (b Binary) Start(config string, probe bench.Request, check func([]byte) error, timeout time.Duration) (*Process, error) {
	port, err := testserver.FreePort()
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(b.Path, append(b.args(config, port), b.Args...)...)
	cmd.Dir = filepath.Dir(config)
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + os.Getenv("HOME")}
	if t := os.Getenv("TMPDIR"); t != "" {
		cmd.Env = append(cmd.Env, "TMPDIR="+t)
	}
	cmd.Env = append(cmd.Env, b.Env...)
	p := &Process{Binary: b, URL: "http://127.0.0.1:" + strconv.Itoa(port), cmd: cmd, out: &tail{max: 64 << 10}, done: make(chan struct{})}
	cmd.Stdout, cmd.Stderr = p.out, p.out
	cmd.SysProcAttr = &syscall.SysProcAttr{}
	dieWithParent(cmd.SysProcAttr)
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("starting %s: %w", b.Name, err)
	}
	go func() {
		p.err = cmd.Wait()
		close(p.done)
	}()

	client := &http.Client{Timeout: 5 * time.Second, Transport: &http.Transport{DisableKeepAlives: true}}
	deadline := start.Add(timeout)
	var last error
	for {
		last = p.try(client, probe, check)
		if last == nil {
			p.Startup = time.Since(start)
			return p, nil
		}
		select {
		case <-p.done:
			return nil, fmt.Errorf("%s exited while starting (%v): %s", b.Name, p.err, p.out)
		default:
		}
		if time.Now().After(deadline) {
			p.Stop()
			return nil, fmt.Errorf("%s did not answer correctly within %s: %v\n%s", b.Name, timeout, last, p.out)
		}
		time.Sleep(2 * time.Millisecond)
	}
}

// try sends probe once.
func (p *Process) try(client *http.Client, probe bench.Request, check func([]byte) error) error {
	req, err := probe.NewRequest(p.URL)
	if err != nil {
		return err
	}
	resp, err := client.Do(req)
	if err != nil {
		return err
	}
	defer func() { _ = resp.Body.Close() }() // read; closing only frees the connection
	body, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return err
	}
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("status %d: %.300s", resp.StatusCode, body)
	}
	return check(body)
}

// PID is the process's id.
func (p *Process) PID() int { return p.cmd.Process.Pid }

// CPU is the CPU time the process has used so far.
func (p *Process) CPU() (time.Duration, error) { return CPUTime(p.PID()) }

// Memory is the process's resident memory now and at its peak.
func (p *Process) Memory() (Memory, error) { return ReadMemory(p.PID()) }

// Output is the last 64 KiB of what the process wrote to its standard
// output and error.
func (p *Process) Output() string { return p.out.String() }

// Exited reports whether the process has exited.
func (p *Process) Exited() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

// Stop asks the process to stop (SIGTERM), kills it if it has not
// exited 10 seconds later, and waits for it.
func (p *Process) Stop() {
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.done:
	case <-time.After(10 * time.Second):
		_ = p.cmd.Process.Kill()
		<-p.done
	}
}

// tail keeps the last max bytes written to it.
type tail struct {
	mu  sync.Mutex
	max int
	buf []byte
}

func (t *tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if over := len(t.buf) - t.max; over > 0 {
		t.buf = append(t.buf[:0], t.buf[over:]...)
	}
	return len(p), nil
}

func (t *tail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(bytes.TrimSpace(t.buf))
}
