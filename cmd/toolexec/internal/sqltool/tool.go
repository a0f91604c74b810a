package sqltool

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/go-sql-driver/mysql"
	"github.com/jackc/pgx/v5/pgconn"
	"modernc.org/sqlite"

	"github.com/toolexec/toolexec"
	"github.com/toolexec/toolexec/cmd/toolexec/internal/config"
	"github.com/toolexec/toolexec/cmd/toolexec/internal/params"
	"github.com/toolexec/toolexec/cmd/toolexec/internal/sqlstmt"
	"github.com/toolexec/toolexec/cmd/toolexec/internal/tooldef"
)

// OutputSchema is the JSON Schema of a SQL tool's structuredContent. Rows
// are objects whose members are the statement's columns. Tools do not
// declare it as their outputSchema: the shape holds by construction, and
// checking it on every call would cost a tenth of a SQLite call
// (cmd/toolexec/README.md); it documents the shape for hosts and tests.
var OutputSchema = json.RawMessage(`{"type":"object","properties":{` +
	`"rows":{"type":"array"},` +
	`"rowCount":{"type":"integer"},` +
	`"truncated":{"type":"boolean"},` +
	`"message":{"type":"string"}},` +
	`"required":["rows","rowCount","truncated"]}`)

// Tool is one SQL tool bound to its open source. Its Handle method is the
// tool's handler; it is safe for concurrent use.
type Tool struct {
	// stmt is the statement prepared on the read-only pool, for tools
	// that run outside a transaction (sqlite file databases); nil until
	// first used, or when preparing failed (then each call prepares).
	stmt atomic.Pointer[sql.Stmt]
	tooldef.Base
	src *Source
	// single (mysql) is a statement that is one statement in every
	// reading: a MariaDB read runs it as one read-only statement (see
	// readOnlyPrefix), with no transaction of its own.
	single bool
}

// New binds the tool t to the open source src. logger receives what
// callers are not shown (driver errors that are not the query's fault).
// It refuses a read-only tool whose statement does what the database's
// read-only mode does not stop (sqlstmt.CheckReadOnly): SQLite's ATTACH
// and VACUUM INTO create files at the paths the call's arguments name,
// MySQL's INTO OUTFILE writes one inside a read-only transaction,
// PostgreSQL's lo_export writes one and pg_terminate_backend ends another
// session. The statement of a read-only tool with template parameters is
// checked again on each call, with its values in.
func New(t *config.Tool, src *Source, logger *slog.Logger) (*Tool, error) {
	if t.ReadOnly {
		if err := sqlstmt.CheckReadOnly(config.Dialect(src.Kind), t.Statement); err != nil {
			return nil, fmt.Errorf("tool %q: the statement is refused: %w", t.Name, err)
		}
	}
	tl := &Tool{Base: tooldef.NewBase(t, logger), src: src}
	if src.Kind == config.KindMySQL {
		tl.single = sqlstmt.Statements(sqlstmt.MySQL, t.Statement) == 1
	}
	return tl, nil
}

// Definition returns the toolexec.Tool clients see (tooldef.Definition):
// openWorldHint false and a tool that writes destructive unless the file
// says otherwise; the source's query timeout for a tool that sets none.
// A cancelled task's context cancels its query (see run).
func (t *Tool) Definition() toolexec.Tool {
	return tooldef.Definition(t.Cfg, tooldef.Kind{Destructive: true, Timeout: t.src.queryTimeout})
}

// Handle runs the statement with the call's arguments bound in parameter
// order (and its template parameters' values spliced in, see render), and
// returns the rows.
func (t *Tool) Handle(ctx context.Context, args map[string]any) (*toolexec.CallToolResult, error) {
	bound := make([]any, len(t.Cfg.Parameters))
	for i, p := range t.Cfg.Parameters {
		v, err := params.Value(p, args)
		if err != nil {
			return toolexec.ErrorResult(err.Error()), nil
		}
		bound[i] = t.bindable(p, v)
	}
	statement := t.Cfg.Statement
	if t.Cfg.Template != nil {
		var err error
		if statement, err = t.render(args); err != nil {
			return toolexec.ErrorResult(err.Error()), nil
		}
		if t.Cfg.ReadOnly {
			// An allowed value may name a function (SELECT {{.fn}}(…)).
			if err := sqlstmt.CheckReadOnly(config.Dialect(t.src.Kind), statement); err != nil {
				return toolexec.ErrorResult("the statement is refused: " + err.Error()), nil
			}
		}
	}
	return t.run(ctx, statement, bound)
}

