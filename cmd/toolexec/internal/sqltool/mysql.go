package sqltool

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/go-sql-driver/mysql"

	"github.com/toolexec/toolexec/cmd/toolexec/internal/config"
)

// killTimeout bounds the KILL QUERY sent for a cancelled MySQL call.
const killTimeout = 5 * time.Second

// openMySQL opens a mysql source: one pool whose connections know their
// server-side id (so that a cancelled call can KILL QUERY it), and a pool
// of at most one connection that sends those kills.
func openMySQL(src *config.Source) (*Source, error) {
	cfg, err := mysqlConfig(src)
	if err != nil {
		return nil, err
	}
	connector, err := mysql.NewConnector(cfg)
	if err != nil {
		return nil, fmt.Errorf("source %q: invalid connection settings", src.Name)
	}
	db := sql.OpenDB(idConnector{connector})
	kill := sql.OpenDB(connector)
	kill.SetMaxOpenConns(1)
	kill.SetMaxIdleConns(1)
	kill.SetConnMaxIdleTime(time.Minute)
	return &Source{Kind: config.KindMySQL, ro: db, rw: db, kill: kill}, nil
}

// mysqlConfig is the driver's configuration of src: toolbox's defaults
// (parseTime) and the source's queryParams, read as the driver reads a
// DSN's parameters, then its address and credentials.
func mysqlConfig(src *config.Source) (*mysql.Config, error) {
	q := url.Values{"parseTime": {"true"}}
	for k, v := range src.QueryParams {
		if v != "" {
			q.Set(k, v)
		}
	}
	cfg, err := mysql.ParseDSN("/?" + q.Encode())
	if err != nil {
		return nil, fmt.Errorf("source %q: queryParams: %w", src.Name, err)
	}
	cfg.Net = "tcp"
	cfg.Addr = net.JoinHostPort(src.Host, src.Port)
	cfg.User = src.User
	cfg.Passwd = src.Password
	cfg.DBName = src.Database
	cfg.ConnectionAttributes = "program_name:toolexec"
	return cfg, nil
}

// idConnector wraps the driver's connector: each connection it makes
// asks the server its id, for KILL QUERY, and its version, for
// readOnlyPrefix, once (SELECT CONNECTION_ID(), VERSION(): the round trip
// it made for the id alone).
type idConnector struct{ driver.Connector }

// Connect makes a connection and learns its id and version.
func (c idConnector) Connect(ctx context.Context) (driver.Conn, error) {
	dc, err := c.Connector.Connect(ctx)
	if err != nil {
		return nil, err
	}
	id, version, err := connectionInfo(ctx, dc)
	if err != nil {
		_ = dc.Close() // refused already for want of its id; its close error adds nothing
		return nil, err
	}
	return &idConn{conn: dc, id: id, readOnly: readOnlyPrefix(version)}, nil
}

func connectionInfo(ctx context.Context, dc driver.Conn) (uint64, string, error) {
	q, ok := dc.(driver.QueryerContext)
	if !ok {
		return 0, "", errors.New("the mysql driver cannot query")
	}
	rows, err := q.QueryContext(ctx, "SELECT CONNECTION_ID(), VERSION()", nil)
	if err != nil {
		return 0, "", err
	}
	defer func() { _ = rows.Close() }() // one row read; errors come from Next
	v := make([]driver.Value, 2)
	if err := rows.Next(v); err != nil {
		if errors.Is(err, io.EOF) {
			return 0, "", errors.New("CONNECTION_ID() returned no row")
		}
		return 0, "", err
	}
	version, _ := v[1].([]byte)
	switch id := v[0].(type) {
	case int64:
		return uint64(id), string(version), nil
	case []byte:
		n, err := strconv.ParseUint(string(id), 10, 64)
		return n, string(version), err
	}
	return 0, "", fmt.Errorf("CONNECTION_ID() returned %T", v[0])
}

