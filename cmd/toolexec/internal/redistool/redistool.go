// Package redistool runs the redis tools of the toolexec command: each
// call runs the tool's commands in order on its source's connection pool,
// with the call's arguments as whole arguments of the commands (a value
// is one argument, whatever it holds; never text spliced into a command
// line), and answers one result per command.
package redistool

import (
	"context"
	"crypto/tls"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"math/big"
	"net"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"time"
	"unicode/utf8"

	goredis "github.com/redis/go-redis/v9"
	"github.com/redis/go-redis/v9/maintnotifications"

	"github.com/toolexec/toolexec"
	"github.com/toolexec/toolexec/cmd/toolexec/internal/config"
	"github.com/toolexec/toolexec/cmd/toolexec/internal/params"
	"github.com/toolexec/toolexec/cmd/toolexec/internal/rediscmd"
	"github.com/toolexec/toolexec/cmd/toolexec/internal/tooldef"
)

// Connection settings.
const (
	// DefaultPoolSize is a source's pool size when it sets no
	// maxOpenConns (go-redis's default is ten per CPU).
	DefaultPoolSize = 10
	// dialTimeout bounds one connection attempt, and openTimeout the
	// first ping.
	dialTimeout = 5 * time.Second
	openTimeout = 10 * time.Second
	// replySlack is what a reply may hold beyond twice the largest byte
	// cap of the source's tools: framing, and the elements of a reply
	// cut at maxRows.
	replySlack = 64 << 10
)

// errReplyTooLarge is what reading a reply longer than the source's
// reply cap fails with; the connection is then dropped.
var errReplyTooLarge = errors.New("redistool: the reply exceeds the reply cap")

// Source is an open redis source: a client of a server or of a Redis
// Cluster, with its connection pool.
type Source struct {
	client   goredis.UniversalClient
	addr     string
	maxReply int64
}

// Open connects to src and checks the connection with a PING. maxReply
// caps the bytes of one reply: the reading of a longer reply stops there,
// the call fails, and its connection is dropped, so that one command's
// answer (a huge string, a list read whole) cannot make the process hold
// more. Its error names the address, never the password.
func Open(ctx context.Context, src *config.Source, maxReply int64) (*Source, error) {
	s := &Source{addr: strings.Join(src.Address, ", "), maxReply: maxReply}
	var tlsConfig *tls.Config
	if src.TLS {
		tlsConfig = &tls.Config{MinVersion: tls.VersionTLS12}
	}
	poolSize := src.MaxOpenConns
	if poolSize == 0 {
		poolSize = DefaultPoolSize
	}
	d := &net.Dialer{Timeout: dialTimeout, KeepAlive: 30 * time.Second}
	dial := func(ctx context.Context, network, addr string) (net.Conn, error) {
		var c net.Conn
		var err error
		if tlsConfig != nil {
			host, _, _ := net.SplitHostPort(addr)
			cfg := tlsConfig.Clone()
			cfg.ServerName = host
			c, err = (&tls.Dialer{NetDialer: d, Config: cfg}).DialContext(ctx, network, addr)
		} else {
			c, err = d.DialContext(ctx, network, addr)
		}
		if err != nil {
			return nil, err
		}
		return &cappedConn{Conn: c, max: s.maxReply}, nil
	}
	maint := &maintnotifications.Config{Mode: maintnotifications.ModeDisabled}
	if src.Cluster {
		s.client = goredis.NewClusterClient(&goredis.ClusterOptions{
			Addrs: src.Address, Username: src.Username, Password: src.Password,
			Dialer: dial, PoolSize: poolSize, MaxIdleConns: src.MaxIdleConns, ConnMaxLifetime: src.ConnMaxLifetime,
			ContextTimeoutEnabled: true, MaxRetries: -1, DisableIdentity: true,
			MaintNotificationsConfig: maint,
		})
	} else {
		s.client = goredis.NewClient(&goredis.Options{
			Addr: src.Address[0], Username: src.Username, Password: src.Password, DB: src.DB,
			Dialer: dial, PoolSize: poolSize, MaxIdleConns: src.MaxIdleConns, ConnMaxLifetime: src.ConnMaxLifetime,
			// A call gives up on Redis at its deadline; a command is never
			// sent twice (an INCR retried would count twice).
			ContextTimeoutEnabled: true, MaxRetries: -1, DisableIdentity: true,
			MaintNotificationsConfig: maint,
		})
	}
	pctx, cancel := context.WithTimeout(ctx, openTimeout)
	defer cancel()
	if err := s.client.Ping(pctx).Err(); err != nil {
		_ = s.client.Close()
		return nil, fmt.Errorf("source %q: cannot reach Redis at %s: %v", src.Name, s.addr, err)
	}
	return s, nil
}