// bindable turns a converted argument into what the driver binds: arrays
// become typed slices for postgres (so `= ANY($1)` works) and JSON text for
// sqlite (usable with json_each), maps become JSON text.
func (t *Tool) bindable(p *config.Param, v any) any {
	switch v := v.(type) {
	case []any:
		if t.src.Kind == config.KindPostgres && p.Items != nil {
			return typedSlice(p.Items.Type, v)
		}
		b, _ := json.Marshal(v)
		return string(b)
	case map[string]any:
		b, _ := json.Marshal(v)
		return string(b)
	}
	return v
}

func typedSlice(typ string, v []any) any {
	switch typ {
	case config.TypeInteger:
		out := make([]*int64, len(v))
		for i, e := range v {
			if n, ok := e.(int64); ok {
				out[i] = &n
			}
		}
		return out
	case config.TypeFloat:
		out := make([]*float64, len(v))
		for i, e := range v {
			if n, ok := e.(float64); ok {
				out[i] = &n
			}
		}
		return out
	case config.TypeBoolean:
		out := make([]*bool, len(v))
		for i, e := range v {
			if b, ok := e.(bool); ok {
				out[i] = &b
			}
		}
		return out
	}
	out := make([]*string, len(v))
	for i, e := range v {
		if s, ok := e.(string); ok {
			out[i] = &s
		}
	}
	return out
}

