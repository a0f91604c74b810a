package external

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// userHZ is the unit of the CPU times in /proc/PID/stat: USER_HZ, 100 on
// every Linux architecture (it is part of the kernel's ABI, whatever the
// kernel's own tick rate).
const userHZ = 100

// statFields are the fields of /proc/PID/stat after the command name,
// which is in parentheses and may itself hold spaces and parentheses:
// statFields[0] is field 3 (state), so field n is statFields[n-3].
func statFields(pid int) ([]string, error) {
	b, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
	if err != nil {
		return nil, err
	}
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return nil, fmt.Errorf("/proc/%d/stat: no command name", pid)
	}
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 15 {
		return nil, fmt.Errorf("/proc/%d/stat: %d fields", pid, len(f))
	}
	return f, nil
}

func ticks(f []string, fields ...int) (time.Duration, error) {
	var sum int64
	for _, n := range fields {
		v, err := strconv.ParseInt(f[n-3], 10, 64)
		if err != nil {
			return 0, err
		}
		sum += v
	}
	return time.Duration(sum) * time.Second / userHZ, nil
}

// CPUTime is the CPU time, user and system, that the process pid has
// used so far: every thread of it, those that exited included.
func CPUTime(pid int) (time.Duration, error) {
	f, err := statFields(pid)
	if err != nil {
		return 0, err
	}
	return ticks(f, 14, 15) // utime, stime
}

// TreeCPUTime is the CPU time used so far by the process pid and its
// children: its own, that of the children it has waited for (cutime,
// cstime), and that of its live children so far. For a server that forks
// a process per session, such as PostgreSQL's postmaster, it is the whole
// server's. Grandchildren count only once their parent has waited for
// them.
func TreeCPUTime(pid int) (time.Duration, error) {
	f, err := statFields(pid)
	if err != nil {
		return 0, err
	}
	total, err := ticks(f, 14, 15, 16, 17)
	if err != nil {
		return 0, err
	}
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return 0, err
	}
	for _, e := range entries {
		child, err := strconv.Atoi(e.Name())
		if err != nil || child == pid {
			continue
		}
		cf, err := statFields(child)
		if err != nil {
			continue // gone meanwhile, or not a process
		}
		if ppid, _ := strconv.Atoi(cf[1]); ppid != pid { // field 4
			continue
		}
		if t, err := ticks(cf, 14, 15); err == nil {
			total += t
		}
	}
	return total, nil
}

// Memory is a process's resident memory, in bytes.
type Memory struct {
	RSS  int64 // resident now (VmRSS)
	Peak int64 // the most it has been resident (VmHWM)
}

// ReadMemory reads the resident memory of the process pid.
func ReadMemory(pid int) (Memory, error) {
	b, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "status"))
	if err != nil {
		return Memory{}, err
	}
	var m Memory
	for _, line := range strings.Split(string(b), "\n") {
		k, v, ok := strings.Cut(line, ":")
		if !ok {
			continue
		}
		var dst *int64
		switch k {
		case "VmRSS":
			dst = &m.RSS
		case "VmHWM":
			dst = &m.Peak
		default:
			continue
		}
		kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
		if err != nil {
			return Memory{}, fmt.Errorf("/proc/%d/status: %s: %w", pid, k, err)
		}
		*dst = kb << 10
	}
	if m.RSS == 0 {
		return Memory{}, errors.New("/proc status has no VmRSS")
	}
	return m, nil
}

// dieWithParent makes the started process receive SIGKILL when the
// benchmark dies, so that no server outlives a run that crashed.
func dieWithParent(a *syscall.SysProcAttr) { a.Pdeathsig = syscall.SIGKILL }
