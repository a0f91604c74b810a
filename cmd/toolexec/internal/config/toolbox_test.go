package config

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolexec/toolexec/cmd/toolexec/internal/sqlstmt"
)

// hotelsQuickstart is mcp-toolbox's hotels quickstart tools.yaml
// (docs/en/getting-started/quickstart/shared/configure_toolbox.md), as
// `toolbox migrate` leaves it: kind source, tool and group.
const hotelsQuickstart = `
kind: source
name: my-pg-source
type: postgres
host: 127.0.0.1
port: 5432
database: toolbox_db
user: toolbox_user
password: my-password
---
kind: tool
name: search-hotels-by-name
type: postgres-sql
source: my-pg-source
description: Search for hotels based on name.
parameters:
  - name: name
    type: string
    description: The name of the hotel.
statement: SELECT * FROM hotels WHERE name ILIKE '%' || $1 || '%';
---
kind: tool
name: book-hotel
type: postgres-sql
source: my-pg-source
description: >-
   Book a hotel by its ID. If the hotel is successfully booked, returns a NULL, raises an error if not.
parameters:
  - name: hotel_id
    type: string
    description: The ID of the hotel to book.
statement: UPDATE hotels SET booked = B'1' WHERE id = $1;
---
kind: group
name: my-toolset
description: The hotel tools.
tools:
  - search-hotels-by-name
  - book-hotel
`

func tool(cfg *Config, name string) *Tool {
	for _, t := range cfg.Tools {
		if t.Name == name {
			return t
		}
	}
	return nil
}

func TestParse_StatementsAreClassified(t *testing.T) {
	cfg, ps := parse(t, hotelsQuickstart, nil)
	require.Nil(t, ps, ps.Error())
	search, book := tool(cfg, "search-hotels-by-name"), tool(cfg, "book-hotel")
	assert.True(t, search.ReadOnly)
	assert.Equal(t, sqlstmt.Reads, search.Class.Effect)
	assert.False(t, book.ReadOnly, "an UPDATE runs read-write")
	assert.Equal(t, sqlstmt.Writes, book.Class.Effect)
	assert.Nil(t, book.Destructive, "MCP's default (true) stands")
	assert.Equal(t, []string{"search-hotels-by-name", "book-hotel"}, cfg.Toolsets["my-toolset"], "a group is a toolset")
	assert.Equal(t, "The hotel tools.", cfg.ToolsetDescriptions["my-toolset"])
}

const classSources = `
sources:
  pg: {kind: postgres, host: h, database: d, user: u}
  lite: {kind: sqlite, database: x.db}
  my: {kind: mariadb, host: h, database: d, user: u, queryTimeout: 5s}
tools:
`

func TestParse_ReadOnlyDeclarations(t *testing.T) {
	cfg, ps := parse(t, classSources+`
  locks:
    kind: postgres-sql
    source: pg
    description: d
    statement: SELECT * FROM t FOR UPDATE
  reads-but-rw:
    kind: postgres-sql
    source: pg
    description: d
    readOnly: false
    statement: SELECT nextval('s')
  hinted:
    kind: mysql-sql
    source: my
    description: d
    annotations: {readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: true}
    statement: SELECT ?
    parameters: [{name: a, type: string, description: a}]
  attach-declared:
    kind: sqlite-sql
    source: lite
    description: d
    annotations: {readOnlyHint: false}
    statement: ATTACH ? AS x
    parameters: [{name: a, type: string, description: a}]
`, nil)
	require.Nil(t, ps, ps.Error())
	locks := tool(cfg, "locks")
	assert.False(t, locks.ReadOnly)
	require.NotNil(t, locks.Destructive)
	assert.False(t, *locks.Destructive, "locking changes no data")
	assert.False(t, tool(cfg, "reads-but-rw").ReadOnly, "the file's readOnly: false wins")
	h := tool(cfg, "hinted")
	assert.False(t, h.ReadOnly)
	assert.Equal(t, false, *h.Destructive)
	assert.Equal(t, true, *h.Idempotent)
	assert.Equal(t, true, *h.OpenWorld)
	assert.Equal(t, KindMySQL, cfg.Sources["my"].Kind, "mariadb is read as mysql")
	assert.Equal(t, "3306", cfg.Sources["my"].Port)
	assert.False(t, tool(cfg, "attach-declared").ReadOnly)
}

