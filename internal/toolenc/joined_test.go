package toolenc

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// Every page cut from a Joined is the list AppendList makes of the same
// items, an item that cannot be encoded left out of both but counted.
func TestJoinedPagesAreTheListsOfTheirItems(t *testing.T) {
	encodes := 0
	c := newCache(&encodes)
	items := []item{{name: "a", text: "1"}, {name: "b", text: "bad"}, {name: "c", text: "3"}, {name: "d", text: "bad"}, {name: "e", text: "5"}}
	var skipped []string
	j := c.Join(items, nil, func(t *item, _ error) { skipped = append(skipped, t.name) })
	assert.Equal(t, []string{"b", "d"}, skipped)
	assert.Equal(t, len(items), j.Len())
	for start := 0; start <= len(items); start++ {
		for end := start; end <= len(items); end++ {
			want := string(c.AppendList(nil, items[start:end], 0, func(*item, error) {}))
			assert.Equal(t, want, string(j.Slice(start, end)), "items %d to %d", start, end)
		}
	}
	ordered := c.Join(items, []int32{4, 0, 2}, func(*item, error) {})
	assert.Equal(t, `"e=5","a=1","c=3"`, string(ordered.Slice(0, ordered.Len())))
	assert.Equal(t, `"a=1"`, string(ordered.Slice(1, 2)))
}

// Subsets keeps one value per kind and exact list, and stays bounded.
func TestSubsetsKeepOneValuePerKindAndList(t *testing.T) {
	var s Subsets[string]
	made := 0
	get := func(kind uint8, v string, pos ...int32) string {
		return s.Get(kind, pos, func() string { made++; return v })
	}
	for range 2 {
		assert.Equal(t, "0:ab", get(0, "0:ab", 0, 1))
		assert.Equal(t, "1:ab", get(1, "1:ab", 0, 1), "another kind of the same list")
		assert.Equal(t, "0:ba", get(0, "0:ba", 1, 0), "order counts")
	}
	assert.Equal(t, 3, made)
	for i := range MaxSubsets + 1 {
		get(2, "", int32(i))
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	assert.LessOrEqual(t, len(s.m), MaxSubsets)
}
