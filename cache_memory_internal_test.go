package toolexec

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// clock is a settable time source.
type clock struct{ t time.Time }

func (c *clock) now() time.Time { return c.t }

func TestMemoryCacheExpiresEntriesAtTheirTTL(t *testing.T) {
	clk := &clock{t: time.Unix(1_700_000_000, 0)}
	c := NewMemoryCache(8)
	c.now = clk.now
	ctx := context.Background()
	require.NoError(t, c.Set(ctx, "short", []byte("s"), time.Second))
	require.NoError(t, c.Set(ctx, "long", []byte("l"), time.Hour))
	require.NoError(t, c.Set(ctx, "forever", []byte("f"), 0))

	clk.t = clk.t.Add(time.Second - time.Nanosecond)
	v, ok, err := c.Get(ctx, "short")
	require.NoError(t, err)
	assert.True(t, ok, "just before its TTL")
	assert.Equal(t, []byte("s"), v)

	clk.t = clk.t.Add(time.Nanosecond)
	_, ok, _ = c.Get(ctx, "short")
	assert.False(t, ok, "at its TTL")
	assert.Equal(t, 2, c.Len(), "the expired entry was dropped")

	clk.t = clk.t.Add(48 * time.Hour)
	_, ok, _ = c.Get(ctx, "long")
	assert.False(t, ok)
	_, ok, _ = c.Get(ctx, "forever")
	assert.True(t, ok, "ttl 0 never expires")
}

func TestMemoryCacheIsBounded(t *testing.T) {
	c := NewMemoryCache(2)
	ctx := context.Background()
	require.NoError(t, c.Set(ctx, "a", []byte("a"), time.Hour))
	require.NoError(t, c.Set(ctx, "b", []byte("b"), time.Hour))
	_, _, _ = c.Get(ctx, "a") // a is now the most recently used
	require.NoError(t, c.Set(ctx, "c", []byte("c"), time.Hour))

	_, okA, _ := c.Get(ctx, "a")
	_, okB, _ := c.Get(ctx, "b")
	_, okC, _ := c.Get(ctx, "c")
	assert.True(t, okA)
	assert.False(t, okB, "the least recently used entry made room")
	assert.True(t, okC)
	assert.Equal(t, 2, c.Len())

	c.Purge()
	assert.Equal(t, 0, c.Len())
}

func TestMemoryCacheDefaultSize(t *testing.T) {
	c := NewMemoryCache(0)
	ctx := context.Background()
	for i := range DefaultCacheSize + 1 {
		require.NoError(t, c.Set(ctx, fmt.Sprint(i), nil, time.Hour))
	}
	assert.Equal(t, DefaultCacheSize, c.Len())
}

func TestMemoryCacheStoresACopy(t *testing.T) {
	c := NewMemoryCache(1)
	ctx := context.Background()
	v := []byte("abc")
	require.NoError(t, c.Set(ctx, "k", v, time.Hour))
	v[0] = 'X'

	got, ok, err := c.Get(ctx, "k")

	require.NoError(t, err)
	require.True(t, ok)
	assert.Equal(t, []byte("abc"), got)
}

func TestExpiredCacheEntryMakesTheNextCallAMiss(t *testing.T) {
	clk := &clock{t: time.Unix(1_700_000_000, 0)}
	mem := NewMemoryCache(0)
	mem.now = clk.now
	n := 0
	h := func(context.Context, string, map[string]any) ([]Content, bool, string, error) {
		n++
		return []Content{Text(fmt.Sprint("call ", n))}, false, "", nil
	}
	reg := NewRegistry()
	reg.MustAdd(Tool{Name: "c", Options: ToolOptions{Cache: true, CacheShared: true, CacheTTL: time.Minute}}, h)
	x := New(reg, reg, WithAllowExecute(true), WithCache(mem))
	run := func() string {
		res, err := x.Call(context.Background(), CallRequest{Name: "c"})
		require.NoError(t, err)
		return res.Text()
	}

	assert.Equal(t, "call 1", run())
	clk.t = clk.t.Add(59 * time.Second)
	assert.Equal(t, "call 1", run(), "within the TTL: a hit")
	clk.t = clk.t.Add(time.Second)
	assert.Equal(t, "call 2", run(), "expired: a miss that runs the tool")
	assert.Equal(t, "call 2", run(), "and refills the cache")
}
