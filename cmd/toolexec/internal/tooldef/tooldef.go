// Package tooldef holds what the redis and mongodb tools of the toolexec
// command share: the definition clients see (schema, annotations,
// options) built from the tool's declaration, the result caps and their
// defaults, and the result of rows (documents) built within those caps.
package tooldef

import (
	"bytes"
	"encoding/json"
	"fmt"
	"log/slog"
	"strconv"
	"strings"

	"github.com/toolexec/toolexec"
	"github.com/toolexec/toolexec/cmd/toolexec/internal/config"
	"github.com/toolexec/toolexec/cmd/toolexec/internal/params"
)

// Result caps, used when a tool does not set its own: those of SQL tools.
const (
	// DefaultMaxRows caps the rows (documents, array elements) of a
	// result.
	DefaultMaxRows = 1000
	// DefaultMaxBytes caps the bytes of a result's text.
	DefaultMaxBytes = 1 << 20
	// DefaultTaskMaxBytes is the byte cap of a tool whose calls may run
	// as tasks: a task keeps at most 512 KiB of encoded result, and the
	// text takes up to three times its bytes there (a text block, escaped,
	// and again a member of structuredContent).
	DefaultTaskMaxBytes = 128 << 10
)

// Caps returns t's result caps: its maxRows and maxBytes, or the
// defaults.
func Caps(t *config.Tool) (maxRows, maxBytes int) {
	maxRows, maxBytes = t.MaxRows, t.MaxBytes
	if maxRows == 0 {
		maxRows = DefaultMaxRows
	}
	if maxBytes == 0 {
		maxBytes = DefaultMaxBytes
		if t.TaskSupport.AllowsTasks() {
			maxBytes = DefaultTaskMaxBytes
		}
	}
	return maxRows, maxBytes
}

// Definition returns the toolexec.Tool clients see for t, a tool of a
// database: its input schema made from its parameters; annotations that
// say whether it writes (readOnlyHint; destructiveHint for a tool that
// writes, true unless the file says otherwise; idempotentHint when the
// file gives it; openWorldHint false unless the file says otherwise);
// and its options (timeout, cache for a read-only tool, scopes,
// concurrency and rate limits, the bounds of its numeric arguments, task
// support). A timeout of 0 leaves the server's.
func Definition(t *config.Tool) toolexec.Tool {
	ann := &toolexec.ToolAnnotations{ReadOnlyHint: toolexec.Bool(t.ReadOnly), OpenWorldHint: toolexec.Bool(false)}
	if t.OpenWorld != nil {
		ann.OpenWorldHint = toolexec.Bool(*t.OpenWorld)
	}
	if !t.ReadOnly {
		d := true
		if t.Destructive != nil {
			d = *t.Destructive
		}
		ann.DestructiveHint = toolexec.Bool(d)
	}
	ann.IdempotentHint = t.Idempotent
	opts := toolexec.ToolOptions{
		Timeout: t.Timeout,
		Cache:   t.Cache && t.ReadOnly,
		// The answer depends on the arguments only: the command never
		// sees who called.
		CacheShared: true,
		CacheTTL:    t.CacheTTL,
		Scopes:      t.Scopes,
		TaskSupport: toolexec.TaskSupport(t.TaskSupport),
	}
	if t.MaxConcurrency > 0 {
		opts.ConcurrencyLimit = &toolexec.ConcurrencyLimit{Max: t.MaxConcurrency}
	}
	if t.RateLimit != nil {
		opts.RateLimit = &toolexec.RateLimit{Rate: t.RateLimit.Rate, Per: t.RateLimit.Per, Burst: t.RateLimit.Burst}
	}
	if ic := params.Bounds(t.AllParams()); ic != nil {
		opts.Interceptors = []toolexec.Interceptor{ic}
	}
	return toolexec.Tool{
		Name:        t.Name,
		Description: t.Description,
		InputSchema: params.Schema(t.AllParams()),
		Annotations: ann,
		Options:     opts,
	}
}

