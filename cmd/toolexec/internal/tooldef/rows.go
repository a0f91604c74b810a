package tooldef

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/toolexec/toolexec"
)

// Rows collects the rows of a result (a query's documents) within a
// tool's caps, and builds the result SQL tools answer: one text block per
// row, the row as JSON, then, when the rows were cut, a block saying so
// (Truncation); and structuredContent {rows, rowCount, truncated,
// message?}.
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
		r.why = TooManyRows(r.maxRows)
		return false
	}
	if r.size+len(text)+1 > r.maxBytes {
		r.why = TooManyBytes(r.maxBytes, len(r.rows))
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
		content = append(content, Truncation(r.why))
	}
	return &toolexec.CallToolResult{Content: content, StructuredContent: sc}
}

// TooManyRows says why rows were cut at maxRows.
func TooManyRows(maxRows int) string {
	return fmt.Sprintf("more than %d rows; only the first %d are returned", maxRows, maxRows)
}

// TooManyBytes says why rows were cut at maxBytes, after n rows.
func TooManyBytes(maxBytes, n int) string {
	return fmt.Sprintf("the rows exceed %d bytes; only the first %d rows are returned", maxBytes, n)
}

// Truncation is the last text block of a result cut for the reason why.
func Truncation(why string) toolexec.Content {
	return toolexec.Text("[truncated: " + why + "]")
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
