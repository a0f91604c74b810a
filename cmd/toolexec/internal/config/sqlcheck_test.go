package config

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// mySQLFileStatements are reading statements as far as a classifier that
// looked for INTO only at the query's own level, and not after a number,
// could tell, which MariaDB runs as writes of a file, also in a read-only
// transaction (INTO OUTFILE, INTO DUMPFILE), and statements that move
// files in and out of the server (LOAD DATA, LOAD XML, LOAD_FILE).
var mySQLFileStatements = []string{
	"SELECT 1.5INTO OUTFILE '/tmp/x'",
	"SELECT .5INTO OUTFILE '/tmp/x'",
	"SELECT 1e1INTO OUTFILE '/tmp/x'",
	"(SELECT 1) INTO OUTFILE '/tmp/x'",
	"(SELECT 1) UNION (SELECT 2) INTO OUTFILE '/tmp/x'",
	"((SELECT 1)) INTO OUTFILE '/tmp/x'",
	"(VALUES ROW(1)) INTO OUTFILE '/tmp/x'",
	"(VALUES (1)) INTO OUTFILE '/tmp/x'",
	"ANALYZE (SELECT 1) INTO OUTFILE '/tmp/x'",
	"SELECT 1 INTO DUMPFILE '/tmp/x'",
	"SELECT 'a\\', 1 INTO OUTFILE '/tmp/x' #'",
	"LOAD DATA INFILE '/tmp/x' INTO TABLE t",
	"LOAD XML INFILE '/tmp/x' INTO TABLE t",
	"SELECT LOAD_FILE('/etc/hostname') AS f",
}

// pgActingStatements call functions that act although the transaction is
// read-only.
var pgActingStatements = []string{
	"SELECT lo_export(1, '/tmp/x')",
	"SELECT lo_from_bytea(0, 'x')",
	"SELECT pg_terminate_backend(1)",
	"SELECT dblink_exec('dbname=x', 'DELETE FROM t')",
	"SELECT pg_read_file('/etc/hostname')",
	"COPY (SELECT 1) TO PROGRAM 'touch /tmp/x'",
	"COPY (SELECT 1) TO '/tmp/x'",
	"SELECT set_config('search_path', 'x', false)",
	"SELECT pg_advisory_lock(1)",
}

// yamlQuote is s as a single-quoted YAML scalar.
func yamlQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }

// TestParse_ReadOnlyStatementsThatActBeyondTheTransaction: each statement
// is a problem at its line and column, whether the tool says nothing of
// writing or is declared read-only; a tool declared to write may run it.
func TestParse_ReadOnlyStatementsThatActBeyondTheTransaction(t *testing.T) {
	for _, tc := range []struct {
		source, kind string
		statements   []string
	}{
		{"  db: {kind: mysql, host: 127.0.0.1, database: d, user: u}", KindMySQLSQL, mySQLFileStatements},
		{"  db: {kind: postgres, host: 127.0.0.1, database: d, user: u}", KindPostgresSQL, pgActingStatements},
	} {
		for _, declared := range []string{"", "    readOnly: true", "    annotations: {readOnlyHint: true}", "    readOnly: false"} {
			lines := []string{"sources:", tc.source, "tools:"}
			want := map[int]string{}
			for i, stmt := range tc.statements {
				lines = append(lines, fmt.Sprintf("  t%d:", i), "    kind: "+tc.kind, "    source: db", "    description: d")
				if declared != "" {
					lines = append(lines, declared)
				}
				lines = append(lines, "    statement: "+yamlQuote(stmt))
				want[len(lines)] = fmt.Sprintf("tool %q: ", fmt.Sprintf("t%d", i))
			}
			_, ps := parse(t, strings.Join(lines, "\n"), nil)
			if declared == "    readOnly: false" {
				assert.Empty(t, ps, "a tool declared to write is its author's to write")
				continue
			}
			require.NotEmpty(t, ps, "%s %q", tc.kind, declared)
			for line, prefix := range want {
				msg := at(ps, line, 16)
				assert.Contains(t, msg, prefix, "%s %q: line %d: %s", tc.kind, declared, line, ps.Error())
				assert.Contains(t, msg, "which a read-only tool may not do", "%s %q: line %d", tc.kind, declared, line)
			}
		}
	}
}

// TestParse_TemplateNumberGluedToInto: a template parameter glued to INTO
// is read as the number it will be.
func TestParse_TemplateNumberGluedToInto(t *testing.T) {
	cfg, ps := parse(t, `
sources:
  db: {kind: mysql, host: 127.0.0.1, database: d, user: u}
tools:
  t:
    kind: mysql-sql
    source: db
    description: d
    templateParameters: [{name: n, type: float, description: n}]
    statement: SELECT {{.n}}INTO @v
`, nil)
	require.Empty(t, ps)
	assert.False(t, cfg.Tools[0].ReadOnly)
	assert.Equal(t, "SELECT … INTO", cfg.Tools[0].Class.Why)
}
