package streamquota_test

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolexec/toolexec/internal/streamquota"
)

func acquire(t *testing.T, c streamquota.Counter, caller string) (func(), streamquota.Verdict) {
	t.Helper()
	release, v, err := c.Acquire(context.Background(), caller)
	require.NoError(t, err)
	if v == streamquota.Admitted {
		require.NotNil(t, release)
	} else {
		require.Nil(t, release)
	}
	return release, v
}

func TestLocalCapsEachCallerThenTheServer(t *testing.T) {
	l := streamquota.NewLocal(3, 2)
	a1, v := acquire(t, l, "a")
	require.Equal(t, streamquota.Admitted, v)
	_, v = acquire(t, l, "a")
	require.Equal(t, streamquota.Admitted, v)
	_, v = acquire(t, l, "a")
	assert.Equal(t, streamquota.CallerFull, v, "a third stream of a's is over a's share")
	_, v = acquire(t, l, "b")
	require.Equal(t, streamquota.Admitted, v)
	_, v = acquire(t, l, "c")
	assert.Equal(t, streamquota.ServerFull, v, "the server holds three")
	_, v = acquire(t, l, "a")
	assert.Equal(t, streamquota.CallerFull, v, "a caller over its share hears so whatever the server's load")

	a1()
	a1() // a second release does nothing
	total, byA := l.Open("a")
	assert.Equal(t, 2, total)
	assert.Equal(t, 1, byA)
	_, v = acquire(t, l, "c")
	assert.Equal(t, streamquota.Admitted, v)
}

func TestLocalForgetsCallersWithoutStreams(t *testing.T) {
	l := streamquota.NewLocal(10_000, 1)
	for i := range 5_000 {
		release, v := acquire(t, l, fmt.Sprint("caller-", i))
		require.Equal(t, streamquota.Admitted, v)
		release()
	}
	total, _ := l.Open("caller-0")
	assert.Zero(t, total)
	_, v := acquire(t, l, "caller-0")
	assert.Equal(t, streamquota.Admitted, v)
}

func TestLocalCountsConcurrentStreamsExactly(t *testing.T) {
	l := streamquota.NewLocal(50, 50)
	var wg sync.WaitGroup
	admitted := make(chan func(), 200)
	for range 200 {
		wg.Go(func() {
			if release, v, _ := l.Acquire(context.Background(), "x"); v == streamquota.Admitted {
				admitted <- release
			}
		})
	}
	wg.Wait()
	close(admitted)
	n := 0
	for release := range admitted {
		n++
		release()
	}
	assert.Equal(t, 50, n)
	total, _ := l.Open("x")
	assert.Zero(t, total)
}