// Base is what a redis or mongodb tool holds besides its source: its
// declaration, the logger of what callers are not shown, and its caps.
type Base struct {
	Cfg               *config.Tool
	Logger            *slog.Logger
	MaxRows, MaxBytes int
}

// NewBase returns the Base of t: its caps (Caps), and logger, or a
// logger that discards, when nil.
func NewBase(t *config.Tool, logger *slog.Logger) Base {
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	maxRows, maxBytes := Caps(t)
	return Base{Cfg: t, Logger: logger, MaxRows: maxRows, MaxBytes: maxBytes}
}

// Definition returns the toolexec.Tool clients see (the function
// Definition).
func (b Base) Definition() toolexec.Tool { return Definition(b.Cfg) }

// Rows collects the rows of a result (a query's documents) within a
// tool's caps, and builds the result SQL tools answer: one text block per
// row, the row as JSON, then, when the rows were cut, a block saying so;
// and structuredContent {rows, rowCount, truncated, message?}.
type Rows struct {
	maxRows, maxBytes int
	content           []toolexec.Content
	rows              []any
	size              int
	why               string
}

// NewRows returns an empty result with the caps maxRows and maxBytes.
func NewRows(maxRows, maxBytes int) *Rows {
	return &Rows{maxRows: maxRows, maxBytes: maxBytes, content: []toolexec.Content{}, rows: []any{}}
}

// Add adds a row, the JSON text of an object, and reports whether it
// fit: false once the result is cut (the row count or the bytes would
// pass their cap), and every later row is refused too.
func (r *Rows) Add(text []byte) bool {
	if r.why != "" {
		return false
	}
	if len(r.rows) == r.maxRows {
		r.why = fmt.Sprintf("more than %d rows; only the first %d are returned", r.maxRows, r.maxRows)
		return false
	}
	if r.size+len(text)+1 > r.maxBytes {
		r.why = fmt.Sprintf("the rows exceed %d bytes; only the first %d rows are returned", r.maxBytes, len(r.rows))
		return false
	}
	dec := json.NewDecoder(bytes.NewReader(text))
	dec.UseNumber() // integers beyond 2^53 stay exact
	var v any
	if err := dec.Decode(&v); err != nil {
		v = string(text)
	}
	v = numbers(v)
	r.size += len(text) + 1
	r.rows = append(r.rows, v)
	r.content = append(r.content, toolexec.Text(string(text)))
	return true
}

// Truncated reports whether the rows were cut.
func (r *Rows) Truncated() bool { return r.why != "" }

// Result returns the result of the rows added.
func (r *Rows) Result() *toolexec.CallToolResult {
	sc := map[string]any{"rows": r.rows, "rowCount": float64(len(r.rows)), "truncated": r.why != ""}
	content := r.content
	if r.why != "" {
		sc["message"] = r.why
		content = append(content, toolexec.Text("[truncated: "+r.why+"]"))
	}
	return &toolexec.CallToolResult{Content: content, StructuredContent: sc}
}

// numbers replaces, in a value decoded with UseNumber, each number that
// a float64 holds exactly (every one but integers beyond 2^53) by the
// float64, the model encoding/json decodes into.
func numbers(v any) any {
	switch v := v.(type) {
	case json.Number:
		if i, err := v.Int64(); err == nil {
			return Number(i)
		}
		if !isInteger(string(v)) {
			if f, err := v.Float64(); err == nil {
				return f
			}
		}
		return v // an integer beyond int64's range, kept exact
	case []any:
		for i, e := range v {
			v[i] = numbers(e)
		}
	case map[string]any:
		for k, e := range v {
			v[k] = numbers(e)
		}
	}
	return v
}

// isInteger reports whether a JSON number is written as an integer.
func isInteger(s string) bool { return !strings.ContainsAny(s, ".eE") }

// Number is n as encoding/json's model holds a JSON number: a float64
// when it holds n exactly, else a json.Number.
func Number(n int64) any {
	if n >= -(1<<53) && n <= 1<<53 {
		return float64(n)
	}
	return json.Number(strconv.FormatInt(n, 10))
}
