// Package pgtest starts a real, throw-away PostgreSQL server for tests: the
// Debian postgresql package's initdb and postgres, in a temporary
// directory, listening on 127.0.0.1 at a free port. As root it runs them
// as the postgres user, since PostgreSQL refuses to run as root.
package pgtest

import (
	"bytes"
	"fmt"
	"path/filepath"

	"github.com/toolexec/toolexec/internal/testserver"
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
	pg      *testserver.Postgres
}

// ErrNotInstalled is returned by Start when no PostgreSQL binaries are
// found.
var ErrNotInstalled = testserver.NotInstalled("pgtest: PostgreSQL binaries not found", "postgresql")

// Start initialises a cluster in a new temporary directory and starts it.
// Stop removes everything.
func Start() (*Server, error) {
	bin := testserver.PostgresBin()
	if bin == "" {
		return nil, ErrNotInstalled
	}
	pg, err := testserver.NewPostgres(bin, "toolexec-pgtest-", "files")
	if err != nil {
		return nil, fmt.Errorf("pgtest: %w", err)
	}
	s := &Server{Host: "127.0.0.1", User: "toolexec", Database: "postgres", FileDir: filepath.Join(pg.Dir, "files"), pg: pg}
	var out bytes.Buffer
	if err := pg.Command(&out, "initdb", "-D", pg.Data, "-U", s.User, "--auth=trust", "-E", "UTF8", "--no-sync").Run(); err != nil {
		pg.Stop()
		return nil, fmt.Errorf("pgtest: initdb: %v\n%s", err, out.String())
	}
	// pg_stat_statements counts the statements each database runs, for
	// tests that count round trips (CREATE EXTENSION pg_stat_statements
	// in the database to read them).
	if err := pg.Start("shared_preload_libraries=pg_stat_statements"); err != nil {
		pg.Stop()
		return nil, fmt.Errorf("pgtest: %w", err)
	}
	s.Port = pg.Port
	return s, nil
}

// Stop stops the server (an immediate shutdown) and removes its
// directory.
func (s *Server) Stop() { s.pg.Stop() }
