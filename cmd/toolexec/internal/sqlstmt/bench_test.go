package sqlstmt

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func BenchmarkCheckReadOnly4KiB(b *testing.B) {
	stmt := strings.Repeat("SELECT id, 'name' AS \"n\" FROM items WHERE x = ? /* c */ AND y = :p; ", 64)[:4096]
	b.SetBytes(int64(len(stmt)))
	for b.Loop() {
		_ = CheckReadOnly(SQLite, stmt)
	}
}

func BenchmarkClassify4KiB(b *testing.B) {
	stmt := strings.Repeat("SELECT id, 'name' AS n FROM items WHERE x IN (SELECT y FROM z) /* c */ AND y = ?; ", 64)[:4096]
	b.SetBytes(int64(len(stmt)))
	for b.Loop() {
		_ = Classify(MySQL, stmt)
	}
}

// BenchmarkClassify4KiBEveryReading is a MySQL statement with a
// backslash, a double quote and an executable comment: read the eight
// ways MySQL's settings allow.
func BenchmarkClassify4KiBEveryReading(b *testing.B) {
	stmt := strings.Repeat("SELECT id, 'it\\'s' AS \"n\" FROM items WHERE x IN (SELECT y FROM z) /*!50000 AND y = ? */; ", 64)[:4096]
	var buf [maxReadings]reading
	require.Len(b, readings(&buf, MySQL, stmt), maxReadings)
	b.SetBytes(int64(len(stmt)))
	for b.Loop() {
		_ = Classify(MySQL, stmt)
		_ = CheckReadOnly(MySQL, stmt)
	}
}

func BenchmarkCheckReadOnlyPostgreSQL4KiB(b *testing.B) {
	stmt := strings.Repeat("SELECT id, 'name' AS \"n\" FROM items WHERE x = $1 /* c */ AND lower(y) = $2; ", 64)[:4096]
	b.SetBytes(int64(len(stmt)))
	for b.Loop() {
		_ = CheckReadOnly(PostgreSQL, stmt)
	}
}
