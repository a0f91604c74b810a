package toolexec

import "time"

// workers runs the timeout stage's calls on goroutines kept for reuse. A
// call under a timeout runs on a goroutine of its own, so that it can end
// at its deadline whatever its handler does. A new goroutine starts with
// a small stack, and a handler whose calls need a deep one (a SQLite query
// through modernc.org/sqlite needs tens of kilobytes) would have that
// stack grown, by copying it at each doubling, on every call; a worker
// keeps the stack it grew. A worker that finished a call waits
// workerIdle for the next one, then exits: none is left once calls stop.
// Safe for concurrent use.
type workers struct {
	// handoff passes a call to a waiting worker. It is unbuffered: a send
	// succeeds only when a worker is waiting, so a call never waits for
	// one.
	handoff chan func()
}

// workerIdle is how long a worker waits for another call before it exits.
const workerIdle = 200 * time.Millisecond

func newWorkers() *workers { return &workers{handoff: make(chan func())} }

// run runs f on a waiting worker, or on a new one when none is waiting.
func (w *workers) run(f func()) {
	select {
	case w.handoff <- f:
	default:
		go w.work(f)
	}
}

// work runs f, then every call handed to it, until none comes for
// workerIdle.
func (w *workers) work(f func()) {
	f()
	idle := time.NewTimer(workerIdle)
	defer idle.Stop()
	for {
		select {
		case f = <-w.handoff:
		case <-idle.C:
			return
		}
		f()
		idle.Reset(workerIdle)
	}
}