// Close closes the source's connections.
func (s *Source) Close() error { return s.client.Close() }

// cappedConn is a connection whose reads fail once the reply to the last
// command written exceeds max bytes: every write starts a new count
// (go-redis writes a command, then reads its reply, on one connection at
// a time).
type cappedConn struct {
	net.Conn
	max  int64
	read atomic.Int64
}

func (c *cappedConn) Write(b []byte) (int, error) {
	c.read.Store(0)
	return c.Conn.Write(b)
}

func (c *cappedConn) Read(b []byte) (int, error) {
	n, err := c.Conn.Read(b)
	if c.read.Add(int64(n)) > c.max {
		// None of what came past the cap is handed on, so the reply
		// cannot complete from what was read: the reader has to ask
		// again, and gets the error.
		return 0, errReplyTooLarge
	}
	return n, err
}

// Tool is one redis tool bound to its source; Handle is its handler, safe
// for concurrent use.
type Tool struct {
	tooldef.Base
	src *Source
}

// New binds t to src. logger receives what callers are not shown
// (connection errors).
func New(t *config.Tool, src *Source, logger *slog.Logger) *Tool {
	return &Tool{Base: tooldef.NewBase(t, logger), src: src}
}

// Definition returns the toolexec.Tool clients see (tooldef.Definition):
// openWorldHint false and a tool that writes destructive unless the file
// says otherwise.
func (t *Tool) Definition() toolexec.Tool {
	return tooldef.Definition(t.Cfg, tooldef.Kind{Destructive: true})
}

// ReplyCap is the reply cap Open needs for tools: twice the largest byte
// cap among them, plus room for framing.
func ReplyCap(tools []*config.Tool) int64 {
	largest := 0
	for _, t := range tools {
		_, b := tooldef.Caps(t)
		largest = max(largest, b)
	}
	return 2*int64(largest) + replySlack
}

// Handle runs the tool's commands in order with args, each on its own
// (not in a transaction: a command that fails leaves the earlier ones
// done, and the call fails), and answers one text block per command, its
// reply as JSON, and structuredContent {"results": [...], "truncated":
// false}. A reply's array is cut at maxRows elements, and the results at
// maxBytes of text; a cut result says so, in a last text block and in
// structuredContent's message.
func (t *Tool) Handle(ctx context.Context, args map[string]any) (*toolexec.CallToolResult, error) {
	cmds := make([][]any, len(t.Cfg.Commands))
	for i, c := range t.Cfg.Commands {
		words, err := t.words(c, args)
		if err != nil {
			return toolexec.ErrorResult(fmt.Sprintf("command %d (%s): %v", i, c.Class.Name, err)), nil
		}
		strs := make([]string, len(words)-1)
		for j, w := range words[1:] {
			strs[j] = w.(string)
		}
		if err := rediscmd.CheckArgs(c.Args[0].Text, strs); err != nil {
			return toolexec.ErrorResult(fmt.Sprintf("command %d (%s): %v", i, c.Class.Name, err)), nil
		}
		cmds[i] = words
	}
	replies := make([]any, len(cmds))
	for i, words := range cmds {
		v, err := t.src.client.Do(ctx, words...).Result()
		if errors.Is(err, goredis.Nil) {
			v, err = nil, nil
		}
		if err != nil {
			return nil, t.fail(ctx, i, err)
		}
		replies[i] = v
	}
	return t.result(replies), nil
}

