// Package mongotest starts real, throw-away MongoDB wire-protocol servers
// for tests, as redistest starts Redis servers: FerretDB 1.24 with its
// SQLite backend, on 127.0.0.1 at a free port, its data in a temporary
// directory.
//
//	srv := mongotest.New(t) // skipped when FerretDB cannot be built, unless CI is set
//	client, err := mongo.Connect(options.Client().ApplyURI(srv.URI))
//
// FerretDB is the ferretdb module beside this package (a small command
// embedding github.com/FerretDB/FerretDB, pinned by its go.mod and
// go.sum), built once with the go command through the Go module proxy
// into the repository's .cache/ferretdb (or $CONFORMANCE_CACHE/ferretdb);
// the first build takes a few minutes. A server stops when Close is called
// (or the test ends), and by itself when the test binary dies first: it
// stops when its standard input, a pipe from this process, closes.
package mongotest

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/toolexec/toolexec/internal/testlog"
)

// ErrUnavailable is Start's error when FerretDB cannot be built here (no
// go command, or no way to fetch its modules).
var ErrUnavailable = errors.New("mongotest: FerretDB cannot be built (it needs the go command and the Go module proxy)")

// Server is a running FerretDB.
type Server struct {
	// URI is the server's mongodb:// URI.
	URI string

	dir   string
	cmd   *exec.Cmd
	stdin io.Closer
	log   *testlog.Buffer
	done  chan struct{}
	once  sync.Once
}

// New starts a server for t and stops it when t ends. When FerretDB
// cannot be built the test is skipped, saying why, unless the environment
// sets CI (to anything): CI must run it, so there the test fails.
func New(t testing.TB) *Server {
	t.Helper()
	s, err := Start()
	if errors.Is(err, ErrUnavailable) && os.Getenv("CI") == "" {
		t.Skip(err)
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("FerretDB's log:\n%s", s.Log())
		}
		s.Close()
	})
	return s
}

// Start builds FerretDB if it is not built yet and starts a server; Close
// stops it.
func Start() (*Server, error) {
	bin, err := Binary()
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "toolexec-mongotest-")
	if err != nil {
		return nil, err
	}
	s := &Server{dir: dir, log: &testlog.Buffer{}, done: make(chan struct{})}
	s.cmd = exec.Command(bin, "-dir", dir)
	s.cmd.Stderr = s.log
	stdin, err := s.cmd.StdinPipe()
	if err != nil {
		_ = os.RemoveAll(dir)
		return nil, err
	}
	stdout, err := s.cmd.StdoutPipe()
	if err != nil {
		_ = os.RemoveAll(dir)
		return nil, err
	}
	if err := s.cmd.Start(); err != nil {
		_ = os.RemoveAll(dir)
		return nil, fmt.Errorf("mongotest: starting FerretDB: %w", err)
	}
	s.stdin = stdin
	go func() { _ = s.cmd.Wait(); close(s.done) }()
	line := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		if sc.Scan() {
			line <- strings.TrimSpace(sc.Text())
		}
		close(line)
		_, _ = io.Copy(io.Discard, stdout)
	}()
	select {
	case uri, ok := <-line:
		if ok && strings.HasPrefix(uri, "mongodb://") {
			s.URI = uri
			return s, nil
		}
	case <-time.After(60 * time.Second):
	}
	s.Close()
	return nil, fmt.Errorf("mongotest: FerretDB did not start: %s", s.Log())
}

// Log returns what the server wrote to its standard error (warnings and
// errors).
func (s *Server) Log() string { return s.log.String() }

// Close stops the server (its standard input closes, and it is killed
// after 10 s) and removes its data.
func (s *Server) Close() {
	s.once.Do(func() {
		_ = s.stdin.Close()
		select {
		case <-s.done:
		case <-time.After(10 * time.Second):
			_ = s.cmd.Process.Kill()
			<-s.done
		}
		_ = os.RemoveAll(s.dir)
	})
}

// Binary returns the path of the FerretDB command, building it the first
// time (and again when the ferretdb module changes): into a temporary
// file renamed into place, so that concurrent test binaries never run
// half a build.
func Binary() (string, error) {
	_, file, _, ok := runtime.Caller(0)
	if !ok {
		return "", fmt.Errorf("%w: the package's source is not found", ErrUnavailable)
	}
	src := filepath.Join(filepath.Dir(file), "ferretdb")
	h := sha256.New()
	for _, name := range []string{"go.mod", "go.sum", "main.go"} {
		b, err := os.ReadFile(filepath.Join(src, name))
		if err != nil {
			return "", fmt.Errorf("%w: %v", ErrUnavailable, err)
		}
		h.Write(b)
	}
	cache := os.Getenv("CONFORMANCE_CACHE")
	if cache == "" {
		cache = filepath.Join(src, "..", "..", "..", "..", "..", ".cache")
	}
	dir := filepath.Join(cache, "ferretdb", hex.EncodeToString(h.Sum(nil))[:16])
	bin := filepath.Join(dir, "ferretdb")
	if _, err := os.Stat(bin); err == nil {
		return bin, nil
	}
	goCmd, err := exec.LookPath("go")
	if err != nil {
		return "", fmt.Errorf("%w: %v", ErrUnavailable, err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	// One build at a time: the test binaries of several packages start
	// servers at once, and the first build takes minutes.
	lock, err := os.OpenFile(filepath.Join(dir, "build.lock"), os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return "", err
	}
	defer func() { _ = lock.Close() }() // closing it releases the lock
	if err := syscall.Flock(int(lock.Fd()), syscall.LOCK_EX); err != nil {
		return "", err
	}
	if _, err := os.Stat(bin); err == nil {
		return bin, nil // built while this one waited
	}
	tmp, err := os.CreateTemp(dir, "ferretdb-*.tmp")
	if err != nil {
		return "", err
	}
	_ = tmp.Close()
	defer func() { _ = os.Remove(tmp.Name()) }()
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Minute)
	defer cancel()
	// Built as `go vet` compiles the module (make lint vets it), so that
	// the build cache holds its packages already.
	build := exec.CommandContext(ctx, goCmd, "build", "-o", tmp.Name(), ".")
	build.Dir = src
	build.Env = append(os.Environ(), "GOFLAGS=-mod=readonly")
	var out bytes.Buffer
	build.Stdout, build.Stderr = &out, &out
	if err := build.Run(); err != nil {
		return "", fmt.Errorf("%w: go build: %v\n%s", ErrUnavailable, err, out.String())
	}
	if err := os.Rename(tmp.Name(), bin); err != nil {
		return "", err
	}
	return bin, nil
}
