package bench

import (
	"runtime"
	"runtime/debug"
)

// StackDepth returns how many bytes of goroutine stack a call (h, say one
// in-process call through a Caller) needs beyond what null (the same call
// of the Null handler) needs, to within one padding level (StackStep
// bytes): the deepest point of the first less the deepest point of the
// second, so a handler that stays shallower than the harness's own deepest
// point measures 0.
//
// The figure matters over a real connection: net/http serves every
// keep-alive connection on one long-lived goroutine, the garbage collector
// halves a stack that uses under a quarter of it while the connection
// waits, and the next call that needs more grows it back by copying it,
// once per doubling. A handler whose calls need a deeper stack pays that
// copy after every collection, and touches more memory on every call.
//
// It works by measuring, not by reading frames: goroutines run the call
// under n levels of padding frames, and the stack memory each one holds
// (runtime.MemStats.StackInuse over many goroutines, with collection off)
// shows whether the call fit in a 32 KiB stack; a binary search finds the
// least n that does not. The difference between Null's n and h's, times
// the padding frame, is the answer. It turns the garbage collector off
// while it runs (debug.SetGCPercent), so it must not run beside other
// measurements.
func StackDepth(h func(), null func()) int {
	old := debug.SetGCPercent(-1)
	defer debug.SetGCPercent(old)
	// The measuring goroutines wait until the end: one that exits while
	// another measurement runs would free its stack under it.
	release := make(chan struct{})
	defer close(release)
	return (overflowLevel(null, release) - overflowLevel(h, release)) * StackStep
}

// StackStep is the stack one padding level takes: pad's frame (136 bytes),
// its return address and its saved frame pointer.
const StackStep = 136 + 16

// stackLimit is the stack size overflowLevel finds the edge of.
const stackLimit = 32 << 10

// overflowLevel is the least padding under which f makes the goroutine's
// stack grow beyond stackLimit.
func overflowLevel(f func(), release <-chan struct{}) int {
	lo, hi := 0, stackLimit/StackStep+1 // f alone is assumed to fit
	for lo < hi {
		mid := (lo + hi) / 2
		// Each goroutine holds a stack of stackLimit or twice that: the
		// midpoint keeps stacks that other goroutines grow meanwhile out
		// of the verdict.
		if stackPerGoroutine(mid, f, release) > stackLimit*3/2 {
			hi = mid
		} else {
			lo = mid + 1
		}
	}
	return lo
}

// stackPerGoroutine runs f in many goroutines, each under levels padding
// frames, and returns the stack memory each holds once f has returned.
// The goroutines wait for release before they exit.
func stackPerGoroutine(levels int, f func(), release <-chan struct{}) int64 {
	const n = 64
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	ready := make(chan struct{}, n)
	for range n {
		go func() {
			pad(levels, f)
			ready <- struct{}{}
			<-release
		}()
	}
	for range n {
		<-ready
	}
	runtime.ReadMemStats(&after)
	return (int64(after.StackInuse) - int64(before.StackInuse)) / n
}

// pad calls f under n frames of StackStep bytes each.
//
//go:noinline
func pad(n int, f func()) byte {
	var b [120]byte
	if n == 0 {
		f()
		return b[0]
	}
	return pad(n-1, f) + b[n%len(b)]
}