func TestParse_ReadOnlyOnAWriteIsAProblem(t *testing.T) {
	_, ps := parse(t, classSources+`
  a:
    kind: postgres-sql
    source: pg
    description: d
    readOnly: true
    statement: WITH x AS (DELETE FROM t RETURNING *) SELECT * FROM x
  b:
    kind: sqlite-sql
    source: lite
    description: d
    annotations: {readOnlyHint: true}
    statement: INSERT INTO t VALUES (1)
  c:
    kind: sqlite-sql
    source: lite
    description: d
    statement: ATTACH 'x.db' AS x
  d:
    kind: sqlite-sql
    source: lite
    description: d
    readOnly: true
    annotations: {readOnlyHint: false}
    statement: SELECT 1
  e:
    kind: mysql-sql
    source: my
    description: d
    statement: SELECT $1
`, nil)
	msgs := ps.Error()
	assert.Contains(t, msgs, `tool "a": the tool is declared read-only (readOnly or readOnlyHint: true), but its statement writes (WITH … DELETE)`)
	assert.Contains(t, msgs, `tool "b": the tool is declared read-only (readOnly or readOnlyHint: true), but its statement writes (INSERT)`)
	assert.Contains(t, msgs, `tool "c": the statement is refused: ATTACH`)
	assert.Contains(t, msgs, `tool "d": readOnly is true but annotations readOnlyHint is false`)
	assert.Contains(t, msgs, `tool "e": mysql placeholders are ?, not $1`)
}

func TestParse_AnnotationsBadInput(t *testing.T) {
	_, ps := parse(t, classSources+`
  a:
    kind: sqlite-sql
    source: lite
    description: d
    statement: SELECT 1
    annotations: {readOnlyHint: maybe, title: T}
  b:
    kind: sqlite-sql
    source: lite
    description: d
    statement: SELECT 1
    annotations: [readOnlyHint]
`, nil)
	msgs := ps.Error()
	assert.Contains(t, msgs, `annotations readOnlyHint must be true or false, not "maybe"`)
	assert.Contains(t, msgs, `unknown field "title"`)
	assert.Contains(t, msgs, `annotations must be a mapping`)
}

func TestParse_GroupBadInput(t *testing.T) {
	_, ps := parse(t, `
kind: group
name: g
---
kind: group
name: h
tools: [nope]
colour: red
---
kind: authService
name: a
`, nil)
	msgs := ps.Error()
	assert.Contains(t, msgs, `group "g" needs tools`)
	assert.Contains(t, msgs, `tool "nope" is not defined`)
	assert.Contains(t, msgs, `unknown field "colour"`)
	assert.Contains(t, msgs, `kind "authService" is not supported by toolexec`)
}

func TestParse_MySQLSourceBadInput(t *testing.T) {
	_, ps := parse(t, `
sources:
  a: {kind: mysql, port: "99999"}
  b: {kind: mysql, host: h, queryTimeout: soon}
  c: {kind: sqlite, database: x.db, queryTimeout: 1s}
tools: {}
`, nil)
	msgs := ps.Error()
	assert.Contains(t, msgs, `source "a": mysql needs host`)
	assert.Contains(t, msgs, `source "a": port "99999" is not a port number`)
	assert.Contains(t, msgs, `queryTimeout must be a duration`)
	assert.Contains(t, msgs, `source "c": queryTimeout is only for mysql sources`)
}

