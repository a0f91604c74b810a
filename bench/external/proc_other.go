//go:build !linux

package external

import (
	"errors"
	"syscall"
	"time"
)

var errNoProc = errors.New("external: process figures are read from /proc, which only Linux has")

// CPUTime cannot be read here.
func CPUTime(int) (time.Duration, error) { return 0, errNoProc }

// TreeCPUTime cannot be read here.
func TreeCPUTime(int) (time.Duration, error) { return 0, errNoProc }

// Memory is a process's resident memory, in bytes.
type Memory struct {
	RSS  int64 // resident now
	Peak int64 // the most it has been resident
}

// ReadMemory cannot be read here.
func ReadMemory(int) (Memory, error) { return Memory{}, errNoProc }

func dieWithParent(*syscall.SysProcAttr) {}
