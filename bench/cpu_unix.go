//go:build unix

package bench

import (
	"time"

	"golang.org/x/sys/unix"
)

// ProcessCPU is the CPU time the whole process has used so far (every
// thread: the benchmark, the handlers' goroutines and the garbage
// collector), or 0 when it cannot be read.
func ProcessCPU() time.Duration {
	var ts unix.Timespec
	if err := unix.ClockGettime(unix.CLOCK_PROCESS_CPUTIME_ID, &ts); err != nil {
		return 0
	}
	return time.Duration(ts.Nano())
}
