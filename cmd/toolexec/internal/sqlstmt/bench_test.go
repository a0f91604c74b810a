package sqlstmt

import (
	"strings"
	"testing"
)

func BenchmarkCheckReadOnly4KiB(b *testing.B) {
	stmt := strings.Repeat("SELECT id, 'name' AS \"n\" FROM items WHERE x = ? /* c */ AND y = :p; ", 64)[:4096]
	b.SetBytes(int64(len(stmt)))
	for b.Loop() {
		_ = CheckReadOnly(stmt)
	}
}
