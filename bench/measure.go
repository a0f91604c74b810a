package bench

import (
	"runtime"
	"time"
)

// Sample is what Measure saw over N calls.
type Sample struct {
	N    int
	Wall time.Duration
	// CPU is the process's CPU time over the calls: the handler, any
	// goroutine it started, and the garbage collector's work, which runs
	// concurrently. 0 where ProcessCPU cannot be read.
	CPU time.Duration
	// Allocs and Bytes are the heap allocations made over the calls, by
	// count and by size (runtime.MemStats Mallocs and TotalAlloc).
	Allocs, Bytes uint64
}

// WallPerOp, CPUPerOp, AllocsPerOp and BytesPerOp divide s by its calls,
// without rounding.
func (s Sample) WallPerOp() float64 { return perOp(float64(s.Wall.Nanoseconds()), s.N) }

// CPUPerOp is CPU nanoseconds per call.
func (s Sample) CPUPerOp() float64 { return perOp(float64(s.CPU.Nanoseconds()), s.N) }

// AllocsPerOp is heap allocations per call.
func (s Sample) AllocsPerOp() float64 { return perOp(float64(s.Allocs), s.N) }

// BytesPerOp is heap bytes allocated per call.
func (s Sample) BytesPerOp() float64 { return perOp(float64(s.Bytes), s.N) }

func perOp(v float64, n int) float64 {
	if n <= 0 {
		return 0
	}
	return v / float64(n)
}

// Measure makes n calls through c and returns what they cost. It collects
// garbage first, so each sample pays only for its own garbage, and reads
// the clocks and memory statistics outside the loop.
func Measure(c *Caller, n int) Sample {
	runtime.GC()
	var m0, m1 runtime.MemStats
	runtime.ReadMemStats(&m0)
	start, cpu := time.Now(), ProcessCPU()
	for range n {
		c.Call()
	}
	s := Sample{N: n}
	if end := ProcessCPU(); cpu > 0 && end > 0 {
		s.CPU = end - cpu
	}
	s.Wall = time.Since(start)
	runtime.ReadMemStats(&m1)
	s.Allocs = m1.Mallocs - m0.Mallocs
	s.Bytes = m1.TotalAlloc - m0.TotalAlloc
	return s
}

// Calibrate warms c up and returns how many calls take about d of wall
// time: it calls c in growing batches until a batch takes d/10, then
// scales. It returns at least 1.
func Calibrate(c *Caller, d time.Duration) int {
	n := 1
	for {
		start := time.Now()
		for range n {
			c.Call()
		}
		took := time.Since(start)
		if took >= d/10 || n >= 1<<30 {
			per := max(took.Nanoseconds()/int64(n), 1)
			return int(max(1, min(d.Nanoseconds()/per, 1<<30)))
		}
		n *= 2
	}
}
