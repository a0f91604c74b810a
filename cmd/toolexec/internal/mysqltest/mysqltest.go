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
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/go-sql-driver/mysql"
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
	cmd     *exec.Cmd
	exited  chan struct{}
}

// ErrNotInstalled is returned by Start when no MariaDB server binaries are
// found.
var ErrNotInstalled = errors.New("mysqltest: MariaDB server binaries not found (apt-get install mariadb-server)")

// startTimeout bounds how long Start waits for the server to accept
// connections.
const startTimeout = 60 * time.Second

// binaries finds mariadbd (or mysqld) and mariadb-install-db (or
// mysql_install_db).
func binaries() (server, install string, err error) {
	find := func(names ...string) string {
		for _, n := range names {
			for _, dir := range []string{"/usr/sbin", "/usr/bin", "/usr/local/bin", "/usr/local/sbin"} {
				if p := filepath.Join(dir, n); isExecutable(p) {
					return p
				}
			}
			if p, err := exec.LookPath(n); err == nil {
				return p
			}
		}
		return ""
	}
	server = find("mariadbd", "mysqld")
	install = find("mariadb-install-db", "mysql_install_db")
	if server == "" || install == "" {
		return "", "", ErrNotInstalled
	}
	return server, install, nil
}

func isExecutable(p string) bool {
	st, err := os.Stat(p)
	return err == nil && !st.IsDir() && st.Mode()&0o111 != 0
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
	if os.Geteuid() == 0 {
		u, err := user.Lookup("mysql")
		if err != nil {
			return nil, s.cleanup(fmt.Errorf("mysqltest: running as root needs a mysql user: %w", err))
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
		runAs = []string{"--user=mysql"}
	}
	var out bytes.Buffer
	initdb := exec.Command(install, append([]string{"--no-defaults", "--datadir=" + data,
		"--auth-root-authentication-method=normal", "--skip-test-db", "--skip-name-resolve"}, runAs...)...)
	initdb.Stdout, initdb.Stderr, initdb.Dir = &out, &out, dir
	if err := initdb.Run(); err != nil {
		return nil, s.cleanup(fmt.Errorf("mysqltest: %s: %v\n%s", filepath.Base(install), err, out.String()))
	}
	if s.Port, err = freePort(); err != nil {
		return nil, s.cleanup(err)
	}
	logFile := filepath.Join(data, "server.log")
	s.cmd = exec.Command(server, append([]string{"--no-defaults", "--datadir=" + data,
		"--bind-address=127.0.0.1", "--port=" + strconv.Itoa(s.Port),
		"--socket=" + filepath.Join(data, "mysqld.sock"), "--pid-file=" + filepath.Join(data, "mysqld.pid"),
		"--log-error=" + logFile, "--skip-name-resolve", "--skip-log-bin",
		"--innodb-buffer-pool-size=32M", "--innodb-flush-log-at-trx-commit=0", "--innodb-doublewrite=0",
		"--max-connections=200", "--secure-file-priv=" + s.FileDir}, runAs...)...)
	s.cmd.Dir = dir
	s.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := s.cmd.Start(); err != nil {
		return nil, s.cleanup(fmt.Errorf("mysqltest: %s: %v", filepath.Base(server), err))
	}
	s.exited = make(chan struct{})
	go func() { _ = s.cmd.Wait(); close(s.exited) }()
	s.watchdog()
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
	deadline := time.Now().Add(startTimeout)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		err = root.PingContext(ctx)
		cancel()
		if err == nil {
			break
		}
		select {
		case <-s.exited:
			return fmt.Errorf("mysqltest: the server exited: %v", err)
		default:
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("mysqltest: the server did not accept connections within %s: %v", startTimeout, err)
		}
		time.Sleep(100 * time.Millisecond)
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

// watchdog starts a shell that stops the server and removes its directory
// once this process is gone, so that a test binary that dies (a panic, a
// timeout) leaves no server running. Stop makes it unnecessary, and it
// then finds nothing left to do.
func (s *Server) watchdog() {
	script := fmt.Sprintf("while kill -0 %d 2>/dev/null; do sleep 1; done; kill -9 %d 2>/dev/null; rm -rf %s",
		os.Getpid(), s.cmd.Process.Pid, s.dir)
	cmd := exec.Command("sh", "-c", script)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if cmd.Start() == nil {
		go func() { _ = cmd.Wait() }()
	}
}

// Stop stops the server and removes its directory.
func (s *Server) Stop() {
	if s.cmd != nil && s.cmd.Process != nil {
		_ = s.cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-s.exited:
		case <-time.After(30 * time.Second):
			_ = s.cmd.Process.Kill()
			<-s.exited
		}
	}
	_ = os.RemoveAll(s.dir)
}

func (s *Server) cleanup(err error) error {
	_ = os.RemoveAll(s.dir)
	return err
}

func freePort() (int, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer func() { _ = ln.Close() }() // a free-port probe: nothing was sent
	return ln.Addr().(*net.TCPAddr).Port, nil
}
