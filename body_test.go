package toolexec

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestReadAllWhateverTheDeclaredLength(t *testing.T) {
	body := strings.Repeat("x", 1000)
	for _, declared := range []int64{-1, 0, 1, 999, 1000, 1001, 5000} {
		got, err := readAll(strings.NewReader(body), declared)
		require.NoError(t, err, declared)
		assert.Equal(t, body, string(got), "declared %d", declared)
	}
}
