package external

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/toolexec/toolexec/internal/testserver"
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

	pg        *testserver.Postgres
	logOffset int64
	sessions  int64
}

// ErrNoPostgres is returned by StartPostgres when no PostgreSQL binaries
// are found.
var ErrNoPostgres = testserver.NotInstalled("PostgreSQL binaries not found", "postgresql")

// StartPostgres initialises a cluster in a new temporary directory and
// starts it. Stop removes everything.
func StartPostgres() (*Postgres, error) {
	bin := testserver.PostgresBin()
	if bin == "" {
		return nil, ErrNoPostgres
	}
	pg, err := testserver.NewPostgres(bin, "toolexec-bench-pg-")
	if err != nil {
		return nil, err
	}
	secret := make([]byte, 12)
	_, _ = rand.Read(secret)
	s := &Postgres{Host: "127.0.0.1", User: "bench", Password: hex.EncodeToString(secret), Database: "bench", pg: pg}
	fail := func(err error) (*Postgres, error) {
		s.Stop()
		return nil, err
	}
	pwfile := filepath.Join(pg.Dir, "pw")
	if err := os.WriteFile(pwfile, []byte(s.Password+"\n"), 0o644); err != nil {
		return fail(err)
	}
	var out bytes.Buffer
	if err := pg.Command(&out, "initdb", "-D", pg.Data, "-U", s.User, "--pwfile", pwfile,
		"--auth-local=trust", "--auth-host=scram-sha-256", "-E", "UTF8", "--no-sync").Run(); err != nil {
		return fail(fmt.Errorf("initdb: %v\n%s", err, out.String()))
	}
	// One log line per session.
	if err := pg.Start("log_connections=on"); err != nil {
		return fail(err)
	}
	s.Port = pg.Port
	out.Reset()
	if err := pg.Command(&out, "postgres", "--version").Run(); err == nil {
		// "postgres (PostgreSQL) 15.14 (Debian 15.14-0+deb12u1)"
		v := strings.TrimSpace(out.String())
		if _, after, ok := strings.Cut(v, "(PostgreSQL) "); ok {
			v = after
		}
		s.Version = v
	}
	out.Reset()
	if err := pg.Command(&out, "createdb", "-h", pg.Data, "-p", strconv.Itoa(s.Port), "-U", s.User, s.Database).Run(); err != nil {
		return fail(fmt.Errorf("createdb: %v\n%s", err, out.String()))
	}
	return s, nil
}

// Stop stops the server (an immediate shutdown) and removes its
// directory.
func (s *Postgres) Stop() { s.pg.Stop() }

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
	f, err := os.Open(s.pg.LogPath())
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
	b, err := os.ReadFile(filepath.Join(s.pg.Data, "postmaster.pid"))
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
