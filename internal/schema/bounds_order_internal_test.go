package schema

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestNumberFailuresAreInNameOrder: which hostile numbers are listed, and
// which are only counted, does not depend on map iteration order.
func TestNumberFailuresAreInNameOrder(t *testing.T) {
	v := map[string]any{}
	for i := range MaxFailures + 20 {
		v[fmt.Sprintf("k%03d", i)] = json.Number("1e999")
	}
	first, omitted := numberFailures(v)
	require.Len(t, first, MaxFailures)
	assert.Equal(t, 20, omitted)
	for range 20 {
		again, _ := numberFailures(v)
		assert.Equal(t, first, again)
	}
	for i := 1; i < len(first); i++ {
		assert.Less(t, first[i-1].Path, first[i].Path)
	}
}
