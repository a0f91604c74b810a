//go:build !unix

package main

import "time"

// processCPU cannot be read here; the table falls back to wall time.
func processCPU() time.Duration { return 0 }