// words builds command c's words from args: its literal words, each
// parameter's value as one word (an array's items and a map's keys and
// values, by key, as one word each), and each word of parts as the one
// word its parts make (a parameter's value, which must be a single value,
// as its word).
func (t *Tool) words(c *config.RedisCommand, args map[string]any) ([]any, error) {
	out := make([]any, 0, len(c.Args))
	for _, a := range c.Args {
		if a.Parts != nil {
			w, err := joined(a.Parts, args)
			if err != nil {
				return nil, err
			}
			out = append(out, w)
			continue
		}
		if a.Param == nil {
			out = append(out, a.Text)
			continue
		}
		v, err := params.Value(a.Param, args)
		if err != nil {
			return nil, err
		}
		switch v := v.(type) {
		case nil:
			if a.Param.Type == config.TypeArray || a.Param.Type == config.TypeMap {
				continue // no items
			}
			return nil, fmt.Errorf("argument %q has no value: give it (the file may give it a default)", a.Param.Name)
		case []any:
			for _, e := range v {
				out = append(out, word(e))
			}
		case map[string]any:
			keys := make([]string, 0, len(v))
			for k := range v {
				keys = append(keys, k)
			}
			slices.Sort(keys)
			for _, k := range keys {
				out = append(out, k, word(v[k]))
			}
		default:
			out = append(out, word(v))
		}
	}
	return out, nil
}

// joined is the one word parts make with args.
func joined(parts []config.RedisArg, args map[string]any) (string, error) {
	var b strings.Builder
	for _, p := range parts {
		if p.Param == nil {
			b.WriteString(p.Text)
			continue
		}
		v, err := params.Value(p.Param, args)
		if err != nil {
			return "", err
		}
		switch v.(type) {
		case nil:
			return "", fmt.Errorf("argument %q has no value: give it (the file may give it a default)", p.Param.Name)
		case []any, map[string]any:
			return "", fmt.Errorf("argument %q is part of a word: it must be a single value", p.Param.Name)
		}
		b.WriteString(word(v))
	}
	return b.String(), nil
}

// word is an argument value as the one word Redis receives: a string as
// it is, a number in decimal, a boolean as 1 or 0.
func word(v any) string {
	switch v := v.(type) {
	case string:
		return v
	case int64:
		return strconv.FormatInt(v, 10)
	case float64:
		return strconv.FormatFloat(v, 'f', -1, 64)
	case bool:
		if v {
			return "1"
		}
		return "0"
	case nil:
		return ""
	}
	return fmt.Sprint(v)
}

// result builds the answer from the replies, within the caps.
func (t *Tool) result(replies []any) *toolexec.CallToolResult {
	content := []toolexec.Content{}
	results := []any{}
	size := 0
	why := ""
	for i, r := range replies {
		v := jsonValue(r)
		if a, ok := v.([]any); ok && len(a) > t.MaxRows {
			v = a[:t.MaxRows]
			why = fmt.Sprintf("the reply to command %d has %d elements; only the first %d are returned", i, len(a), t.MaxRows)
		}
		text, _ := json.Marshal(v) // jsonValue's values always marshal
		if size+len(text)+1 > t.MaxBytes {
			a, ok := v.([]any)
			n := 0
			if ok {
				// As many elements as fit.
				budget := t.MaxBytes - size - 3
				for n < len(a) {
					e, _ := json.Marshal(a[n])
					if budget -= len(e) + 1; budget < 0 {
						break
					}
					n++
				}
			}
			if !ok || n == 0 {
				why = fmt.Sprintf("the results exceed %d bytes; only those of the first %d commands are returned", t.MaxBytes, i)
				break
			}
			v = a[:n]
			text, _ = json.Marshal(v)
			why = fmt.Sprintf("the results exceed %d bytes; the reply to command %d is cut after %d elements, and later commands' are not returned", t.MaxBytes, i, n)
			results = append(results, v)
			content = append(content, toolexec.Text(string(text)))
			break
		}
		size += len(text) + 1
		results = append(results, v)
		content = append(content, toolexec.Text(string(text)))
	}
	sc := map[string]any{"results": results, "truncated": why != ""}
	if why != "" {
		sc["message"] = why
		content = append(content, tooldef.Truncation(why))
	}
	return &toolexec.CallToolResult{Content: content, StructuredContent: sc}
}

