package toolexec

import (
	"bytes"
	"runtime"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"
)

// goroutineID is the running goroutine's number, from its stack's header
// ("goroutine 42 [running]:").
func goroutineID() int {
	b := make([]byte, 64)
	b = b[:runtime.Stack(b, false)]
	b = bytes.TrimPrefix(b, []byte("goroutine "))
	id, _ := strconv.Atoi(string(b[:bytes.IndexByte(b, ' ')]))
	return id
}

func TestWorkersRunCallsOnAGoroutineThatFinishedOne(t *testing.T) {
	w := newWorkers()
	ids := make(chan int, 1)
	w.run(func() { ids <- goroutineID() })
	first := <-ids
	require.NotZero(t, first)
	// A later call runs on the same goroutine once it waits for one (it
	// starts waiting just after the first call returned).
	require.Eventually(t, func() bool {
		w.run(func() { ids <- goroutineID() })
		return <-ids == first
	}, 10*time.Second, time.Millisecond)
}

func TestWorkersNeverMakeACallWait(t *testing.T) {
	w := newWorkers()
	release := make(chan struct{})
	var started sync.WaitGroup
	started.Add(3)
	for range 3 {
		// Each blocks until all three have started: they run at once.
		w.run(func() {
			started.Done()
			<-release
		})
	}
	started.Wait()
	close(release)
}

func TestWorkersExitOnceCallsStop(t *testing.T) {
	ignore := goleak.IgnoreCurrent()
	w := newWorkers()
	var wg sync.WaitGroup
	for range 50 {
		wg.Add(1)
		w.run(wg.Done)
	}
	wg.Wait()
	require.Eventually(t, func() bool { return goleak.Find(ignore) == nil }, 10*time.Second, 10*time.Millisecond,
		"workers are still running %s after their last call", workerIdle)
}

// A worker whose call never returns takes no further call: the calls
// after it run on other workers.
func TestWorkersLeaveAStuckHandlerAlone(t *testing.T) {
	w := newWorkers()
	stuck := make(chan struct{})
	defer close(stuck)
	w.run(func() { <-stuck })
	done := make(chan bool)
	for range 5 {
		w.run(func() { done <- true })
		assert.True(t, <-done)
	}
}
