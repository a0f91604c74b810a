// Command benchtable runs every benchmark scenario against every contender
// in one process and prints one table, with each contender's figures and
// their ratios to the floor and to toolexec. Running everything in one
// process, back to back, keeps the ratios meaningful on a noisy machine
// even when the absolute figures are not.
//
//	go run ./cmd/benchtable              (make bench)
//	go run ./cmd/benchtable -benchtime 1s -loadtime 2s
//
// It only ever talks to servers it starts on 127.0.0.1, and every load run
// is bounded in time and in request count.
package main

import (
	"bufio"
	"flag"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/toolexec/toolexec/bench"
)

func main() {
	testing.Init()
	benchtime := flag.Duration("benchtime", 120*time.Millisecond, "run time of each round of an in-process benchmark")
	rounds := flag.Int("rounds", 5, "rounds of every scenario, interleaving the contenders")
	loadtime := flag.Duration("loadtime", 1500*time.Millisecond, "run time of each loopback load cell, over all rounds")
	maxCalls := flag.Int("maxcalls", 300_000, "request cap of each loopback load cell, over all rounds")
	inflight := flag.Int("inflight", 1000, "calls held in the slow tool by the memory scenario")
	only := flag.String("only", "", "run only scenarios whose name contains this")
	flag.Parse()
	if *rounds < 1 {
		*rounds = 1
	}
	if err := flag.Set("test.benchtime", benchtime.String()); err != nil {
		fatal(err)
	}

	t := &table{}
	describeMachine()
	contenders := bench.Contenders()
	run := func(name string) bool { return *only == "" || strings.Contains(name, *only) }

	addArgs := []byte(`{"a":2,"b":40}`)
	if s := "call"; run(s) {
		cases := []benchCase{{name: "(harness only)", noRatio: true, h: bench.Harness, r: bench.WireJSONRPC.CallRequest(bench.ToolAdd, addArgs)}}
		for _, c := range contenders {
			h := c.New(bench.NewGate())
			check(s, c.Name, bench.CheckCall(c.Wire, h, bench.ToolAdd, addArgs, 42))
			cases = append(cases, benchCase{name: c.Name, h: h, r: c.Wire.CallRequest(bench.ToolAdd, addArgs)})
		}
		runBenchmarks(t, s, cases, *rounds)
	}
	if s := "call, 100 KB args"; run(s) {
		args, want := bench.LargeSumArgs(100 << 10)
		var cases []benchCase
		for _, c := range contenders {
			h := c.New(bench.NewGate())
			check(s, c.Name, bench.CheckCall(c.Wire, h, bench.ToolSum, args, want))
			cases = append(cases, benchCase{name: c.Name, h: h, r: c.Wire.CallRequest(bench.ToolSum, args)})
		}
		runBenchmarks(t, s, cases, *rounds)
	}
	if s := "call, 1 of 1000 tools"; run(s) {
		// The last of 1000 registered tools: a lookup that scans, or
		// rebuilds an index per call, shows here.
		var cases []benchCase
		for _, c := range contenders {
			if c.NewList != nil {
				h := c.NewList(1000)
				check(s, c.Name, bench.CheckCall(c.Wire, h, bench.ListToolName(999), addArgs, 42))
				cases = append(cases, benchCase{name: c.Name, h: h, r: c.Wire.CallRequest(bench.ListToolName(999), addArgs)})
			}
		}
		runBenchmarks(t, s, cases, *rounds)
	}
	for _, n := range []int{1, 100, 1000} {
		s := fmt.Sprintf("list, %d tools", n)
		if !run(s) {
			continue
		}
		var cases []benchCase
		for _, c := range contenders {
			if c.NewList != nil {
				h := c.NewList(n)
				check(s, c.Name, bench.CheckList(c.Wire, h, n))
				cases = append(cases, benchCase{name: c.Name, h: h, r: c.Wire.ListRequest()})
			}
		}
		runBenchmarks(t, s, cases, *rounds)
	}
	for _, clients := range []int{1, 16, 64} {
		s := fmt.Sprintf("loopback, %d clients", clients)
		if !run(s) {
			continue
		}
		progress(s)
		// Rounds interleave the contenders, so a burst of noise from
		// elsewhere on the machine is spread over all of them.
		total := make([]bench.LoadResult, len(contenders))
		lat := make([][]time.Duration, len(contenders))
		for range *rounds {
			for i, c := range contenders {
				h := c.New(bench.NewGate())
				check(s, c.Name, bench.CheckCall(c.Wire, h, bench.ToolAdd, addArgs, 42))
				res, err := bench.Loopback(h, c.Wire.CallRequest(bench.ToolAdd, addArgs),
					bench.LoadOptions{Clients: clients, Duration: *loadtime / time.Duration(*rounds), MaxCalls: *maxCalls / *rounds, Warmup: 20})
				if err != nil {
					fatal(fmt.Errorf("%s %s: %w", s, c.Name, err))
				}
				if res.Errors > 0 {
					fatal(fmt.Errorf("%s %s: %d failed requests", s, c.Name, res.Errors))
				}
				total[i].Requests += res.Requests
				total[i].Elapsed += res.Elapsed
				total[i].CPU += res.CPU
				lat[i] = append(lat[i], res.Latencies...)
			}
		}
		for i, c := range contenders {
			p50, p99 := bench.Percentiles(lat[i])
			rw := row{scenario: s, contender: c.Name, rps: total[i].RPS(), p50: p50, p99: p99}
			if total[i].CPU > 0 && total[i].Requests > 0 {
				rw.cpu = float64(total[i].CPU.Nanoseconds()) / float64(total[i].Requests)
			}
			t.add(rw)
		}
	}
	if s := fmt.Sprintf("held per call, %d waiting", *inflight); run(s) {
		progress(s)
		for _, c := range contenders {
			v, err := bench.InFlightMemory(c, *inflight, time.Minute)
			if err != nil {
				fatal(err)
			}
			t.add(row{scenario: s, contender: c.Name, held: v})
		}
	}
	fmt.Fprintln(os.Stderr)
	t.print(os.Stdout)
	t.targets(os.Stdout)
}

