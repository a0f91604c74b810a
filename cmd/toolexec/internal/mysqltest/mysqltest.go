// Package mysqltest starts a real, throw-away MariaDB server for tests: the
// Debian mariadb-server package's mariadb-install-db and mariadbd, in a
// temporary directory, listening on 127.0.0.1 at a free port, with a
// database and a user of its own. As root it runs them as the mysql user.
//
// The user has the FILE privilege, as a careless deployment's would, and
// the server reads and writes files in FileDir only (its
// secure_file_priv): tests show there that what toolexec refuses writes
// no file.
package mysqltest

import (
	"bytes"
	"context"
	"database/sql"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/go-sql-driver/mysql"

	"github.com/toolexec/toolexec/internal/testserver"
)

// Server is a running MariaDB server with a database (Database) that User,
// with Password, owns.
type Server struct {
	Host     string
	Port     int
	User     string
	Password string
	Database string
	// FileDir is the directory the server reads and writes files in
	// (INTO OUTFILE, LOAD_FILE, LOAD DATA): its secure_file_priv.
	FileDir string
	dir     string
	proc    *testserver.Process
}

// ErrNotInstalled is returned by Start when no MariaDB server binaries are
// found.
var ErrNotInstalled = testserver.NotInstalled("mysqltest: MariaDB server binaries not found", "mariadb-server")

// startTimeout bounds how long Start waits for the server to accept
// connections.
const startTimeout = 60 * time.Second

// binaries finds mariadbd (or mysqld) and mariadb-install-db (or
// mysql_install_db).
func binaries() (server, install string, err error) {
	dirs := []string{"/usr/sbin", "/usr/bin", "/usr/local/bin", "/usr/local/sbin"}
	server = testserver.Find([]string{"mariadbd", "mysqld"}, dirs...)
	install = testserver.Find([]string{"mariadb-install-db", "mysql_install_db"}, dirs...)
	if server == "" || install == "" {
		return "", "", ErrNotInstalled
	}
	return server, install, nil
}

// Start initialises a data directory in a new temporary directory, starts
// the server on it and creates the test database and user. Stop removes
// everything.
func Start() (*Server, error) {
	server, install, err := binaries()
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "toolexec-mysqltest-")
	if err != nil {
		return nil, err
	}
	s := &Server{Host: "127.0.0.1", User: "toolexec", Password: "toolexec-test-password", Database: "toolexec", dir: dir}
	data := filepath.Join(dir, "data")
	if err := os.Mkdir(data, 0o700); err != nil {
		return nil, s.cleanup(err)
	}
	s.FileDir = filepath.Join(dir, "files")
	if err := os.Mkdir(s.FileDir, 0o755); err != nil {
		return nil, s.cleanup(err)
	}
	runAs := []string{}
	root, err := testserver.ServiceUser("mysql", dir, data, s.FileDir)
	if err != nil {
		return nil, s.cleanup(fmt.Errorf("mysqltest: %w", err))
	}
	if root {
		runAs = []string{"--user=mysql"}
	}
	var out bytes.Buffer
	initdb := exec.Command(install, append([]string{"--no-defaults", "--datadir=" + data,
		"--auth-root-authentication-method=normal", "--skip-test-db", "--skip-name-resolve"}, runAs...)...)
	initdb.Stdout, initdb.Stderr, initdb.Dir = &out, &out, dir
	if err := initdb.Run(); err != nil {
		return nil, s.cleanup(fmt.Errorf("mysqltest: %s: %v\n%s", filepath.Base(install), err, out.String()))
	}
	if s.Port, err = testserver.FreePort(); err != nil {
		return nil, s.cleanup(err)
	}
	logFile := filepath.Join(data, "server.log")
	cmd := exec.Command(server, append([]string{"--no-defaults", "--datadir=" + data,
		"--bind-address=127.0.0.1", "--port=" + strconv.Itoa(s.Port),
		"--socket=" + filepath.Join(data, "mysqld.sock"), "--pid-file=" + filepath.Join(data, "mysqld.pid"),
		"--log-error=" + logFile, "--skip-name-resolve", "--skip-log-bin",
		"--innodb-buffer-pool-size=32M", "--innodb-flush-log-at-trx-commit=0", "--innodb-doublewrite=0",
		"--max-connections=200", "--secure-file-priv=" + s.FileDir}, runAs...)...)
	cmd.Dir = dir
	if s.proc, err = testserver.Start(cmd, dir); err != nil {
		return nil, s.cleanup(fmt.Errorf("mysqltest: %s: %v", filepath.Base(server), err))
	}
	if err := s.setUp(); err != nil {
		log, _ := os.ReadFile(logFile)
		s.Stop()
		return nil, fmt.Errorf("%w\n%s", err, log)
	}
	return s, nil
}

// Root opens a connection pool to the server as its root user, for tests
// that change the server's settings (its general log) or its users.
func (s *Server) Root() (*sql.DB, error) {
	cfg := mysql.NewConfig()
	cfg.Net, cfg.Addr, cfg.User = "tcp", net.JoinHostPort(s.Host, strconv.Itoa(s.Port)), "root"
	cfg.Timeout = 2 * time.Second
	cfg.MultiStatements = true
	return sql.Open("mysql", cfg.FormatDSN())
}

// setUp waits for the server to accept connections, then creates the
// database and its user.
func (s *Server) setUp() error {
	root, err := s.Root()
	if err != nil {
		return err
	}
	defer func() { _ = root.Close() }() // a test server's set-up connection
	gone, err := testserver.Await(s.proc.Done(), startTimeout, 100*time.Millisecond, func() error {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		return root.PingContext(ctx)
	})
	switch {
	case gone:
		return fmt.Errorf("mysqltest: the server exited: %v", err)
	case err != nil:
		return fmt.Errorf("mysqltest: the server did not accept connections within %s: %v", startTimeout, err)
	}
	for _, q := range []string{
		"CREATE DATABASE " + s.Database,
		fmt.Sprintf("CREATE USER '%s'@'%%' IDENTIFIED BY '%s'", s.User, s.Password),
		fmt.Sprintf("GRANT ALL ON %s.* TO '%s'@'%%'", s.Database, s.User),
		fmt.Sprintf("GRANT FILE ON *.* TO '%s'@'%%'", s.User),
	} {
		if _, err := root.Exec(q); err != nil {
			return fmt.Errorf("mysqltest: %s: %v", strings.Fields(q)[0], err)
		}
	}
	return nil
}

// Stop stops the server and removes its directory.
func (s *Server) Stop() {
	if s.proc != nil {
		s.proc.Stop(30 * time.Second)
	}
	_ = os.RemoveAll(s.dir)
}

func (s *Server) cleanup(err error) error {
	_ = os.RemoveAll(s.dir)
	return err
}
