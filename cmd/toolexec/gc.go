package main

import "runtime/debug"

// defaultGCPercent is the garbage collector's target when GOGC is not set:
// the heap may grow to three times what is live after a collection, where
// Go's default, 100, lets it grow to twice. A server that answers many
// small calls collects half as often for a few MiB more memory: on the
// benchmark of docs/performance.md (the run in bench/HISTORY.md), 9-10 %
// more calls a second for 4 MiB more resident (32 to 36 MiB).
const defaultGCPercent = 200

// configureGC sets the garbage collector's target to defaultGCPercent,
// unless the environment sets GOGC (which the runtime has read already).
// GOMEMLIMIT, when set, still bounds the heap.
func configureGC(getenv func(string) (string, bool)) {
	if _, ok := getenv("GOGC"); !ok {
		debug.SetGCPercent(defaultGCPercent)
	}
}
