package toolenc

import (
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
)

func newMemo(makes *int) *Memo[item, string] {
	var mu sync.Mutex
	return &Memo[item, string]{
		Key:   func(t *item) string { return t.name },
		Same:  func(a, b *item) bool { return !a.volatile && !b.volatile && *a == *b },
		Clone: func(t *item) item { return *t },
		Make: func(t *item) string {
			mu.Lock()
			*makes++
			mu.Unlock()
			return t.name + "=" + t.text
		},
	}
}

func TestMemoMakesAValueAgainOnlyWhenTheToolChanged(t *testing.T) {
	makes := 0
	m := newMemo(&makes)
	a := item{name: "a", text: "1"}
	for range 3 {
		assert.Equal(t, "a=1", m.Get(&a))
	}
	assert.Equal(t, 1, makes)
	a.text = "2"
	assert.Equal(t, "a=2", m.Get(&a), "a changed tool gets a new value")
	assert.Equal(t, 2, makes)

	v := item{name: "v", text: "x", volatile: true}
	m.Get(&v)
	m.Get(&v)
	assert.Equal(t, 4, makes, "a tool that cannot be compared is made on every use")
	assert.Equal(t, 1, m.Len(), "and not kept")
}

func TestMemoTrimDropsEverythingBeyondTheBound(t *testing.T) {
	makes := 0
	m := newMemo(&makes)
	for i := range 300 {
		m.Get(&item{name: string(rune('a'+i%26)) + string(rune('0'+i/26)), text: "t"})
	}
	m.Trim(100)
	assert.Equal(t, 300, m.Len(), "within twice the tools plus the margin")
	m.Trim(10)
	assert.Zero(t, m.Len())
}

func TestKeptValuesAreMadeOncePerFormAndExactList(t *testing.T) {
	n := &notifier{}
	l := NewLists(Watch(n.subscribe), itemKey)
	s := l.Snapshot(func() []item { return []item{{name: "a"}, {name: "b"}, {name: "c"}} })
	builds := map[string]int{}
	get := func(form int, pos []int32) string {
		return Kept(s, form, pos, 2, func() string {
			key := string(rune('0'+form)) + ":" + string(join(pick(s.Items, pos)))
			builds[key]++
			return key
		})
	}
	for range 3 {
		assert.Equal(t, "0:a=;b=;c=;", get(0, nil))
		assert.Equal(t, "1:a=;b=;c=;", get(1, nil), "another form of the same list is its own value")
		assert.Equal(t, "0:a=;c=;", get(0, []int32{0, 2}))
		assert.Equal(t, "0:c=;a=;", get(0, []int32{2, 0}), "order matters")
		assert.Equal(t, "0:", get(0, []int32{}), "an empty list is not every item")
	}
	for key, n := range builds {
		if key != "0:" && key != "0:c=;a=;" && key != "0:a=;c=;" {
			assert.Equal(t, 1, n, key)
		}
	}
	assert.Equal(t, 1, builds["0:a=;b=;c=;"])
	assert.Equal(t, 1, builds["1:a=;b=;c=;"])

	// Over the bound of 2 lists per form, they are dropped and made again;
	// the whole list and the other forms stay.
	before := builds["0:a=;c=;"]
	get(0, []int32{1})
	get(0, []int32{0, 2})
	get(0, []int32{0, 2})
	assert.Equal(t, before+1, builds["0:a=;c=;"], "made again once after the drop, then kept")
	get(0, nil)
	get(1, nil)
	assert.Equal(t, 1, builds["0:a=;b=;c=;"])
	assert.Equal(t, 1, builds["1:a=;b=;c=;"])

	n.notify()
	s = l.Snapshot(func() []item { return []item{{name: "a"}} })
	assert.Equal(t, "0:a=;", get(0, nil), "a new generation makes its own")
}

func pick(items []item, pos []int32) []item {
	if pos == nil {
		return items
	}
	out := make([]item, len(pos))
	for i, p := range pos {
		out[i] = items[p]
	}
	return out
}