func TestParse_AllowedValuesPatterns(t *testing.T) {
	cfg, ps := parse(t, classSources+`
  a:
    kind: sqlite-sql
    source: lite
    description: d
    statement: SELECT ?, ?, ?
    parameters:
      - {name: literal, type: string, description: x, allowedValues: [apple, pear]}
      - {name: pattern, type: string, description: x, allowedValues: ["^[a-z]+$", "x.y", "a+b"], default: xzy}
      - {name: badre, type: string, description: x, allowedValues: ["a(b", "c"]}
`, nil)
	require.Nil(t, ps, ps.Error())
	ps0 := tool(cfg, "a").Parameters
	assert.Nil(t, ps0[0].AllowedPattern, "literal entries stay an enum")
	re := ps0[1].AllowedPattern
	require.NotNil(t, re)
	for s, want := range map[string]bool{"abc": true, "xzy": true, "x.y": true, "aab": true, "ABC": false, "abc1": false, "1abc": false, "ab\nc": false} {
		assert.Equal(t, want, ps0[1].Allows(s), s)
	}
	assert.Nil(t, ps0[2].AllowedPattern, "an entry that does not compile is a literal")
	assert.True(t, ps0[2].Allows("a(b"))
	assert.False(t, ps0[2].Allows("ab"))

	for entry, want := range map[string]bool{"apple": false, "^a": true, "a.b": true, "a(b": false, `\d+`: true, "x y": false, "[": false} {
		assert.Equal(t, want, AllowedEntryIsPattern(entry), entry)
	}
}

func TestParse_AllowedValuesDefaultMustBeAllowed(t *testing.T) {
	_, ps := parse(t, classSources+`
  a:
    kind: sqlite-sql
    source: lite
    description: d
    statement: SELECT ?, ?
    parameters:
      - {name: p, type: string, description: x, allowedValues: ["^[a-z]+$"], default: "A1"}
      - {name: q, type: integer, description: x, allowedValues: [1, 2], default: 3}
`, nil)
	msgs := ps.Error()
	assert.Contains(t, msgs, `"p": the default "A1" is not one of allowedValues`)
	assert.Contains(t, msgs, `"q": the default "3" is not one of allowedValues`)
}

func TestParse_TemplateParameters(t *testing.T) {
	cfg, ps := parse(t, classSources+`
  list:
    kind: postgres-sql
    source: pg
    description: d
    statement: SELECT {{array .columns}} FROM {{ .table }} WHERE id > $1 LIMIT {{.n}}
    parameters:
      - {name: min, type: integer, description: x}
    templateParameters:
      - {name: table, type: string, description: t, allowedValues: [hotels, "flights_[0-9]{4}"], escape: double-quotes}
      - name: columns
        type: array
        description: c
        items: {name: c, type: string, description: c, allowedValues: [id, name]}
      - {name: n, type: integer, description: n, maxValue: 100}
  wipe:
    kind: postgres-sql
    source: pg
    description: d
    statement: DELETE FROM {{.table}}
    templateParameters:
      - {name: table, type: string, description: t, allowedValues: [a]}
`, nil)
	require.Nil(t, ps, ps.Error())
	l := tool(cfg, "list")
	require.NotNil(t, l.Template)
	assert.True(t, l.ReadOnly)
	assert.Equal(t, []TemplatePart{
		{Text: "SELECT ", Param: -1}, {Param: 1, Array: true}, {Text: " FROM ", Param: -1}, {Param: 0},
		{Text: " WHERE id > $1 LIMIT ", Param: -1}, {Param: 2},
	}, l.Template.Parts)
	assert.Len(t, l.AllParams(), 4)
	w := tool(cfg, "wipe")
	assert.False(t, w.ReadOnly, "a template statement is classified too")
	assert.Equal(t, "DELETE", w.Class.Why)
}