func (t *Tool) run(ctx context.Context, statement string, args []any) (*toolexec.CallToolResult, error) {
	ro := t.Cfg.ReadOnly
	db := t.src.ro
	if !ro {
		db = t.src.rw
	}
	// qctx is the query's own context: a read-only query cut at the row
	// or byte cap is cancelled through it (cut), which stops it on the
	// server too, rather than read to its end. SQLite needs none: closing
	// its rows resets the statement, and a cancellable context would cost
	// database/sql a goroutine per query.
	qctx, cut := ctx, func() {}
	if t.src.Kind != config.KindSQLite {
		var cancel context.CancelFunc
		qctx, cancel = context.WithCancel(ctx)
		defer cancel()
		cut = cancel
	}
	var (
		tx *sql.Tx
		// bare (mysql) is the call's connection when a MariaDB read runs
		// on it without a transaction.
		bare *sql.Conn
		err  error
	)
	switch {
	case t.src.Kind == config.KindMySQL:
		var conn *sql.Conn
		if conn, err = db.Conn(ctx); err != nil {
			return nil, t.fail(ctx, err)
		}
		var id uint64
		var readOnly string
		_ = conn.Raw(func(dc any) error {
			if c, ok := dc.(*idConn); ok {
				id, readOnly = c.id, c.readOnly
			}
			return nil
		})
		kill := watchKill(qctx, t.src.kill, id)
		defer func() {
			if kill.finish() {
				// The server was told to stop this connection's query:
				// the connection serves no other call.
				_ = conn.Raw(func(any) error { return driver.ErrBadConn })
			}
			_ = conn.Close() // back to the pool; a bad connection is dropped by it
		}()
		if ro && readOnly != "" && t.single {
			// MariaDB: SET STATEMENT tx_read_only=1 FOR the statement.
			// The server refuses its writes (DDL included, which a
			// read-only transaction commits and runs), whatever a
			// function turned the session's own setting into, and the
			// read is the statement alone: no START TRANSACTION READ
			// ONLY before it and no ROLLBACK after, two round trips.
			statement, bare = readOnly+statement, conn
			break
		}
		// START TRANSACTION READ ONLY for read-only tools (MySQL, which
		// has no SET STATEMENT): the server refuses writes to tables.
		tx, err = conn.BeginTx(ctx, &sql.TxOptions{ReadOnly: ro})
	case t.src.Kind == config.KindPostgres && ro && t.src.readOnlyConns:
		// The read pool's sessions are read-only themselves (open.go):
		// the server refuses writes, and the read is the query alone, one
		// round trip.
	case t.src.Kind == config.KindPostgres:
		// BEGIN READ ONLY for read-only tools: the server refuses writes.
		tx, err = db.BeginTx(ctx, &sql.TxOptions{ReadOnly: ro})
	case t.src.memory || !ro:
		tx, err = db.BeginTx(ctx, nil)
	}
	if err != nil {
		return nil, t.fail(ctx, err)
	}
	if tx != nil {
		defer func() { _ = tx.Rollback() }() // a no-op after Commit; after a failure, the failure is what matters
		if t.src.memory && ro {
			if _, err := tx.ExecContext(ctx, "PRAGMA query_only = 1"); err != nil {
				return nil, t.fail(ctx, err)
			}
			// Runs before the deferred rollback, on the same connection:
			// the pragma is per connection, not per transaction.
			defer func() {
				// Best effort: a failed reset only makes later writes fail.
				_, _ = tx.ExecContext(context.WithoutCancel(ctx), "PRAGMA query_only = 0")
			}()
		}
	}
	if !t.Cfg.Class.Rows {
		// INSERT, UPDATE, DELETE, MERGE or REPLACE without RETURNING:
		// its result is the number of rows it affected.
		var res sql.Result
		switch {
		case tx != nil:
			res, err = tx.ExecContext(qctx, statement, args...)
		case bare != nil:
			res, err = bare.ExecContext(qctx, statement, args...)
		default:
			res, err = db.ExecContext(qctx, statement, args...)
		}
		if err != nil {
			return nil, t.fail(ctx, err)
		}
		n, err := res.RowsAffected()
		if err != nil {
			return nil, t.fail(ctx, err)
		}
		if tx != nil {
			if err := tx.Commit(); err != nil {
				return nil, t.fail(ctx, err)
			}
		}
		return affected(n), nil
	}
	var rows *sql.Rows
	switch {
	case tx != nil:
		rows, err = tx.QueryContext(qctx, statement, args...)
	case bare != nil:
		rows, err = bare.QueryContext(qctx, statement, args...)
	case t.Cfg.Template != nil, t.src.Kind == config.KindPostgres:
		// A statement made per call, or one for PostgreSQL, whose driver
		// (pgx) prepares each statement once per session and keeps it: a
		// database/sql Stmt would only add its own bookkeeping (a lock of
		// the pool and two map updates per query).
		rows, err = db.QueryContext(qctx, statement, args...)
	default:
		// A read-only pool whose sessions are read-only themselves (sqlite:
		// mode=ro and query_only; postgres, above:
		// default_transaction_read_only), so a transaction would add
		// nothing. The statement is prepared once (database/sql prepares it
		// on each connection of the pool as needed): SQLite's driver would
		// compile it again on every query otherwise.
		stmt := t.stmt.Load()
		if stmt == nil {
			if stmt, err = db.PrepareContext(ctx, statement); err != nil {
				return nil, t.fail(ctx, err)
			}
			if !t.stmt.CompareAndSwap(nil, stmt) {
				_ = stmt.Close() // another call's statement won; this one was never used
				stmt = t.stmt.Load()
			}
		}
		rows, err = stmt.QueryContext(qctx, args...)
	}
	if err != nil {
		return nil, t.fail(ctx, err)
	}
	// A read-only query cut at a cap is cancelled; one that writes runs to
	// its end (its rows past the cap are read and dropped), so that what
	// it writes is committed whole.
	if !ro {
		cut = nil
	}
	res, err := t.collect(rows, cut)
	if err != nil {
		return nil, t.fail(ctx, err)
	}
	if tx != nil && !ro {
		if err := tx.Commit(); err != nil {
			return nil, t.fail(ctx, err)
		}
	}
	return res, nil
}

// affected is the result of a statement that returns no rows: no text
// content (as mcp-toolbox answers), and structuredContent with no rows and
// affectedRows.
func affected(n int64) *toolexec.CallToolResult {
	return &toolexec.CallToolResult{
		Content: []toolexec.Content{},
		StructuredContent: map[string]any{
			"rows": []any{}, "rowCount": float64(0), "truncated": false, "affectedRows": float64(n),
		},
	}
}

