// Package pgtest starts a real, throw-away PostgreSQL server for tests: the
// Debian postgresql package's initdb and postgres, in a temporary
// directory, listening on 127.0.0.1 at a free port. As root it runs them
// as the postgres user, since PostgreSQL refuses to run as root.
package pgtest

import (
	"bytes"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
)

// Server is a running PostgreSQL server. User is its superuser.
type Server struct {
	Host     string
	Port     int
	User     string
	Database string
	// FileDir is a directory the server may write files in (COPY … TO,
	// lo_export), for tests that show no file written there.
	FileDir string
	dir     string
	data    string
	bin     string
	asUser  []string
}

// ErrNotInstalled is returned by Start when no PostgreSQL binaries are
// found.
var ErrNotInstalled = errors.New("pgtest: PostgreSQL binaries not found (apt-get install postgresql)")

// binDir finds the newest /usr/lib/postgresql/*/bin with initdb, or the
// directory of initdb on PATH.
func binDir() (string, error) {
	dirs, _ := filepath.Glob("/usr/lib/postgresql/*/bin")
	sort.Slice(dirs, func(i, j int) bool {
		vi, _ := strconv.Atoi(filepath.Base(filepath.Dir(dirs[i])))
		vj, _ := strconv.Atoi(filepath.Base(filepath.Dir(dirs[j])))
		return vi > vj
	})
	for _, d := range dirs {
		if _, err := os.Stat(filepath.Join(d, "initdb")); err == nil {
			return d, nil
		}
	}
	if p, err := exec.LookPath("initdb"); err == nil {
		return filepath.Dir(p), nil
	}
	return "", ErrNotInstalled
}

// Start initialises a cluster in a new temporary directory and starts it.
// Stop removes everything.
func Start() (*Server, error) {
	bin, err := binDir()
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "toolexec-pgtest-")
	if err != nil {
		return nil, err
	}
	s := &Server{Host: "127.0.0.1", Database: "postgres", dir: dir}
	data := filepath.Join(dir, "data")
	if err := os.Mkdir(data, 0o700); err != nil {
		return nil, s.cleanup(err)
	}
	s.FileDir = filepath.Join(dir, "files")
	if err := os.Mkdir(s.FileDir, 0o755); err != nil {
		return nil, s.cleanup(err)
	}
	s.User = "toolexec"
	if os.Geteuid() == 0 {
		u, err := user.Lookup("postgres")
		if err != nil {
			return nil, s.cleanup(fmt.Errorf("pgtest: running as root needs a postgres user: %w", err))
		}
		uid, _ := strconv.Atoi(u.Uid)
		gid, _ := strconv.Atoi(u.Gid)
		if err := os.Chmod(dir, 0o755); err != nil {
			return nil, s.cleanup(err)
		}
		for _, d := range []string{data, s.FileDir} {
			if err := os.Chown(d, uid, gid); err != nil {
				return nil, s.cleanup(err)
			}
		}
		s.asUser = []string{"runuser", "-u", "postgres", "--"}
	}
	var out bytes.Buffer
	initdb := s.command(&out, filepath.Join(bin, "initdb"), "-D", data, "-U", s.User, "--auth=trust", "-E", "UTF8", "--no-sync")
	if err := initdb.Run(); err != nil {
		return nil, s.cleanup(fmt.Errorf("pgtest: initdb: %v\n%s", err, out.String()))
	}
	port, err := freePort()
	if err != nil {
		return nil, s.cleanup(err)
	}
	s.Port = port
	s.data = data
	s.bin = bin
	// pg_ctl starts the server detached, logging to a file, and -w waits
	// until it accepts sessions.
	out.Reset()
	// pg_stat_statements counts the statements each database runs, for
	// tests that count round trips (CREATE EXTENSION pg_stat_statements
	// in the database to read them).
	opts := fmt.Sprintf("-h 127.0.0.1 -p %d -k %s -c fsync=off -c full_page_writes=off -c synchronous_commit=off -c shared_preload_libraries=pg_stat_statements", port, data)
	start := s.command(&out, filepath.Join(bin, "pg_ctl"), "-D", data, "-l", filepath.Join(data, "server.log"), "-o", opts, "-w", "-t", "60", "start")
	if err := start.Run(); err != nil {
		log, _ := os.ReadFile(filepath.Join(data, "server.log"))
		s.Stop()
		return nil, fmt.Errorf("pgtest: pg_ctl start: %v\n%s\n%s", err, out.String(), log)
	}
	s.watchdog()
	return s, nil
}

// watchdog starts a shell that stops the server and removes its directory
// once this process is gone, so that a test binary that dies (a panic, a
// timeout) leaves no server running. Stop makes it unnecessary, and it
// then finds nothing left to do.
func (s *Server) watchdog() {
	stop := strings.Join(append(append([]string{}, s.asUser...), filepath.Join(s.bin, "pg_ctl"), "-D", s.data, "-m", "immediate", "-w", "stop"), " ")
	script := fmt.Sprintf("while kill -0 %d 2>/dev/null; do sleep 1; done; if [ -d %s ]; then %s >/dev/null 2>&1; rm -rf %s; fi", os.Getpid(), s.data, stop, s.dir)
	cmd := exec.Command("sh", "-c", script)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if cmd.Start() == nil {
		go func() { _ = cmd.Wait() }()
	}
}

func (s *Server) command(out *bytes.Buffer, name string, args ...string) *exec.Cmd {
	argv := append(append([]string{}, s.asUser...), name)
	argv = append(argv, args...)
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Stdout, cmd.Stderr = out, out
	cmd.Dir = s.dir
	return cmd
}

func (s *Server) cleanup(err error) error {
	_ = os.RemoveAll(s.dir)
	return err
}

// Stop stops the server (an immediate shutdown) and removes its
// directory.
func (s *Server) Stop() {
	if s.data != "" {
		var out bytes.Buffer
		_ = s.command(&out, filepath.Join(s.bin, "pg_ctl"), "-D", s.data, "-m", "immediate", "-w", "-t", "30", "stop").Run()
	}
	_ = os.RemoveAll(s.dir)
}

func freePort() (int, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer func() { _ = ln.Close() }() // a free-port probe: nothing was sent
	return ln.Addr().(*net.TCPAddr).Port, nil
}
