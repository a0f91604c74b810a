// Command servefloor is the floor `toolexec serve` is measured against in
// make bench: the least a server can do to answer the benchmark's call
// (bench/external) correctly, written by hand with net/http and
// database/sql. It serves the same tools file, reduced to what that call
// needs: the one SQL tool of the file's one source (SQLite or PostgreSQL,
// through the drivers toolexec serve uses, with its pool's default size),
// and answers POST /mcp tools/call of that tool by running its statement
// with the call's id and writing the very JSON toolexec serve writes for
// one row. It validates nothing beyond what decoding the request into Go
// types checks, runs no middleware, and serves nothing else.
//
//	servefloor -config tools.yaml -addr 127.0.0.1:5000
//
// Like toolexec serve, it runs the garbage collector at GOGC=200 unless
// the environment sets GOGC, so that the two compare as code, not as
// collector settings.
package main

import (
	"database/sql"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"runtime/debug"
	"strconv"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"
	"go.yaml.in/yaml/v3"
	_ "modernc.org/sqlite" // the "sqlite" database/sql driver toolexec serve uses
)

// maxOpenConns is toolexec serve's default pool size (and its idle
// connections' default).
const maxOpenConns = 10

func main() {
	config := flag.String("config", "", "the tools file (bench/external's)")
	addr := flag.String("addr", "127.0.0.1:5000", "where to listen")
	flag.Parse()
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(200)
	}
	h, err := load(*config)
	if err != nil {
		fmt.Fprintln(os.Stderr, "servefloor:", err)
		os.Exit(1)
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		fmt.Fprintln(os.Stderr, "servefloor:", err)
		os.Exit(1)
	}
	fmt.Fprintln(os.Stderr, "servefloor:", (&http.Server{Handler: h}).Serve(ln))
	os.Exit(1)
}

// file is what the floor reads of a tools file.
type file struct {
	Sources map[string]struct {
		Kind     string `yaml:"kind"`
		Database string `yaml:"database"`
		Host     string `yaml:"host"`
		Port     string `yaml:"port"`
		User     string `yaml:"user"`
		Password string `yaml:"password"`
	} `yaml:"sources"`
	Tools map[string]struct {
		Source    string `yaml:"source"`
		Statement string `yaml:"statement"`
	} `yaml:"tools"`
}

// load reads the tools file and opens its source.
func load(path string) (*floor, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var f file
	if err := yaml.Unmarshal(data, &f); err != nil {
		return nil, err
	}
	if len(f.Tools) != 1 {
		return nil, errors.New("the tools file must hold exactly one tool")
	}
	h := &floor{}
	for name, t := range f.Tools {
		src, ok := f.Sources[t.Source]
		if !ok {
			return nil, fmt.Errorf("tool %s: no source %q", name, t.Source)
		}
		h.tool, h.stmt = name, t.Statement
		switch src.Kind {
		case "sqlite":
			h.db, err = sql.Open("sqlite", (&url.URL{Scheme: "file", Path: src.Database}).String()+"?mode=ro&_pragma=busy_timeout(5000)")
		case "postgres":
			var cfg *pgx.ConnConfig
			u := url.URL{Scheme: "postgres", User: url.UserPassword(src.User, src.Password),
				Host: net.JoinHostPort(src.Host, src.Port), Path: "/" + src.Database}
			if cfg, err = pgx.ParseConfig(u.String()); err == nil {
				h.db = stdlib.OpenDB(*cfg)
			}
		default:
			return nil, fmt.Errorf("source %s: kind %q is not sqlite or postgres", t.Source, src.Kind)
		}
	}
	if err != nil {
		return nil, err
	}
	h.db.SetMaxOpenConns(maxOpenConns)
	h.db.SetMaxIdleConns(maxOpenConns)
	return h, h.db.Ping()
}

// floor answers tools/call of its one tool.
type floor struct {
	db         *sql.DB
	tool, stmt string
}

type request struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Method  string          `json:"method"`
	Params  struct {
		Name      string `json:"name"`
		Arguments struct {
			ID *int64 `json:"id"`
		} `json:"arguments"`
	} `json:"params"`
}

// item is a row, as toolexec serve writes it.
type item struct {
	ID    int64   `json:"id"`
	Name  string  `json:"name"`
	Price float64 `json:"price"`
}

type text struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

type rows struct {
	RowCount  int    `json:"rowCount"`
	Rows      []item `json:"rows"`
	Truncated bool   `json:"truncated"`
}

type result struct {
	Content           []text `json:"content"`
	StructuredContent rows   `json:"structuredContent"`
	IsError           bool   `json:"isError"`
}

type rpcError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
}

type response struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Result  *result         `json:"result,omitempty"`
	Error   *rpcError       `json:"error,omitempty"`
}

func (h *floor) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path != "/mcp" {
		http.NotFound(w, r)
		return
	}
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", http.MethodPost)
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, 1<<20))
	if err != nil {
		http.Error(w, "cannot read the body", http.StatusRequestEntityTooLarge)
		return
	}
	var req request
	if err := json.Unmarshal(body, &req); err != nil {
		write(w, response{JSONRPC: "2.0", ID: json.RawMessage("null"), Error: &rpcError{-32700, "Parse error"}})
		return
	}
	resp := response{JSONRPC: "2.0", ID: req.ID}
	id := req.Params.Arguments.ID
	switch {
	case req.Method != "tools/call":
		resp.Error = &rpcError{-32601, "Method not found"}
	case req.Params.Name != h.tool || id == nil:
		resp.Error = &rpcError{-32602, "Invalid params"}
	default:
		resp.Result = h.call(r, *id)
	}
	write(w, resp)
}

// call runs the tool's statement for id: its row, or a tool error.
func (h *floor) call(r *http.Request, id int64) *result {
	res := &result{StructuredContent: rows{Rows: []item{}}}
	var it item
	switch err := h.db.QueryRowContext(r.Context(), h.stmt, id).Scan(&it.ID, &it.Name, &it.Price); {
	case errors.Is(err, sql.ErrNoRows):
		res.Content = []text{{"text", "[]"}}
		return res
	case err != nil:
		return &result{Content: []text{{"text", "the query failed: " + strconv.Quote(err.Error())}}, IsError: true}
	}
	data, _ := json.Marshal(it) // an item always encodes
	res.Content = []text{{"text", string(data)}}
	res.StructuredContent = rows{RowCount: 1, Rows: []item{it}}
	return res
}

func write(w http.ResponseWriter, resp response) {
	data, err := json.Marshal(resp)
	if err != nil {
		http.Error(w, "internal error", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(append(data, '\n'))
}