// collect reads rows up to the row and byte caps and builds the result:
// one text block per row, the row as a JSON object with its columns in
// statement order (as mcp-toolbox answers; none when there is no row),
// then, when the rows were cut, a text block saying so; and
// structuredContent {rows, rowCount, truncated, message?}, written once as
// JSON (a json.RawMessage, which the surfaces copy as it is) in the bytes
// json.Marshal writes for it as maps: members in name order, a column name
// that appears twice once, with its last column's value. When the rows are
// cut, cut is called (it cancels the query) or, when nil, the rest of the
// rows are read and dropped.
func (t *Tool) collect(rows *sql.Rows, cut func()) (*toolexec.CallToolResult, error) {
	defer func() { _ = rows.Close() }() // errors while reading come from rows.Err
	cols, err := rows.Columns()
	if err != nil {
		return nil, err
	}
	var conv []func(any) any
	if t.src.Kind == config.KindMySQL || t.src.Kind == config.KindPostgres {
		types, err := rows.ColumnTypes()
		if err != nil {
			return nil, err
		}
		if t.src.Kind == config.KindMySQL {
			conv = mysqlConverters(types)
		} else {
			conv = pgConverters(types)
		}
	}
	vals := make([]any, len(cols))
	ptrs := make([]any, len(cols))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	row := make([]any, len(cols)) // the row's values, in encoding/json's model
	members := memberOrder(cols)
	var structured []byte // the rows of structuredContent, comma-separated
	n := 0
	content := []toolexec.Content{}
	size := 0
	truncated, why := false, ""
	var rowText []byte
	for rows.Next() {
		if n == t.MaxRows {
			truncated, why = true, tooldef.TooManyRows(t.MaxRows)
			break
		}
		if err := rows.Scan(ptrs...); err != nil {
			return nil, err
		}
		// The row as a JSON object in column order.
		rowText = append(rowText[:0], '{')
		for i, c := range cols {
			v := vals[i]
			if conv != nil && conv[i] != nil {
				v = conv[i](v)
			}
			v = jsonValue(v)
			row[i] = v
			if i > 0 {
				rowText = append(rowText, ',')
			}
			rowText = appendString(rowText, c)
			rowText = append(rowText, ':')
			rowText = appendJSON(rowText, v)
		}
		rowText = append(rowText, '}')
		if size+len(rowText)+1 > t.MaxBytes {
			truncated, why = true, tooldef.TooManyBytes(t.MaxBytes, n)
			break
		}
		size += len(rowText) + 1
		content = append(content, toolexec.Text(string(rowText)))
		if structured == nil {
			structured = make([]byte, 0, len(rowText)+64)
		} else {
			structured = append(structured, ',')
		}
		structured = appendMembers(structured, cols, members, row)
		n++
	}
	if truncated {
		if cut != nil {
			cut()
		} else {
			for rows.Next() {
			}
			if err := rows.Err(); err != nil {
				return nil, err
			}
		}
	} else if err := rows.Err(); err != nil {
		return nil, err
	}
	sc := make(json.RawMessage, 0, len(structured)+64+len(why))
	sc = append(sc, '{')
	if truncated {
		sc = append(sc, `"message":`...)
		sc = appendString(sc, why)
		sc = append(sc, ',')
		content = append(content, tooldef.Truncation(why))
	}
	sc = append(sc, `"rowCount":`...)
	sc = strconv.AppendInt(sc, int64(n), 10)
	sc = append(sc, `,"rows":[`...)
	sc = append(sc, structured...)
	sc = append(sc, `],"truncated":`...)
	sc = strconv.AppendBool(sc, truncated)
	sc = append(sc, '}')
	return &toolexec.CallToolResult{Content: content, StructuredContent: sc}, nil
}

// memberOrder is the order in which json.Marshal writes a row's columns as
// a map: the indexes of cols sorted by name, a name that appears more than
// once only with its last index (the value a map keeps).
func memberOrder(cols []string) []int {
	order := make([]int, 0, len(cols))
	for i := range cols {
		order = append(order, i)
	}
	slices.SortStableFunc(order, func(a, b int) int { return strings.Compare(cols[a], cols[b]) })
	out := order[:0]
	for k, i := range order {
		if k+1 < len(order) && cols[order[k+1]] == cols[i] {
			continue // a later column of the same name follows
		}
		out = append(out, i)
	}
	return out
}

