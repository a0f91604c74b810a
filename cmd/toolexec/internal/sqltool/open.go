// Package sqltool runs declared SQL tools (mcp-toolbox's sqlite-sql,
// postgres-sql and mysql-sql kinds) against SQLite (modernc.org/sqlite,
// pure Go), PostgreSQL (github.com/jackc/pgx/v5) and MySQL or MariaDB
// (github.com/go-sql-driver/mysql): parameters bound as query arguments,
// reads run read-only (read-only connections or sessions, MariaDB's
// per-statement SET STATEMENT tx_read_only=1, else read-only
// transactions) unless the statement writes, row and byte caps on
// results, and cancellation that reaches the server (a cancel request on
// PostgreSQL, KILL QUERY on MySQL), also when a result is cut at a cap.
package sqltool

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgconn/ctxwatch"
	"github.com/jackc/pgx/v5/stdlib"
	_ "modernc.org/sqlite" // registers the "sqlite" database/sql driver

	"github.com/toolexec/toolexec/cmd/toolexec/internal/config"
)

// Pool defaults, used when a source does not set its own. The idle limit
// (maxIdleConns) defaults to the open limit: a pool keeps every
// connection it opened, rather than closing some at the end of each burst
// of calls and opening (and authenticating) new ones at the next.
const (
	DefaultMaxOpenConns    = 10
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
	// readOnlyConns reports that every session of ro is read-only itself
	// (PostgreSQL's default_transaction_read_only, checked on each
	// session before each call: readOnlySession), so a read needs no
	// transaction of its own.
	readOnlyConns bool
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
		s, err = openPostgres(src, writes, true)
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
	err = s.ping(ctx, src)
	if err != nil && s.readOnlyConns && refusedReadOnlySession(err) {
		// A server before PostgreSQL 14 does not report the setting, and
		// a pooler in between may refuse it: reads then run in read-only
		// transactions of their own, which read-only sessions never need.
		_ = s.Close() // never served a call: nothing to lose
		if s, err = openPostgres(src, writes, false); err != nil {
			return nil, err
		}
		err = s.ping(ctx, src)
	}
	if err != nil {
		_ = s.Close() // never served a call: the connect error is what matters
		return nil, fmt.Errorf("source %q: cannot connect: %s", src.Name, redact(err))
	}
	return s, nil
}

// ping sets the pools' limits and checks that each connects.
func (s *Source) ping(ctx context.Context, src *config.Source) error {
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
			return err
		}
	}
	return nil
}

func setPool(db *sql.DB, src *config.Source) {
	open, idle, life := src.MaxOpenConns, src.MaxIdleConns, src.ConnMaxLifetime
	if open == 0 {
		open = DefaultMaxOpenConns
	}
	if idle == 0 {
		idle = open
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
				_ = db.Close() // the init error is what matters
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
			_ = ro.Close() // never served a call: the open error is what matters
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

// openPostgres opens src's pools: ro for reads and, when writes, rw for
// the tools that write. When readOnlyConns, ro's sessions are read-only
// themselves (readOnlySession); else reads run in read-only transactions.
func openPostgres(src *config.Source, writes, readOnlyConns bool) (*Source, error) {
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
	s := &Source{Kind: config.KindPostgres}
	if writes {
		s.rw = stdlib.OpenDB(*cfg.Copy())
	}
	if !readOnlyConns {
		s.ro = stdlib.OpenDB(*cfg)
		if s.rw == nil {
			s.rw = s.ro
		}
		return s, nil
	}
	cfg.RuntimeParams[readOnlyParam] = "on"
	s.ro = stdlib.OpenDB(*cfg, stdlib.OptionAfterConnect(readOnlySession), stdlib.OptionResetSession(stillReadOnly))
	s.readOnlyConns = true
	return s, nil
}

// readOnlyParam is the PostgreSQL setting that makes a session's
// transactions read-only unless they say otherwise. The read pool's
// sessions are opened with it on (a parameter of the connection, sent as
// the session starts), so a read is one statement, not BEGIN READ ONLY,
// the statement and ROLLBACK: three round trips. PostgreSQL 14 and later
// report its value to the client as the session starts and whenever a
// statement changes it.
const readOnlyParam = "default_transaction_read_only"

// errNotReadOnly is readOnlySession's refusal of a session.
var errNotReadOnly = errors.New("the session is not read-only (" + readOnlyParam + " is not on)")

// readOnlySession accepts a new session of the read pool only when the
// server reports that its transactions are read-only; it closes a session
// it refuses (the driver leaves that to it).
func readOnlySession(ctx context.Context, c *pgx.Conn) error {
	if c.PgConn().ParameterStatus(readOnlyParam) != "on" {
		_ = c.Close(ctx)
		return errNotReadOnly
	}
	return nil
}

// stillReadOnly runs before each call that reuses a session of the read
// pool, and drops the session (driver.ErrBadConn) unless the server still
// reports its transactions read-only: a statement that turned the default
// off (a read may call a function that calls set_config) cannot open the
// session to a later call's writes. It costs no round trip: the server's
// reports arrive with its answers.
func stillReadOnly(_ context.Context, c *pgx.Conn) error {
	if c.PgConn().ParameterStatus(readOnlyParam) != "on" {
		return driver.ErrBadConn
	}
	return nil
}

// refusedReadOnlySession reports whether a first connection failed
// because of the read-only session setting: the server did not report it
// (before PostgreSQL 14), or refused the setting at start-up (a pooler
// that passes on no setting it does not know).
func refusedReadOnlySession(err error) bool {
	if errors.Is(err, errNotReadOnly) {
		return true
	}
	var pe *pgconn.PgError
	return errors.As(err, &pe) && strings.Contains(pe.Message, readOnlyParam)
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
