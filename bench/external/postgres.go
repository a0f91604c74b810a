package external

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5"
)

// Postgres is a throw-away PostgreSQL server: the Debian postgresql
// package's initdb and postgres, in a temporary directory, listening on
// 127.0.0.1 at a free port, as cmd/toolexec's tests start one. Unlike
// theirs, it asks TCP clients for a password (scram-sha-256), as a real
// database does, so that a session costs its full authentication, and it
// logs every session's start, so that Sessions can count them.
type Postgres struct {
	Host     string
	Port     int
	User     string
	Password string
	Database string
	// Version is the server's version, as postgres --version says it.
	Version string

	dir, data, bin string
	asUser         []string
	logOffset      int64
	sessions       int64
}

// ErrNoPostgres is returned by StartPostgres when no PostgreSQL binaries
// are found.
var ErrNoPostgres = errors.New("PostgreSQL binaries not found (apt-get install postgresql)")

// StartPostgres initialises a cluster in a new temporary directory and
// starts it. Stop removes everything.
func StartPostgres() (*Postgres, error) {
	bin, err := postgresBin()
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "toolexec-bench-pg-")
	if err != nil {
		return nil, err
	}
	secret := make([]byte, 12)
	_, _ = rand.Read(secret)
	s := &Postgres{Host: "127.0.0.1", User: "bench", Password: hex.EncodeToString(secret), Database: "bench", dir: dir, bin: bin}
	s.data = filepath.Join(dir, "data")
	fail := func(err error) (*Postgres, error) {
		s.Stop()
		return nil, err
	}
	if err := os.Mkdir(s.data, 0o700); err != nil {
		return fail(err)
	}
	pwfile := filepath.Join(dir, "pw")
	if err := os.WriteFile(pwfile, []byte(s.Password+"\n"), 0o644); err != nil {
		return fail(err)
	}
	if os.Geteuid() == 0 {
		// PostgreSQL refuses to run as root.
		u, err := user.Lookup("postgres")
		if err != nil {
			return fail(fmt.Errorf("running as root needs a postgres user: %w", err))
		}
		uid, _ := strconv.Atoi(u.Uid)
		gid, _ := strconv.Atoi(u.Gid)
		if err := os.Chmod(dir, 0o755); err != nil {
			return fail(err)
		}
		if err := os.Chown(s.data, uid, gid); err != nil {
			return fail(err)
		}
		s.asUser = []string{"runuser", "-u", "postgres", "--"}
	}
	var out bytes.Buffer
	if err := s.command(&out, "initdb", "-D", s.data, "-U", s.User, "--pwfile", pwfile,
		"--auth-local=trust", "--auth-host=scram-sha-256", "-E", "UTF8", "--no-sync").Run(); err != nil {
		return fail(fmt.Errorf("initdb: %v\n%s", err, out.String()))
	}
	if s.Port, err = freePort(); err != nil {
		return fail(err)
	}
	// Durability off (a throw-away server), and one log line per session.
	opts := fmt.Sprintf("-h 127.0.0.1 -p %d -k %s -c fsync=off -c full_page_writes=off -c synchronous_commit=off -c log_connections=on", s.Port, s.data)
	out.Reset()
	if err := s.command(&out, "pg_ctl", "-D", s.data, "-l", s.logPath(), "-o", opts, "-w", "-t", "60", "start").Run(); err != nil {
		log, _ := os.ReadFile(s.logPath())
		return fail(fmt.Errorf("pg_ctl start: %v\n%s\n%s", err, out.String(), log))
	}
	s.watchdog()
	out.Reset()
	if err := s.command(&out, "postgres", "--version").Run(); err == nil {
		// "postgres (PostgreSQL) 15.14 (Debian 15.14-0+deb12u1)"
		v := strings.TrimSpace(out.String())
		if _, after, ok := strings.Cut(v, "(PostgreSQL) "); ok {
			v = after
		}
		s.Version = v
	}
	out.Reset()
	if err := s.command(&out, "createdb", "-h", s.data, "-p", strconv.Itoa(s.Port), "-U", s.User, s.Database).Run(); err != nil {
		return fail(fmt.Errorf("createdb: %v\n%s", err, out.String()))
	}
	return s, nil
}

