package config

import (
	"strconv"
	"strings"
)

// placeholders counts the positional placeholders of a SQL statement
// outside string literals, quoted identifiers and comments: the number of
// bare "?" and the highest "$N". It is a check for validate, not a parser:
// a statement it miscounts still runs, and the database has the last word.
func placeholders(sql string) (questions, maxDollar int) {
	for i := 0; i < len(sql); i++ {
		switch c := sql[i]; {
		case c == '\'' || c == '"' || c == '`':
			end := strings.IndexByte(sql[i+1:], c)
			if end < 0 {
				return
			}
			i += end + 1
		case c == '-' && strings.HasPrefix(sql[i:], "--"):
			end := strings.IndexByte(sql[i:], '\n')
			if end < 0 {
				return
			}
			i += end
		case c == '/' && strings.HasPrefix(sql[i:], "/*"):
			end := strings.Index(sql[i+2:], "*/")
			if end < 0 {
				return
			}
			i += end + 3
		case c == '?':
			j := i + 1
			for j < len(sql) && sql[j] >= '0' && sql[j] <= '9' {
				j++
			}
			if j > i+1 {
				n, _ := strconv.Atoi(sql[i+1 : j])
				maxDollar = max(maxDollar, n)
			} else {
				questions++
			}
			i = j - 1
		case c == '$':
			j := i + 1
			for j < len(sql) && sql[j] >= '0' && sql[j] <= '9' {
				j++
			}
			if j > i+1 && (i == 0 || !isIdent(sql[i-1])) {
				n, _ := strconv.Atoi(sql[i+1 : j])
				maxDollar = max(maxDollar, n)
			}
			i = j - 1
		}
	}
	return
}

func isIdent(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}
