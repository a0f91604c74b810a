package config

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// taskTools is a file with a sql and an http tool, each with the
// taskSupport value given ("" leaves the field out).
func taskTools(sqlValue, httpValue string) string {
	field := func(v string) string {
		if v == "" {
			return "    readOnly: true"
		}
		return "    taskSupport: " + v
	}
	return strings.Join([]string{
		/* 1 */ "sources:",
		/* 2 */ "  db: {kind: sqlite, database: x.db}",
		/* 3 */ "  api: {kind: http, baseUrl: 'https://api.example.com'}",
		/* 4 */ "tools:",
		/* 5 */ "  q:",
		/* 6 */ "    kind: sqlite-sql",
		/* 7 */ "    source: db",
		/* 8 */ "    description: d",
		/* 9 */ "    statement: SELECT 1",
		/* 10 */ field(sqlValue),
		/* 11 */ "  h:",
		/* 12 */ "    kind: http",
		/* 13 */ "    source: api",
		/* 14 */ "    description: d",
		/* 15 */ "    method: GET",
		/* 16 */ field(httpValue),
	}, "\n") + "\n"
}

func TestParse_TaskSupportOfSQLAndHTTPTools(t *testing.T) {
	for _, c := range []struct {
		value string
		env   map[string]string
		want  TaskSupport
	}{
		{"optional", nil, TaskOptional},
		{"required", nil, TaskRequired},
		{"forbidden", nil, TaskForbidden},
		{`"optional"`, nil, TaskOptional},
		{"' required '", nil, TaskRequired},
		{"${TASKS}", map[string]string{"TASKS": "optional"}, TaskOptional},
		{"${TASKS:required}", nil, TaskRequired},
	} {
		t.Run(c.value, func(t *testing.T) {
			cfg, ps := parse(t, taskTools(c.value, c.value), c.env)
			require.Empty(t, ps, ps.Error())
			require.Len(t, cfg.Tools, 2)
			for _, tl := range cfg.Tools {
				assert.Equal(t, c.want, tl.TaskSupport, tl.Name)
			}
		})
	}

	cfg, ps := parse(t, taskTools("", ""), nil)
	require.Empty(t, ps, ps.Error())
	for _, tl := range cfg.Tools {
		assert.Empty(t, tl.TaskSupport, "%s: no taskSupport is the default, forbidden", tl.Name)
	}
}

func TestParse_TaskSupportProblemsPointAtTheValue(t *testing.T) {
	for _, c := range []struct {
		value string
		env   map[string]string
		want  string
	}{
		{`maybe`, nil, `taskSupport must be optional, required or forbidden, not "maybe"`},
		{`Optional`, nil, `taskSupport must be optional, required or forbidden, not "Optional"`},
		{`true`, nil, `not "true"`},
		{`''`, nil, `not ""`},
		{`[optional]`, nil, `taskSupport must be optional, required or forbidden`},
		{`{mode: optional}`, nil, `taskSupport must be optional, required or forbidden`},
		{`${TASKS}`, map[string]string{"TASKS": "always"}, `not "${TASKS}" (from the environment)`},
	} {
		t.Run(c.value, func(t *testing.T) {
			for _, tool := range []struct {
				name string
				line int
				src  string
			}{
				{"q", 10, taskTools(c.value, "optional")},
				{"h", 16, taskTools("optional", c.value)},
			} {
				_, ps := parse(t, tool.src, c.env)
				require.Len(t, ps, 1, "one problem, at the value: %s", ps.Error())
				got := at(ps, tool.line, len("    taskSupport: ")+1)
				assert.Contains(t, got, `tool "`+tool.name+`" taskSupport`, ps.Error())
				assert.Contains(t, got, c.want, ps.Error())
				assert.NotContains(t, got, "always", "a value from the environment is not shown")
			}
		})
	}
}