// appendMembers appends row as a JSON object of the members order names.
func appendMembers(b []byte, cols []string, order []int, row []any) []byte {
	b = append(b, '{')
	for k, i := range order {
		if k > 0 {
			b = append(b, ',')
		}
		b = appendString(b, cols[i])
		b = append(b, ':')
		b = appendJSON(b, row[i])
	}
	return append(b, '}')
}

// jsonValue maps a driver value to encoding/json's model: integers to
// float64 when exact, else json.Number; text stays text; bytes that are
// not UTF-8 become base64 (as encoding/json writes []byte); times RFC 3339.
func jsonValue(v any) any {
	switch v := v.(type) {
	case int64:
		return tooldef.Number(v)
	case float64:
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil
		}
		return v
	case float32:
		return jsonValue(float64(v))
	case int32:
		return float64(v)
	case uint64:
		if v <= 1<<53 {
			return float64(v)
		}
		return json.Number(strconv.FormatUint(v, 10))
	case json.Number, map[string]any:
		return v
	case []any:
		out := make([]any, len(v))
		for i, e := range v {
			out[i] = jsonValue(e)
		}
		return out
	case []byte:
		if utf8.Valid(v) {
			return string(v)
		}
		return base64.StdEncoding.EncodeToString(v)
	case time.Time:
		return v.Format(time.RFC3339Nano)
	case nil, bool, string:
		return v
	}
	// Anything else a driver returns (rare) goes through its text form.
	return fmt.Sprint(v)
}

// appendJSON appends v, a value of jsonValue's model, as json.Marshal
// writes it.
func appendJSON(b []byte, v any) []byte {
	switch v := v.(type) {
	case nil:
		return append(b, "null"...)
	case bool:
		return strconv.AppendBool(b, v)
	case float64:
		return appendFloat(b, v)
	case json.Number:
		return append(b, v...)
	case string:
		return appendString(b, v)
	}
	enc, _ := json.Marshal(v)
	return append(b, enc...)
}

// appendFloat appends a finite f as encoding/json writes a float64: in
// decimal, or in exponent form (e-7, not e-07) below 1e-6 and from 1e21.
func appendFloat(b []byte, f float64) []byte {
	format := byte('f')
	if abs := math.Abs(f); abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	b = strconv.AppendFloat(b, f, format, -1, 64)
	if n := len(b); format == 'e' && n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
		b[n-2] = b[n-1]
		b = b[:n-1]
	}
	return b
}

// fail maps a database error to what the caller sees. The database's own
// message about the query (a constraint, a read-only violation, a type
// mismatch) is returned as a tool error; anything else (connections,
// driver internals) is logged and replaced by a generic message. A call
// cancelled by its deadline returns the context's error, which the
// pipeline reports as its timeout.
func (t *Tool) fail(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return ctx.Err()
	}
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		return &toolexec.ToolError{Message: "query failed: " + pe.Message + " (SQLSTATE " + pe.Code + ")", Err: err}
	}
	var se *sqlite.Error
	if errors.As(err, &se) {
		return &toolexec.ToolError{Message: "query failed: " + se.Error(), Err: err}
	}
	var me *mysql.MySQLError
	if errors.As(err, &me) {
		msg := "query failed: " + me.Message + " (MySQL error " + strconv.Itoa(int(me.Number))
		if me.SQLState != [5]byte{} {
			msg += ", SQLSTATE " + string(me.SQLState[:])
		}
		return &toolexec.ToolError{Message: msg + ")", Err: err}
	}
	t.Logger.Warn("sql tool failed", "tool", t.Cfg.Name, "error", redact(err))
	return &toolexec.ToolError{Message: "query failed: the database is unavailable or returned an error", CanRetry: true, Err: err}
}

// appendString appends s as a JSON string: as is between quotes when it
// holds only printable ASCII that needs no escape (the common case), else
// as encoding/json writes it.
func appendString(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x7f || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
			enc, _ := json.Marshal(s)
			return append(b, enc...)
		}
	}
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"')
}
