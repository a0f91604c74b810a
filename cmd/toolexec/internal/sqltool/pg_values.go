package sqltool

import (
	"bytes"
	"database/sql"
	"encoding/json"
	"strconv"
	"strings"
)

// pgConverters returns, for each column, how a PostgreSQL value that the
// driver (through database/sql) returns as text becomes the JSON value
// mcp-toolbox answers for it: numeric as an exact number, json and jsonb
// as the document they hold, a one- or many-dimensional array as a JSON
// array (of numbers, booleans or strings, by its element type); nil for
// a column whose value needs no conversion.
func pgConverters(types []*sql.ColumnType) []func(any) any {
	out := make([]func(any) any, len(types))
	for i, ct := range types {
		name := ct.DatabaseTypeName()
		switch {
		case name == "NUMERIC":
			out[i] = textThen(numericValue)
		case name == "JSON" || name == "JSONB":
			out[i] = textThen(jsonDocument)
		case strings.HasPrefix(name, "_"):
			elem := elementConverter(name[1:])
			out[i] = textThen(func(s string) any {
				v, ok := parseArray(s, elem)
				if !ok {
					return s
				}
				return v
			})
		}
	}
	return out
}

// textThen applies f to a string (or []byte) value and leaves any other
// as it is.
func textThen(f func(string) any) func(any) any {
	return func(v any) any {
		switch v := v.(type) {
		case string:
			return f(v)
		case []byte:
			return f(string(v))
		}
		return v
	}
}

// numericValue is a numeric's text as an exact JSON number; NaN and the
// infinities stay text.
func numericValue(s string) any {
	if s == "" || !json.Valid([]byte(s)) {
		return s
	}
	return json.Number(s)
}

// jsonDocument decodes a json value, numbers kept exact.
func jsonDocument(s string) any {
	d := json.NewDecoder(strings.NewReader(s))
	d.UseNumber()
	var v any
	if d.Decode(&v) != nil {
		return s
	}
	return v
}

// elementConverter is how an array element of the named type becomes a
// JSON value.
func elementConverter(name string) func(string) any {
	switch name {
	case "INT2", "INT4", "INT8", "OID":
		return func(s string) any {
			if n, err := strconv.ParseInt(s, 10, 64); err == nil {
				return n
			}
			return s
		}
	case "FLOAT4", "FLOAT8":
		return func(s string) any {
			if f, err := strconv.ParseFloat(s, 64); err == nil {
				return f
			}
			return s
		}
	case "NUMERIC":
		return numericValue
	case "BOOL":
		return func(s string) any { return s == "t" }
	case "JSON", "JSONB":
		return jsonDocument
	}
	return func(s string) any { return s }
}

// parseArray reads PostgreSQL's text form of an array ({1,2}, {{a,b},{c,d}},
// {"x y",NULL}, [0:1]={1,2}) into nested []any, converting each element
// with elem. It reports false for text it does not read; work is linear in
// its length.
func parseArray(s string, elem func(string) any) (any, bool) {
	if i := strings.Index(s, "={"); i >= 0 && strings.HasPrefix(s, "[") {
		s = s[i+1:]
	}
	p := arrayParser{s: s, elem: elem}
	v, ok := p.array()
	if !ok || p.i != len(p.s) {
		return nil, false
	}
	return v, true
}

type arrayParser struct {
	s    string
	i    int
	elem func(string) any
	buf  bytes.Buffer
}

func (p *arrayParser) array() ([]any, bool) {
	if p.i >= len(p.s) || p.s[p.i] != '{' {
		return nil, false
	}
	p.i++
	out := []any{}
	if p.i < len(p.s) && p.s[p.i] == '}' {
		p.i++
		return out, true
	}
	for p.i < len(p.s) {
		switch {
		case p.s[p.i] == '{':
			sub, ok := p.array()
			if !ok {
				return nil, false
			}
			out = append(out, sub)
		case p.s[p.i] == '"':
			p.i++
			p.buf.Reset()
			for p.i < len(p.s) && p.s[p.i] != '"' {
				if p.s[p.i] == '\\' && p.i+1 < len(p.s) {
					p.i++
				}
				p.buf.WriteByte(p.s[p.i])
				p.i++
			}
			if p.i >= len(p.s) {
				return nil, false
			}
			p.i++
			out = append(out, p.elem(p.buf.String()))
		default:
			j := p.i
			for j < len(p.s) && p.s[j] != ',' && p.s[j] != '}' {
				j++
			}
			word := p.s[p.i:j]
			p.i = j
			if word == "NULL" {
				out = append(out, nil)
			} else {
				out = append(out, p.elem(word))
			}
		}
		if p.i >= len(p.s) {
			return nil, false
		}
		switch p.s[p.i] {
		case ',':
			p.i++
		case '}':
			p.i++
			return out, true
		default:
			return nil, false
		}
	}
	return nil, false
}