// jsonValue maps a reply (RESP2 or RESP3, as go-redis reads it) to
// encoding/json's model: integers to numbers (json.Number beyond 2^53),
// doubles to numbers (infinities and NaN as Redis writes them, "inf",
// "-inf", "nan"), big numbers to exact numbers, text that is not UTF-8 to
// base64 (as SQL tools answer bytes), maps to objects (keys as text),
// sets and arrays to arrays.
func jsonValue(v any) any {
	switch v := v.(type) {
	case nil, bool:
		return v
	case string:
		if utf8.ValidString(v) {
			return v
		}
		return base64.StdEncoding.EncodeToString([]byte(v))
	case int64:
		return tooldef.Number(v)
	case float64:
		switch {
		case math.IsInf(v, 1):
			return "inf"
		case math.IsInf(v, -1):
			return "-inf"
		case math.IsNaN(v):
			return "nan"
		}
		return v
	case *big.Int:
		return json.Number(v.String())
	case []any:
		out := make([]any, len(v))
		for i, e := range v {
			out[i] = jsonValue(e)
		}
		return out
	case map[any]any:
		out := make(map[string]any, len(v))
		for k, e := range v {
			ks, ok := jsonValue(k).(string)
			if !ok {
				ks = fmt.Sprint(k)
			}
			out[ks] = jsonValue(e)
		}
		return out
	case map[string]any:
		out := make(map[string]any, len(v))
		for k, e := range v {
			out[k] = jsonValue(e)
		}
		return out
	case error:
		return v.Error()
	}
	return fmt.Sprint(v)
}

// fail maps command i's error to what the caller sees: Redis's own error
// reply (WRONGTYPE, ERR ...) as a tool error naming the command; a reply
// past the reply cap as a tool error saying so; the call's deadline or
// cancellation as the context's error (the pipeline reports its
// timeout); anything else (the connection) logged and answered with a
// generic message.
func (t *Tool) fail(ctx context.Context, i int, err error) error {
	name := t.Cfg.Commands[i].Class.Name
	ran := ""
	if i > 0 {
		ran = fmt.Sprintf(" (commands 0 to %d ran)", i-1)
	}
	if ctx.Err() != nil {
		return ctx.Err()
	}
	if dl, ok := ctx.Deadline(); ok && !time.Now().Before(dl) {
		// The connection's read deadline is the call's, and can fire a
		// moment before the context's timer: wait for it, so that the
		// pipeline sees the deadline and reports the timeout.
		<-ctx.Done()
		return ctx.Err()
	}
	var rerr goredis.Error
	if errors.As(err, &rerr) {
		return &toolexec.ToolError{Message: fmt.Sprintf("command %d (%s) failed: %s%s", i, name, rerr.Error(), ran), Err: err}
	}
	if errors.Is(err, errReplyTooLarge) {
		return &toolexec.ToolError{Message: fmt.Sprintf("command %d (%s): the reply is larger than %d bytes, the most a call of this source reads; ask for less (LRANGE key 0 99, SCAN with COUNT)%s", i, name, t.src.maxReply, ran), Err: err}
	}
	t.Logger.Warn("redis tool failed", "tool", t.Cfg.Name, "command", i, "error", err.Error())
	return &toolexec.ToolError{Message: fmt.Sprintf("command %d (%s) failed: Redis is unavailable or the connection failed%s", i, name, ran), CanRetry: true, Err: err}
}
