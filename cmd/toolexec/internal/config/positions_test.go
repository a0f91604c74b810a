package config

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// at returns the problems at line:column, joined.
func at(ps Problems, line, col int) string {
	var out []string
	for _, p := range ps {
		if p.Line == line && p.Column == col {
			out = append(out, p.Message)
		}
	}
	return strings.Join(out, "; ")
}

func TestParse_ProblemsFoundLaterPointAtTheirField(t *testing.T) {
	src := strings.Join([]string{
		/* 1 */ "sources:",
		/* 2 */ "  db: {kind: sqlite, database: x.db}",
		/* 3 */ "  api: {kind: http, baseUrl: 'https://api.example.com'}",
		/* 4 */ "tools:",
		/* 5 */ "  undefined-source:",
		/* 6 */ "    kind: sqlite-sql",
		/* 7 */ "    description: d",
		/* 8 */ "    source: nowhere",
		/* 9 */ "    statement: SELECT 1",
		/* 10 */ "  wrong-source:",
		/* 11 */ "    kind: sqlite-sql",
		/* 12 */ "    description: d",
		/* 13 */ "    source: api",
		/* 14 */ "    statement: SELECT 1",
		/* 15 */ "  too-few:",
		/* 16 */ "    kind: sqlite-sql",
		/* 17 */ "    source: db",
		/* 18 */ "    description: d",
		/* 19 */ "    statement: |",
		/* 20 */ "      SELECT ? , ?",
		/* 21 */ "  too-many-dollars:",
		/* 22 */ "    kind: sqlite-sql",
		/* 23 */ "    source: db",
		/* 24 */ "    description: d",
		/* 25 */ "    statement:   SELECT $2",
		/* 26 */ "    parameters: [{name: a, type: string, description: a}]",
	}, "\n")
	_, ps := parse(t, src, nil)
	assert.Contains(t, at(ps, 8, 13), `tool "undefined-source": source "nowhere" is not defined`, ps.Error())
	assert.Contains(t, at(ps, 13, 13), `a sqlite-sql tool needs a sqlite source`, ps.Error())
	assert.Contains(t, at(ps, 19, 16), `the statement has 2 ? placeholders but declares 0 parameters`, ps.Error())
	assert.Contains(t, at(ps, 25, 18), `the statement uses $2 but declares 1 parameters`, ps.Error())
	for _, line := range []int{5, 10, 15, 21} {
		assert.Empty(t, at(ps, line, 3), "nothing is reported at the tool's name line %d", line)
	}
}

func TestParse_SyntaxErrorsHaveLineAndColumn(t *testing.T) {
	for _, c := range []struct {
		name, src string
		line, col int
	}{
		// The YAML decoder alone reports line 1 here (where the mapping
		// starts) and no column.
		{"bad indentation", "sources:\n  db:\n    kind: sqlite\n   database: x.db\n", 4, 4},
		{"unclosed flow sequence", "sources:\n  db: [\n", 2, 7},
		{"tab", "sources:\n\tdb: {}\n", 2, 1},
		{"unterminated string", "tools:\n  t:\n    statement: \"SELECT\n", 3, 16},
		{"in a later document", "kind: sources\nname: db\ntype: sqlite\ndatabase: x.db\n---\nkind: tools\nname: t\nstatement: 'x\n", 8, 12},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, ps := parse(t, c.src, nil)
			require.Len(t, ps, 1, ps.Error())
			assert.Equal(t, c.line, ps[0].Line, ps.Error())
			assert.Equal(t, c.col, ps[0].Column, ps.Error())
			assert.NotEmpty(t, ps[0].Message)
			assert.Contains(t, ps.Error(), fmt.Sprintf("tools.yaml:%d:%d: ", c.line, c.col))
		})
	}
}

func TestParse_UnknownKindIsOneProblem(t *testing.T) {
	_, ps := parse(t, `
sources:
  db: {kind: sqlite, database: x.db}
tools:
  t:
    kind: oracle-sql
    source: db
    description: d
    statement: SELECT 1
`, nil)
	require.Len(t, ps, 1, ps.Error())
	assert.Contains(t, ps[0].Message, `kind "oracle-sql" is not supported`)
	assert.NotContains(t, ps.Error(), "  ", "no message with an empty word in it")
}

func TestParse_ToolsetNamesMustBeFreePathSegments(t *testing.T) {
	for name, want := range map[string]string{
		"tools":   "taken by the server's route /mcp/tools",
		"sse":     "taken by the server's route /mcp/sse",
		"a/b":     "one URL path segment",
		"..":      "one URL path segment",
		"what?":   "one URL path segment",
		`"x#y"`:   "one URL path segment",
		`""`:      "a toolset needs a name",
		"default": "",
		"my set":  "",
	} {
		t.Run(name, func(t *testing.T) {
			_, ps := parse(t, `
sources:
  db: {kind: sqlite, database: x.db}
tools:
  t: {kind: sqlite-sql, source: db, description: d, statement: SELECT 1}
toolsets:
  `+name+`: [t]
`, nil)
			if want == "" {
				assert.Empty(t, ps)
				return
			}
			require.Len(t, ps, 1, ps.Error())
			assert.Equal(t, 7, ps[0].Line)
			assert.Contains(t, ps[0].Message, want)
		})
	}
	// The v2 form is held to the same names.
	_, ps := parse(t, "kind: sources\nname: db\ntype: sqlite\ndatabase: x.db\n---\nkind: tools\nname: t\ntype: sqlite-sql\nsource: db\ndescription: d\nstatement: SELECT 1\n---\nkind: toolsets\nname: sse\ntools: [t]\n", nil)
	assert.Contains(t, ps.Error(), "taken by the server's route /mcp/sse")
}

// TestParse_UnknownKindListsEveryKindServed: the problem of a tool or
// source of an unknown kind lists every kind the command serves, and
// every kind it lists is one a file may declare.
func TestParse_UnknownKindListsEveryKindServed(t *testing.T) {
	_, ps := parse(t, `
sources:
  db: {kind: oracle}
tools:
  t: {kind: oracle-sql, source: db, description: d}
`, nil)
	msgs := ps.Error()
	assert.Contains(t, msgs, `kind "oracle-sql" is not supported (want sqlite-sql, postgres-sql, mysql-sql, http, script, redis, `+
		`mongodb-find, mongodb-find-one, mongodb-aggregate, mongodb-insert-one, mongodb-insert-many, mongodb-update-one, mongodb-update-many, mongodb-delete-one or mongodb-delete-many)`)
	assert.Contains(t, msgs, `kind "oracle" is not supported (want sqlite, postgres, mysql, mariadb, http, redis or mongodb)`)

	for _, k := range toolKinds {
		_, ps := parse(t, "tools:\n  t: {kind: "+k+", source: s, description: d}\n", nil)
		assert.NotContains(t, ps.Error(), "is not supported", "tool kind %s", k)
	}
	for _, k := range sourceKinds {
		_, ps := parse(t, "sources:\n  s: {kind: "+k+"}\n", nil)
		assert.NotContains(t, ps.Error(), "is not supported", "source kind %s", k)
	}
}
