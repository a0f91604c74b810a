package sqltool

import (
	"bytes"
	"database/sql"
	"encoding/json"
	"strconv"
	"strings"
)

// mysqlConverters returns, for each column, how a MySQL value the driver
// returns as bytes (every value of the text protocol, decimals and bit
// strings of the binary one) becomes a JSON value: integers and floats as
// numbers, DECIMAL as an exact number, BIT as its unsigned integer, JSON
// as the document it holds; nil for a column whose bytes are text.
func mysqlConverters(types []*sql.ColumnType) []func(any) any {
	out := make([]func(any) any, len(types))
	for i, ct := range types {
		name := strings.TrimPrefix(ct.DatabaseTypeName(), "UNSIGNED ")
		switch name {
		case "TINYINT", "SMALLINT", "MEDIUMINT", "INT", "BIGINT", "YEAR":
			out[i] = bytesThen(func(b []byte) any {
				if n, err := strconv.ParseInt(string(b), 10, 64); err == nil {
					return n
				}
				if n, err := strconv.ParseUint(string(b), 10, 64); err == nil {
					return n
				}
				return string(b)
			})
		case "FLOAT", "DOUBLE":
			out[i] = bytesThen(func(b []byte) any {
				if f, err := strconv.ParseFloat(string(b), 64); err == nil {
					return f
				}
				return string(b)
			})
		case "DECIMAL":
			out[i] = bytesThen(func(b []byte) any {
				if json.Valid(b) {
					return json.Number(b)
				}
				return string(b)
			})
		case "BIT":
			out[i] = bytesThen(func(b []byte) any {
				if len(b) > 8 {
					return b
				}
				var n uint64
				for _, c := range b {
					n = n<<8 | uint64(c)
				}
				return n
			})
		case "JSON":
			out[i] = bytesThen(func(b []byte) any {
				d := json.NewDecoder(bytes.NewReader(b))
				d.UseNumber()
				var v any
				if d.Decode(&v) != nil {
					return string(b)
				}
				return v
			})
		}
	}
	return out
}

// bytesThen applies f to a []byte value and leaves any other as it is.
func bytesThen(f func([]byte) any) func(any) any {
	return func(v any) any {
		if b, ok := v.([]byte); ok {
			return f(b)
		}
		return v
	}
}
