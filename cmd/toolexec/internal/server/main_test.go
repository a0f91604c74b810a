package server

import (
	"fmt"
	"os"
	"sync"
	"testing"

	"github.com/toolexec/toolexec/cmd/toolexec/internal/pgtest"
	"github.com/toolexec/toolexec/internal/testserver"
)

var (
	pgOnce   sync.Once
	pgServer *pgtest.Server
	pgErr    error
)

// postgres returns the package's PostgreSQL server, started on first use
// and stopped by TestMain. Without the binaries the test is skipped,
// unless CI is set: CI must run it.
func postgres(t testing.TB) *pgtest.Server {
	t.Helper()
	pgOnce.Do(func() { pgServer, pgErr = pgtest.Start() })
	testserver.Require(t, pgErr)
	return pgServer
}

func TestMain(m *testing.M) {
	code := m.Run()
	if pgServer != nil {
		pgServer.Stop()
	}
	if myServer != nil {
		myServer.Stop()
	}
	os.Exit(code)
}

// pgSource is the sources block of a tools file for the test server.
func pgSource(s *pgtest.Server) string {
	return fmt.Sprintf(`
sources:
  pg:
    kind: postgres
    host: %s
    port: "%d"
    database: %s
    user: ${PGUSER_FOR_TEST}
    password: ${PGPASSWORD_FOR_TEST:unused}
    queryParams: {sslmode: disable}
    maxOpenConns: 4
`, s.Host, s.Port, s.Database)
}
