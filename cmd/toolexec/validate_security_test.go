package main

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// leakedValue is an environment value a file substitutes where it does not
// belong: no message may print it.
const leakedValue = "pw-SECRET-9999"

// riskyTools has, by line: a port from the environment that is not a
// port (7), an allowedHosts entry with a bad port (12), a tool query
// parameter named like the source's secret one (21), and read-only SQLite
// tools that attach (27) and vacuum into (32) a path the caller chooses.
var riskyTools = strings.Join([]string{
	/* 1 */ "sources:",
	/* 2 */ "  pg:",
	/* 3 */ "    kind: postgres",
	/* 4 */ "    host: 127.0.0.1",
	/* 5 */ "    database: d",
	/* 6 */ "    user: u",
	/* 7 */ "    port: ${PGPORT_T}",
	/* 8 */ "  api:",
	/* 9 */ "    kind: http",
	/* 10 */ "    baseUrl: https://api.example.com",
	/* 11 */ "    queryParams: {key: '${API_KEY_T}'}",
	/* 12 */ "    allowedHosts: [api.example.com, 'cdn.example.com:0']",
	/* 13 */ "  db: {kind: sqlite, database: ':memory:'}",
	/* 14 */ "tools:",
	/* 15 */ "  search:",
	/* 16 */ "    kind: http",
	/* 17 */ "    source: api",
	/* 18 */ "    method: GET",
	/* 19 */ "    description: search",
	/* 20 */ "    queryParams:",
	/* 21 */ "      - {name: key, type: string, description: k}",
	/* 22 */ "  grab:",
	/* 23 */ "    kind: sqlite-sql",
	/* 24 */ "    source: db",
	/* 25 */ "    description: d",
	/* 26 */ "    parameters: [{name: p, type: string, description: p}]",
	/* 27 */ "    statement: ATTACH DATABASE ? AS x",
	/* 28 */ "  dump:",
	/* 29 */ "    kind: sqlite-sql",
	/* 30 */ "    source: db",
	/* 31 */ "    description: d",
	/* 32 */ "    statement: VACUUM INTO ?",
	/* 33 */ "    parameters: [{name: p, type: string, description: p}]",
}, "\n")

func riskyEnv(k string) (string, bool) {
	switch k {
	case "PGPORT_T", "API_KEY_T":
		return leakedValue, true
	}
	return "", false
}

func TestValidate_ReportsSecurityProblemsWithoutPrintingSecrets(t *testing.T) {
	path := filepath.Join(t.TempDir(), "tools.yaml")
	require.NoError(t, os.WriteFile(path, []byte(riskyTools), 0o600))
	var out, errOut bytes.Buffer
	code := run(context.Background(), []string{"validate", "--config", path}, riskyEnv, nil, &out, &errOut)
	assert.Equal(t, 1, code)
	msgs := errOut.String()
	assert.NotContains(t, msgs, leakedValue)
	for _, want := range []string{
		path + `:2:3: source "pg": port "${PGPORT_T}" (from the environment) is not a port number`,
		path + `:12:`,
		`allowedHosts entry "cdn.example.com:0": the port must be a number from 1 to 65535`,
		path + `:21:`,
		`query parameter "key" has the name of a query parameter source "api" sets`,
		path + `:27:16: tool "grab": the statement is refused: ATTACH`,
		path + `:32:16: tool "dump": the statement is refused: VACUUM`,
		"5 problem(s)",
	} {
		assert.Contains(t, msgs, want)
	}
}

