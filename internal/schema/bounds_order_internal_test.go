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

// TestTokenOrderIsTransitive: indexes by value, then every other name by
// bytes, so that sorting failures, or selecting the first of them, gives
// one answer.
func TestTokenOrderIsTransitive(t *testing.T) {
	tokens := []string{"", "0", "1", "2", "10", "21", "22", "213", "01", "21a", "21ooooo3", "-x", "$ref", "a", "a~b", "é", "9z"}
	for _, a := range tokens {
		for _, b := range tokens {
			for _, c := range tokens {
				if compareTokens(a, b) < 0 && compareTokens(b, c) < 0 {
					assert.Negative(t, compareTokens(a, c), "%q < %q < %q", a, b, c)
				}
			}
		}
		assert.Zero(t, compareTokens(a, a))
	}
	assert.Negative(t, compareTokens("2", "10"))
	assert.Negative(t, compareTokens("10", "a"))
	assert.Negative(t, compareTokens("a", "b"))
}
