// Package sqltool runs declared SQL tools (mcp-toolbox's sqlite-sql,
// postgres-sql and mysql-sql kinds) against SQLite (modernc.org/sqlite,
// pure Go), PostgreSQL (github.com/jackc/pgx/v5) and MySQL or MariaDB
// (github.com/go-sql-driver/mysql): parameters bound as query arguments,
// read-only transactions unless the statement writes, row and byte caps on
// results, and cancellation that reaches the server (a cancel request on
// PostgreSQL, KILL QUERY on MySQL), also when a result is cut at a cap.
package sqltool

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgconn/ctxwatch"
	"github.com/jackc/pgx/v5/stdlib"
	_ "modernc.org/sqlite" // registers the "sqlite" database/sql driver

	"github.com/toolexec/toolexec/cmd/toolexec/internal/config"
)

// Pool defaults, used when a source does not set its own.
const (
	DefaultMaxOpenConns    = 10
	DefaultMaxIdleConns    = 5
	DefaultConnMaxLifetime = 30 * time.Minute
	// cancelDeadlineDelay is how long after a cancel request pgx waits
	// before giving up on the connection.
	cancelDeadlineDelay = 2 * time.Second
)

// Source is an open database: a read-only pool and, when a tool writes, a
// read-write one. Close closes both.
type Source struct {
	Kind string
	// ro serves read-only tools; rw serves tools that write (nil until
	// asked for).
	ro, rw *sql.DB
	// kill (mysql) sends KILL QUERY for cancelled calls.
	kill *sql.DB
	// memory is a sqlite ":memory:" database: one pool, one connection.
	memory bool
	// queryTimeout (mysql) is the timeout of tools that set none.
	queryTimeout time.Duration
}

// Open connects to src. For sqlite, a database file that does not exist
// yet is created and src.Init, when set, is applied to it first. Open
// checks the connection with a ping, bounded by ctx. writes says whether
// any tool of the source writes.
func Open(ctx context.Context, src *config.Source, writes bool) (*Source, error) {
	var s *Source
	var err error
	switch src.Kind {
	case config.KindSQLite:
		s, err = openSQLite(ctx, src, writes)
	case config.KindPostgres:
		s, err = openPostgres(src, writes)
	case config.KindMySQL:
		s, err = openMySQL(src)
		if s != nil {
			s.queryTimeout = src.QueryTimeout
		}
	default:
		return nil, fmt.Errorf("source kind %q is not a database", src.Kind)
	}
	if err != nil {
		return nil, err
	}
	// The read-write pool first: it creates a missing database file, which
	// the read-only one (mode=ro) cannot.
	for _, db := range []*sql.DB{s.rw, s.ro} {
		if db == nil {
			continue
		}
		setPool(db, src)
		if s.memory {
			// Every connection to :memory: is a database of its own: keep
			// exactly one, forever.
			db.SetMaxOpenConns(1)
			db.SetMaxIdleConns(1)
			db.SetConnMaxLifetime(0)
			db.SetConnMaxIdleTime(0)
		}
		if err := db.PingContext(ctx); err != nil {
			s.Close()
			return nil, fmt.Errorf("source %q: cannot connect: %s", src.Name, redact(err))
		}
	}
	return s, nil
}

func setPool(db *sql.DB, src *config.Source) {
	open, idle, life := src.MaxOpenConns, src.MaxIdleConns, src.ConnMaxLifetime
	if open == 0 {
		open = DefaultMaxOpenConns
	}
	if idle == 0 {
		idle = DefaultMaxIdleConns
	}
	if idle > open {
		idle = open
	}
	if life == 0 {
		life = DefaultConnMaxLifetime
	}
	db.SetMaxOpenConns(open)
	db.SetMaxIdleConns(idle)
	db.SetConnMaxLifetime(life)
}

// Close closes the pools.
func (s *Source) Close() error {
	var errs []error
	if s.ro != nil {
		errs = append(errs, s.ro.Close())
	}
	if s.rw != nil && s.rw != s.ro {
		errs = append(errs, s.rw.Close())
	}
	if s.kill != nil {
		errs = append(errs, s.kill.Close())
	}
	return errors.Join(errs...)
}