// TestValidate_ReadOnlyMySQLAndPostgresToolsThatActBeyondTheTransaction:
// validate reports, at the statement's line and column, a MySQL tool that
// reads as far as a glance at its text tells but writes a file (a number
// glued to INTO, INTO after parentheses) and a PostgreSQL one that calls a
// function a read-only transaction does not stop; a tool declared to
// write may.
func TestValidate_ReadOnlyMySQLAndPostgresToolsThatActBeyondTheTransaction(t *testing.T) {
	src := strings.Join([]string{
		/* 1 */ "sources:",
		/* 2 */ "  my: {kind: mysql, host: 127.0.0.1, database: d, user: u}",
		/* 3 */ "  pg: {kind: postgres, host: 127.0.0.1, database: d, user: u}",
		/* 4 */ "tools:",
		/* 5 */ "  glued: {kind: mysql-sql, source: my, description: d,",
		/* 6 */ "    statement: \"SELECT 1.5INTO OUTFILE '/tmp/x'\"}",
		/* 7 */ "  nested: {kind: mysql-sql, source: my, description: d, readOnly: true,",
		/* 8 */ "    statement: \"(SELECT 1) UNION (SELECT 2) INTO DUMPFILE '/tmp/x'\"}",
		/* 9 */ "  export: {kind: postgres-sql, source: pg, description: d,",
		/* 10 */ "    statement: \"SELECT lo_export(1, '/tmp/x')\"}",
		/* 11 */ "  kill: {kind: postgres-sql, source: pg, description: d, annotations: {readOnlyHint: true},",
		/* 12 */ "    statement: \"SELECT pg_terminate_backend(1)\"}",
		/* 13 */ "  declared: {kind: mysql-sql, source: my, description: d, readOnly: false,",
		/* 14 */ "    statement: \"SELECT 1 INTO OUTFILE '/tmp/x'\"}",
	}, "\n")
	path := filepath.Join(t.TempDir(), "tools.yaml")
	require.NoError(t, os.WriteFile(path, []byte(src), 0o600))
	var out, errOut bytes.Buffer
	code := run(context.Background(), []string{"validate", "--config", path}, riskyEnv, nil, &out, &errOut)
	assert.Equal(t, 1, code)
	msgs := errOut.String()
	for _, want := range []string{
		path + `:6:16: tool "glued": the statement is refused: OUTFILE writes a file on the database server`,
		path + `:8:16: tool "nested": the tool is declared read-only (readOnly or readOnlyHint: true), but its statement writes (SELECT … INTO)`,
		path + `:8:16: tool "nested": the statement is refused: DUMPFILE writes a file on the database server`,
		path + `:10:16: tool "export": the statement is refused: lo_export writes a file on the database server`,
		path + `:12:16: tool "kill": the statement is refused: pg_terminate_backend ends another session`,
		"5 problem(s)",
	} {
		assert.Contains(t, msgs, want)
	}
	assert.NotContains(t, msgs, `"declared"`)
}

func TestServe_ErrorLogNamesVariablesNotValues(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "tools.yaml")
	require.NoError(t, os.WriteFile(path, []byte(riskyTools), 0o600))
	var out, errOut bytes.Buffer
	code := serve(context.Background(), []string{"--config", path, "--addr", "127.0.0.1:0"}, riskyEnv, nil, &out, &errOut, nil)
	assert.Equal(t, 1, code)
	assert.NotContains(t, errOut.String(), leakedValue)
	assert.Contains(t, errOut.String(), "${PGPORT_T}")

	// A valid file whose source cannot be opened: the driver's error
	// names the user, which came from the environment.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	_, port, _ := net.SplitHostPort(ln.Addr().String())
	ln.Close()
	require.NoError(t, os.WriteFile(path, []byte(fmt.Sprintf(`
sources:
  pg: {kind: postgres, host: 127.0.0.1, port: "%s", database: d, user: '${PGPORT_T}', queryParams: {sslmode: disable, connect_timeout: "2"}}
tools:
  q: {kind: postgres-sql, source: pg, description: d, statement: SELECT 1}
`, port)), 0o600))
	errOut.Reset()
	code = serve(context.Background(), []string{"--config", path, "--addr", "127.0.0.1:0"}, riskyEnv, nil, &out, &errOut, nil)
	assert.Equal(t, 1, code)
	assert.NotContains(t, errOut.String(), leakedValue)
	assert.Contains(t, errOut.String(), "user=${PGPORT_T}", errOut.String())
}
