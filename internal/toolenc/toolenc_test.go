package toolenc

import (
	"errors"
	"strconv"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

type item struct {
	name, text string
	volatile   bool // never the same as anything: encoded on every use
}

func newCache(encodes *int) *Cache[item] {
	var mu sync.Mutex
	return &Cache[item]{
		Key:   func(t *item) string { return t.name },
		Same:  func(a, b *item) bool { return !a.volatile && !b.volatile && *a == *b },
		Clone: func(t *item) item { return *t },
		Encode: func(t *item) ([]byte, error) {
			mu.Lock()
			*encodes++
			mu.Unlock()
			if t.text == "bad" {
				return nil, errors.New("cannot encode")
			}
			return []byte(strconv.Quote(t.name + "=" + t.text)), nil
		},
	}
}

func TestAppendListReusesEncodingsOfUnchangedItems(t *testing.T) {
	encodes := 0
	c := newCache(&encodes)
	items := []item{{name: "a", text: "1"}, {name: "b", text: "2"}, {name: "v", text: "3", volatile: true}}
	list := func() string { return string(c.AppendList([]byte("["), items, 1, func(*item, error) {})) + "]" }
	assert.Equal(t, `["a=1","b=2","v=3"]`, list())
	assert.Equal(t, 3, encodes)
	assert.Equal(t, `["a=1","b=2","v=3"]`, list())
	assert.Equal(t, 4, encodes, "only the volatile item is encoded again")
	items[1].text = "changed"
	assert.Equal(t, `["a=1","b=changed","v=3"]`, list())
	assert.Equal(t, 6, encodes)
	data, err := c.Get(&items[1])
	require.NoError(t, err)
	assert.Equal(t, `"b=changed"`, string(data))
	assert.Equal(t, 6, encodes)
}

func TestAppendListLeavesOutWhatCannotBeEncoded(t *testing.T) {
	encodes := 0
	c := newCache(&encodes)
	var skipped []string
	out := c.AppendList(nil, []item{{name: "a", text: "bad"}, {name: "b", text: "1"}, {name: "c", text: "bad"}}, 0,
		func(t *item, err error) { skipped = append(skipped, t.name) })
	assert.Equal(t, `"b=1"`, string(out))
	assert.Equal(t, []string{"a", "c"}, skipped)
	assert.Empty(t, c.AppendList(nil, nil, 0, nil))
}

func TestTrimBoundsTheCacheByTheToolCount(t *testing.T) {
	encodes := 0
	c := newCache(&encodes)
	for i := range 300 {
		_, _ = c.Get(&item{name: strconv.Itoa(i), text: "x"})
	}
	c.Trim(100)
	assert.Equal(t, 300, c.Len(), "within 2n+256")
	c.Trim(10)
	assert.Equal(t, 0, c.Len())
}

func TestConcurrentListsAndChanges(t *testing.T) {
	encodes := 0
	c := newCache(&encodes)
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Go(func() {
			for i := range 200 {
				items := []item{{name: "a", text: strconv.Itoa(i % 3)}, {name: "b", text: strconv.Itoa(g)}}
				out := string(c.AppendList(nil, items, 0, func(*item, error) {}))
				assert.Equal(t, `"a=`+items[0].text+`","b=`+items[1].text+`"`, out)
				c.Trim(2)
			}
		})
	}
	wg.Wait()
}