func TestParse_TemplateParametersBadInput(t *testing.T) {
	_, ps := parse(t, classSources+`
  a:
    kind: postgres-sql
    source: pg
    description: d
    statement: SELECT * FROM {{.table}}
    templateParameters:
      - {name: table, type: string, description: t}
  b:
    kind: postgres-sql
    source: pg
    description: d
    statement: SELECT * FROM t WHERE name = '{{.v}}'
    templateParameters:
      - {name: v, type: string, description: t, allowedValues: [x]}
  c:
    kind: postgres-sql
    source: pg
    description: d
    statement: SELECT * FROM {{if .x}}t{{end}}
    templateParameters:
      - {name: x, type: boolean, description: t}
  d:
    kind: postgres-sql
    source: pg
    description: d
    statement: SELECT * FROM {{.ghost}}
    templateParameters:
      - {name: x, type: integer, description: t}
  e:
    kind: mysql-sql
    source: my
    description: d
    statement: SELECT * FROM {{.t}}
    templateParameters:
      - {name: t, type: string, description: t, allowedValues: [x], escape: single-quotes}
  f:
    kind: postgres-sql
    source: pg
    description: d
    statement: SELECT {{.cols}} FROM {{array .t}} {{.x
    templateParameters:
      - {name: cols, type: array, description: c, items: {name: c, type: integer, description: c}}
      - {name: t, type: string, description: t, allowedValues: [x]}
  h:
    kind: postgres-sql
    source: pg
    description: d
    statement: SELECT $1
    parameters:
      - {name: v, type: string, description: v, escape: double-quotes}
  g:
    kind: postgres-sql
    source: pg
    description: d
    statement: SELECT {{array .cols}} FROM t
    templateParameters:
      - {name: cols, type: array, description: c, items: {name: c, type: string, description: c}}
`, nil)
	msgs := ps.Error()
	assert.Contains(t, msgs, `tool "a": template parameter "table": needs allowedValues`)
	assert.Contains(t, msgs, `tool "b": {{.v}} is inside a string literal`)
	assert.Contains(t, msgs, `tool "c": templateParameters: {{if .x}}: only {{.name}} and {{array .name}} are supported`)
	assert.Contains(t, msgs, `tool "d": templateParameters: {{.ghost}}: "ghost" is not a template parameter`)
	assert.Contains(t, msgs, `tool "e": template parameter "t": escape "single-quotes" is not an identifier quote of MySQL`)
	assert.Contains(t, msgs, `tool "f": templateParameters: {{.cols}}: "cols" is an array: write {{array .cols}}`)
	assert.Contains(t, msgs, `tool "g": template parameter "cols": needs items: {allowedValues: [...]}`)
	assert.Contains(t, msgs, `tool "h": parameter "v": escape is only for templateParameters`)
}

func TestParse_ExcludedValues(t *testing.T) {
	cfg, ps := parse(t, classSources+`
  a:
    kind: sqlite-sql
    source: lite
    description: d
    statement: SELECT ?, ?
    parameters:
      - {name: s, type: string, description: x, excludedValues: ["admin.*", root]}
      - {name: n, type: integer, description: x, excludedValues: [0]}
`, nil)
	require.Nil(t, ps, ps.Error())
	s, n := tool(cfg, "a").Parameters[0], tool(cfg, "a").Parameters[1]
	for v, want := range map[string]bool{"alice": true, "root": false, "admin": false, "administrator": false, "sysadmin": true, "rooted": true} {
		assert.Equal(t, want, s.Allows(v), v)
	}
	assert.False(t, n.Allows(int64(0)))
	assert.True(t, n.Allows(int64(1)))

	_, ps = parse(t, classSources+`
  b:
    kind: sqlite-sql
    source: lite
    description: d
    statement: SELECT ?
    parameters:
      - {name: s, type: string, description: x, excludedValues: [root], default: root}
  c:
    kind: sqlite-sql
    source: lite
    description: d
    statement: SELECT ?
    parameters:
      - {name: s, type: integer, description: x, excludedValues: root}
`, nil)
	msgs := ps.Error()
	assert.Contains(t, msgs, `the default "root" is one of excludedValues`)
	assert.Contains(t, msgs, `excludedValues must be a list`)
}