func openSQLite(ctx context.Context, src *config.Source, writes bool) (*Source, error) {
	if src.Database == ":memory:" {
		// One connection, so that every call sees the same database; a
		// read-only call switches query_only on for its transaction.
		db, err := sql.Open("sqlite", "file::memory:?_pragma=busy_timeout(5000)")
		if err != nil {
			return nil, err
		}
		db.SetMaxOpenConns(1)
		s := &Source{Kind: config.KindSQLite, ro: db, rw: db, memory: true}
		if src.Init != "" {
			if err := applyInit(ctx, db, src.Init); err != nil {
				db.Close()
				return nil, fmt.Errorf("source %q: %w", src.Name, err)
			}
		}
		return s, nil
	}
	path := src.Database
	if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) && src.Init != "" {
		if err := createSQLite(ctx, path, src.Init); err != nil {
			return nil, fmt.Errorf("source %q: %w", src.Name, err)
		}
	}
	u := url.URL{Scheme: "file", Path: path}
	// mode=ro opens the file read-only and query_only refuses writes even
	// through a statement that would attach another database.
	ro, err := sql.Open("sqlite", u.String()+"?mode=ro&_pragma=query_only(1)&_pragma=busy_timeout(5000)")
	if err != nil {
		return nil, err
	}
	s := &Source{Kind: config.KindSQLite, ro: ro}
	if writes {
		rw, err := sql.Open("sqlite", u.String()+"?_pragma=busy_timeout(5000)&_pragma=foreign_keys(1)")
		if err != nil {
			ro.Close()
			return nil, err
		}
		s.rw = rw
	}
	return s, nil
}

// createSQLite creates the database file at path from the init script,
// atomically: the script runs on a temporary file that is renamed into
// place only when it succeeded.
func createSQLite(ctx context.Context, path, init string) error {
	tmp := path + ".init-tmp"
	_ = os.Remove(tmp)
	db, err := sql.Open("sqlite", (&url.URL{Scheme: "file", Path: tmp}).String())
	if err != nil {
		return err
	}
	err = applyInit(ctx, db, init)
	if cerr := db.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		_ = os.Remove(tmp)
		return err
	}
	return os.Rename(tmp, path)
}

func applyInit(ctx context.Context, db *sql.DB, init string) error {
	script, err := os.ReadFile(init)
	if err != nil {
		return fmt.Errorf("reading init script: %w", err)
	}
	if _, err := db.ExecContext(ctx, string(script)); err != nil {
		return fmt.Errorf("init script %s: %w", init, err)
	}
	return nil
}

func openPostgres(src *config.Source, writes bool) (*Source, error) {
	q := url.Values{}
	for k, v := range src.QueryParams {
		q.Set(k, v)
	}
	u := url.URL{
		Scheme:   "postgres",
		User:     url.UserPassword(src.User, src.Password),
		Host:     net.JoinHostPort(src.Host, src.Port),
		Path:     "/" + src.Database,
		RawQuery: q.Encode(),
	}
	cfg, err := pgx.ParseConfig(u.String())
	if err != nil {
		return nil, fmt.Errorf("source %q: %s", src.Name, redact(err))
	}
	// A cancelled context (a call's timeout, a client gone) sends the
	// server a cancel request, so the query stops there too, not only on
	// this side; the connection is dropped if the server does not answer.
	cfg.BuildContextWatcherHandler = func(c *pgconn.PgConn) ctxwatch.Handler {
		return &pgconn.CancelRequestContextWatcherHandler{Conn: c, DeadlineDelay: cancelDeadlineDelay}
	}
	cfg.RuntimeParams["application_name"] = "toolexec"
	db := stdlib.OpenDB(*cfg)
	return &Source{Kind: config.KindPostgres, ro: db, rw: db}, nil
}

// redact keeps a connection error's cause and drops what may carry
// credentials (pgx's errors name the host and user, never the password,
// but a URL parse error would quote the whole URL).
func redact(err error) string {
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err.Error()
	}
	var pe *pgconn.ParseConfigError
	if errors.As(err, &pe) {
		return "invalid connection settings"
	}
	return err.Error()
}