// postgresBin finds the newest /usr/lib/postgresql/*/bin with initdb, or
// the directory of initdb on PATH.
func postgresBin() (string, error) {
	dirs, _ := filepath.Glob("/usr/lib/postgresql/*/bin")
	sort.Slice(dirs, func(i, j int) bool {
		vi, _ := strconv.Atoi(filepath.Base(filepath.Dir(dirs[i])))
		vj, _ := strconv.Atoi(filepath.Base(filepath.Dir(dirs[j])))
		return vi > vj
	})
	for _, d := range dirs {
		if exists(filepath.Join(d, "initdb")) {
			return d, nil
		}
	}
	if p, err := exec.LookPath("initdb"); err == nil {
		return filepath.Dir(p), nil
	}
	return "", ErrNoPostgres
}

func (s *Postgres) logPath() string { return filepath.Join(s.data, "server.log") }

func (s *Postgres) command(out *bytes.Buffer, name string, args ...string) *exec.Cmd {
	argv := append(append(append([]string{}, s.asUser...), filepath.Join(s.bin, name)), args...)
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Stdout, cmd.Stderr = out, out
	cmd.Dir = s.dir
	return cmd
}

// watchdog starts a shell that stops the server and removes its directory
// once this process is gone, so that a benchmark that dies leaves no
// server running. Stop makes it unnecessary.
func (s *Postgres) watchdog() {
	stop := strings.Join(append(append([]string{}, s.asUser...), filepath.Join(s.bin, "pg_ctl"), "-D", s.data, "-m", "immediate", "-w", "stop"), " ")
	script := fmt.Sprintf("while kill -0 %d 2>/dev/null; do sleep 1; done; if [ -d %s ]; then %s >/dev/null 2>&1; rm -rf %s; fi", os.Getpid(), s.data, stop, s.dir)
	cmd := exec.Command("sh", "-c", script)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if cmd.Start() == nil {
		go func() { _ = cmd.Wait() }()
	}
}

// Stop stops the server (an immediate shutdown) and removes its
// directory.
func (s *Postgres) Stop() {
	if exists(filepath.Join(s.data, "postmaster.pid")) {
		var out bytes.Buffer
		_ = s.command(&out, "pg_ctl", "-D", s.data, "-m", "immediate", "-w", "-t", "30", "stop").Run()
	}
	_ = os.RemoveAll(s.dir)
}

// URL is a connection URL for the server's database, password included.
func (s *Postgres) URL() string {
	u := url.URL{Scheme: "postgres", User: url.UserPassword(s.User, s.Password),
		Host: net.JoinHostPort(s.Host, strconv.Itoa(s.Port)), Path: "/" + s.Database, RawQuery: "sslmode=disable"}
	return u.String()
}

// Exec runs sql (one or more statements) in a session of its own.
func (s *Postgres) Exec(ctx context.Context, sql string) error {
	conn, err := pgx.Connect(ctx, s.URL())
	if err != nil {
		return err
	}
	defer func() { _ = conn.Close(ctx) }() // a set-up connection, done with
	_, err = conn.Exec(ctx, sql)
	return err
}

// Sessions is how many sessions the server has started so far, counted
// from its log (log_connections: one "connection authorized" line per
// session that passed authentication), which backends write as the
// session starts.
func (s *Postgres) Sessions() (int64, error) {
	f, err := os.Open(s.logPath())
	if err != nil {
		return 0, err
	}
	defer func() { _ = f.Close() }() // opened for reading: closing it loses nothing
	if _, err := f.Seek(s.logOffset, 0); err != nil {
		return 0, err
	}
	var buf bytes.Buffer
	if _, err := buf.ReadFrom(f); err != nil {
		return 0, err
	}
	// Count complete lines only: a line still being written is counted
	// next time.
	b := buf.Bytes()
	end := bytes.LastIndexByte(b, '\n') + 1
	s.sessions += int64(bytes.Count(b[:end], []byte("connection authorized:")))
	s.logOffset += int64(end)
	return s.sessions, nil
}

// PID is the postmaster's process id.
func (s *Postgres) PID() (int, error) {
	b, err := os.ReadFile(filepath.Join(s.data, "postmaster.pid"))
	if err != nil {
		return 0, err
	}
	line, _, _ := strings.Cut(string(b), "\n")
	return strconv.Atoi(strings.TrimSpace(line))
}

// CPU is the CPU time the whole server has used so far: the postmaster,
// the sessions that ended and those still open (TreeCPUTime).
func (s *Postgres) CPU() (time.Duration, error) {
	pid, err := s.PID()
	if err != nil {
		return 0, err
	}
	return TreeCPUTime(pid)
}
