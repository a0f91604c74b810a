//go:build !unix

package bench

import "time"

// ProcessCPU cannot be read here; callers fall back to wall time.
func ProcessCPU() time.Duration { return 0 }