// benchCase is one contender's handler and request in an in-process
// scenario.
type benchCase struct {
	name    string
	noRatio bool
	h       http.Handler
	r       bench.Request
}

// runBenchmarks runs every case rounds times, interleaved (a, b, c, a, b,
// c...), and keeps each case's cheapest round. Cost is the process's CPU
// time per call (the handler, its goroutines and the garbage collector it
// causes), which other processes on the machine barely disturb, where wall
// time grows with every one of them; noise only ever adds cost, and
// interleaving spreads it over every contender instead of one.
func runBenchmarks(t *table, scenario string, cases []benchCase, rounds int) {
	progress(scenario)
	best := make([]row, len(cases))
	for range rounds {
		for i, c := range cases {
			var cpu time.Duration
			r := benchmark(func(b *testing.B) {
				start := bench.ProcessCPU()
				bench.BenchServe(b, c.h, c.r)
				cpu = bench.ProcessCPU() - start // the last call is the measured one
			})
			rw := benchRow(scenario, c.name, r)
			if cpu > 0 {
				rw.cpu = float64(cpu.Nanoseconds()) / float64(r.N)
			}
			rw.noRatio = c.noRatio
			if best[i].ns == 0 || rw.cost() < best[i].cost() {
				best[i] = rw
			}
		}
	}
	for _, rw := range best {
		t.add(rw)
	}
}

// benchmark runs f as testing.Benchmark does, failing loudly instead of
// returning an empty result when the benchmark fails.
func benchmark(f func(b *testing.B)) testing.BenchmarkResult {
	r := testing.Benchmark(f)
	if r.N == 0 {
		fatal(fmt.Errorf("a benchmark failed (rerun it with go test -bench to see why)"))
	}
	return r
}

func benchRow(scenario, contender string, r testing.BenchmarkResult) row {
	return row{scenario: scenario, contender: contender, ns: nsPerOp(r),
		bytes: float64(r.AllocedBytesPerOp()), allocs: float64(r.AllocsPerOp())}
}

func nsPerOp(r testing.BenchmarkResult) float64 {
	return float64(r.T.Nanoseconds()) / float64(r.N)
}

// check stops the run when a contender answered wrongly: its figures
// would mean nothing.
func check(scenario, contender string, err error) {
	if err != nil {
		fatal(fmt.Errorf("%s: %s answered wrongly: %w", scenario, contender, err))
	}
}

func progress(s string) { fmt.Fprintf(os.Stderr, "running %s...\n", s) }

func fatal(err error) {
	fmt.Fprintln(os.Stderr, "benchtable:", err)
	os.Exit(1)
}

// describeMachine prints what the figures were measured on.
func describeMachine() {
	cpu := "unknown"
	if f, err := os.Open("/proc/cpuinfo"); err == nil {
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			if k, v, ok := strings.Cut(sc.Text(), ":"); ok && strings.TrimSpace(k) == "model name" {
				cpu = strings.TrimSpace(v)
				break
			}
		}
		f.Close()
	}
	load := ""
	if b, err := os.ReadFile("/proc/loadavg"); err == nil {
		load = strings.Join(strings.Fields(string(b))[:3], " ")
	}
	kernel := ""
	if out, err := exec.Command("uname", "-sr").Output(); err == nil {
		kernel = strings.TrimSpace(string(out))
	}
	fmt.Printf("machine: %d CPUs (GOMAXPROCS %d), %s, %s, %s/%s, %s; load average at start %s\n",
		runtime.NumCPU(), runtime.GOMAXPROCS(0), cpu, kernel, runtime.GOOS, runtime.GOARCH, runtime.Version(), load)
}
