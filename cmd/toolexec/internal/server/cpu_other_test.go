//go:build !unix

package server

import "time"

// processCPU is 0 where the process's CPU time is not read: the
// benchmarks then report wall time only.
func processCPU() time.Duration { return 0 }