// readOnlyPrefix is what makes the one statement after it read-only on a
// server of the given version (VERSION()'s answer), whatever the
// session's own settings: MariaDB's SET STATEMENT with its read-only
// variable (transaction_read_only from MariaDB 11.1, tx_read_only before),
// which holds for that statement alone and restores the variable after it.
// It is "" for MySQL, which has no such clause.
func readOnlyPrefix(version string) string {
	if !strings.Contains(version, "MariaDB") {
		return ""
	}
	major, rest, _ := strings.Cut(version, ".")
	minor, _, _ := strings.Cut(rest, ".")
	ma, err1 := strconv.Atoi(major)
	mi, err2 := strconv.Atoi(minor)
	if err1 == nil && err2 == nil && (ma > 11 || ma == 11 && mi >= 1) {
		return "SET STATEMENT transaction_read_only=1 FOR "
	}
	return "SET STATEMENT tx_read_only=1 FOR "
}

// idConn is a driver connection, its server-side id, and its server's
// readOnlyPrefix. It forwards every interface database/sql uses to the
// driver's connection.
type idConn struct {
	conn     driver.Conn
	id       uint64
	readOnly string
}

var (
	_ driver.Conn               = (*idConn)(nil)
	_ driver.ConnBeginTx        = (*idConn)(nil)
	_ driver.ConnPrepareContext = (*idConn)(nil)
	_ driver.QueryerContext     = (*idConn)(nil)
	_ driver.ExecerContext      = (*idConn)(nil)
	_ driver.Pinger             = (*idConn)(nil)
	_ driver.SessionResetter    = (*idConn)(nil)
	_ driver.Validator          = (*idConn)(nil)
	_ driver.NamedValueChecker  = (*idConn)(nil)
)

func (c *idConn) Prepare(query string) (driver.Stmt, error) { return c.conn.Prepare(query) }
func (c *idConn) Close() error                              { return c.conn.Close() }

// Begin is required by driver.Conn; database/sql calls BeginTx.
//
//lint:ignore SA1019 driver.Conn still requires it
func (c *idConn) Begin() (driver.Tx, error) { return c.conn.Begin() }

func (c *idConn) BeginTx(ctx context.Context, opts driver.TxOptions) (driver.Tx, error) {
	return c.conn.(driver.ConnBeginTx).BeginTx(ctx, opts)
}

func (c *idConn) PrepareContext(ctx context.Context, query string) (driver.Stmt, error) {
	return c.conn.(driver.ConnPrepareContext).PrepareContext(ctx, query)
}

func (c *idConn) QueryContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Rows, error) {
	return c.conn.(driver.QueryerContext).QueryContext(ctx, query, args)
}

func (c *idConn) ExecContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Result, error) {
	return c.conn.(driver.ExecerContext).ExecContext(ctx, query, args)
}

func (c *idConn) Ping(ctx context.Context) error { return c.conn.(driver.Pinger).Ping(ctx) }

func (c *idConn) ResetSession(ctx context.Context) error {
	return c.conn.(driver.SessionResetter).ResetSession(ctx)
}

func (c *idConn) IsValid() bool { return c.conn.(driver.Validator).IsValid() }

func (c *idConn) CheckNamedValue(nv *driver.NamedValue) error {
	return c.conn.(driver.NamedValueChecker).CheckNamedValue(nv)
}

// killer sends KILL QUERY for one call's connection when the call's query
// context ends before the query does: the driver only closes its side of
// the connection, and the server would run the query to its end.
type killer struct {
	stop func() bool
	done chan struct{}
}

// watchKill arranges for KILL QUERY id to be sent on kill when ctx ends.
func watchKill(ctx context.Context, kill *sql.DB, id uint64) *killer {
	k := &killer{done: make(chan struct{})}
	k.stop = context.AfterFunc(ctx, func() {
		defer close(k.done)
		kctx, cancel := context.WithTimeout(context.Background(), killTimeout)
		defer cancel()
		_, _ = kill.ExecContext(kctx, "KILL QUERY "+strconv.FormatUint(id, 10))
	})
	return k
}

// finish stops watching; it reports whether a kill was sent (or is being
// sent, then after it has been), in which case the connection must not
// serve another call.
func (k *killer) finish() (killed bool) {
	if k.stop() {
		return false
	}
	<-k.done
	return true
}
