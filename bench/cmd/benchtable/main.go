// Command benchtable runs every benchmark scenario against every contender
// in one process and prints tables of their costs, their ratios to the
// hand-written floors, and whether toolexec meets its performance targets
// (make bench).
//
//	go run ./cmd/benchtable              (make bench)
//	go run ./cmd/benchtable -rounds 11 -benchtime 200ms -loadtime 4s
//
// How it measures (docs/performance.md says more): every scenario runs in
// rounds; each round measures every contender once, in an order rotated
// from round to round, so noise from elsewhere on the machine lands on all
// of them. Cost is the process's CPU time per call. Each round also
// measures bench.Null, a handler that does nothing, and that round's Null
// cost is subtracted from every contender's before anything is compared: the
// figures are the handlers' own. A contender's figure is the median of its
// rounds, and ratios are ratios of those medians.
//
// It also compares `toolexec serve`, built from this tree, with
// googleapis/mcp-toolbox (the version bench/toolbox pins, installed with npm
// under .cache/toolbox the first time; -toolbox off leaves it out), each a
// process of its own serving the same tools file, on SQLite and on a
// throw-away PostgreSQL: throughput at 1 and 16 clients in alternating
// rounds, start-up, memory and binary size (package bench/external).
//
// It only ever talks to servers it starts on 127.0.0.1, and every load run
// is bounded in time and in request count.
package main

import (
	"bufio"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"time"

	"github.com/toolexec/toolexec/bench"
)

// options are the command's flags.
type options struct {
	benchtime time.Duration
	rounds    int
	loadtime  time.Duration
	maxCalls  int
	inflight  int
	only      string
	toolbox   string
	startups  int
}

func main() {
	var o options
	flag.DurationVar(&o.benchtime, "benchtime", 100*time.Millisecond, "wall time of each contender's sample in each round of an in-process scenario")
	flag.IntVar(&o.rounds, "rounds", 7, "rounds of every in-process and loopback scenario (figures are medians over rounds)")
	flag.DurationVar(&o.loadtime, "loadtime", 2100*time.Millisecond, "wall time of each contender's loopback load, over all rounds")
	flag.IntVar(&o.maxCalls, "maxcalls", 300_000, "request cap of each contender's loopback load, over all rounds")
	flag.IntVar(&o.inflight, "inflight", 1000, "calls held in the slow tool by the memory scenario")
	flag.StringVar(&o.only, "only", "", "run only scenarios whose name contains this")
	flag.StringVar(&o.toolbox, "toolbox", "", "the mcp-toolbox binary to compare `toolexec serve` with (default: the pinned version, installed with npm under .cache/toolbox; off: none)")
	flag.IntVar(&o.startups, "startups", 3, "measured starts of each server in the comparison with mcp-toolbox (start-up is their median)")
	flag.Parse()
	o.rounds = max(o.rounds, 1)
	o.startups = max(o.startups, 1)

	start := time.Now()
	describeMachine(os.Stdout, o)
	res := run(o, os.Stderr)
	fmt.Fprintln(os.Stderr)
	res.print(os.Stdout)
	res.targets(os.Stdout)
	res.scale.print(os.Stdout)
	res.scripts.print(os.Stdout)
	fmt.Fprintf(os.Stdout, "\nrun took %s\n", time.Since(start).Round(time.Second))
}

// nullName is the harness-only row of every scenario.
const nullName = "null (harness)"

// scenarioFeatures measures what each of a call's features costs when it
// is used: toolexec MCP with one on at a time (bench.Features), beside
// the JSON-RPC floor and toolexec MCP with none.
const scenarioFeatures = "call, one feature on"

var addArgs = []byte(`{"a":2,"b":40}`)

// run runs every scenario o selects, reporting progress to log.
func run(o options, log io.Writer) *results {
	res := &results{rounds: o.rounds}
	contenders := bench.Contenders()
	want := func(name string) bool {
		if o.only != "" && !strings.Contains(name, o.only) {
			return false
		}
		fmt.Fprintf(log, "running %s...\n", name)
		return true
	}

	if s := "call"; want(s) {
		var cases []inCase
		for _, c := range contenders {
			h := c.New(bench.NewGate())
			check(s, c.Name, bench.CheckCall(c.Wire, h, bench.ToolAdd, addArgs, 42))
			cases = append(cases, inCase{c: c, h: h, r: c.Wire.CallRequest(bench.ToolAdd, addArgs)})
		}
		res.add(inProcess(s, cases, o))
	}
	if s := scenarioFeatures; want(s) {
		fl := bench.Floor()
		h := fl.New(bench.NewGate())
		check(s, fl.Name, bench.CheckCall(fl.Wire, h, bench.ToolAdd, addArgs, 42))
		cases := []inCase{{c: fl, h: h, r: fl.Wire.CallRequest(bench.ToolAdd, addArgs)}}
		for _, f := range bench.Features() {
			h := f.New()
			check(s, f.Name, bench.CheckRequest(bench.WireJSONRPC, h, f.Request, 42))
			cases = append(cases, inCase{c: bench.Contender{Name: f.Name, Wire: bench.WireJSONRPC}, h: h, r: f.Request})
		}
		res.add(inProcess(s, cases, o))
	}
	if s := "call, 100 KB args"; want(s) {
		args, sum := bench.LargeSumArgs(100 << 10)
		var cases []inCase
		for _, c := range contenders {
			h := c.New(bench.NewGate())
			check(s, c.Name, bench.CheckCall(c.Wire, h, bench.ToolSum, args, sum))
			cases = append(cases, inCase{c: c, h: h, r: c.Wire.CallRequest(bench.ToolSum, args)})
		}
		res.add(inProcess(s, cases, o))
	}
	if s := "call, 1 of 1000 tools"; want(s) {
		// The last of 1000 registered tools: a lookup that scans, or
		// rebuilds an index per call, shows here.
		var cases []inCase
		for _, c := range contenders {
			if c.NewList != nil {
				h := c.NewList(1000)
				check(s, c.Name, bench.CheckCall(c.Wire, h, bench.ListToolName(999), addArgs, 42))
				cases = append(cases, inCase{c: c, h: h, r: c.Wire.CallRequest(bench.ListToolName(999), addArgs)})
			}
		}
		res.add(inProcess(s, cases, o))
	}
	for _, n := range []int{1, 100, 1000} {
		s := fmt.Sprintf("list, %d tools", n)
		if !want(s) {
			continue
		}
		var cases []inCase
		for _, c := range contenders {
			if c.NewList != nil {
				h := c.NewList(n)
				check(s, c.Name, bench.CheckList(c.Wire, h, n))
				cases = append(cases, inCase{c: c, h: h, r: c.Wire.ListRequest()})
			}
		}
		res.add(inProcess(s, cases, o))
	}
	if s := "openapi.json, 1000 tools"; want(s) {
		// The REST surface's OpenAPI document, as a client fetches it: made
		// once per change of the tool set, so a request writes it out.
		c := bench.ToolexecREST()
		h := c.NewList(1000)
		check(s, c.Name, bench.CheckOpenAPI(h, 1000))
		res.add(inProcess(s, []inCase{{c: c, h: h, r: bench.OpenAPIRequest()}}, o))
	}
	for _, clients := range []int{1, 16, 64} {
		if s := fmt.Sprintf("loopback, %d clients", clients); want(s) {
			res.add(loopback(s, contenders, clients, o))
		}
	}
	compareServers(o, res, log)
	if s := fmt.Sprintf("held per call, %d waiting", o.inflight); want(s) {
		res.add(held(s, contenders, o))
	}
	if s := "stack per call"; want(s) {
		res.add(stack(s, contenders))
	}
	if want(scenarioStore) {
		storeCost(o, &res.scale)
	}
	if want(scenarioReplicas) {
		replicaThroughput(o, &res.scale)
	}
	if want(scenarioScripts) {
		scriptCost(o, &res.scripts, log)
	}
	return res
}

// inCase is one contender's handler and request in an in-process scenario.
type inCase struct {
	c bench.Contender
	h http.Handler
	r bench.Request
}

// inProcess measures every case, and the harness alone, over o.rounds
// rounds. A first, unrecorded pass warms each case up and sizes its
// samples to about o.benchtime each.
func inProcess(name string, cases []inCase, o options) *scenario {
	// The null case sends the JSON-RPC floor's request: the same body size
	// (within a few bytes) as every contender's.
	null := inCase{c: bench.Contender{Name: nullName}, h: bench.Null(nil), r: cases[0].r}
	cases = append([]inCase{null}, cases...)
	s := &scenario{name: name, kind: kindInProcess}
	callers := make([]*bench.Caller, len(cases))
	sizes := make([]int, len(cases))
	for i, c := range cases {
		callers[i] = bench.NewCaller(c.h, c.r)
		sizes[i] = bench.Calibrate(callers[i], o.benchtime)
		s.rows = append(s.rows, newRow(c.c, i == 0, o.rounds))
	}
	for r := range o.rounds {
		for k := range cases {
			i := (k + r) % len(cases)
			m := bench.Measure(callers[i], sizes[i])
			if w := callers[i].Response(); w.Status() != http.StatusOK {
				fatal(fmt.Errorf("%s: %s answered %d: %.200s", name, cases[i].c.Name, w.Status(), w.Body()))
			}
			s.rows[i].obs[r] = obs{wall: m.WallPerOp(), cpu: m.CPUPerOp(), allocs: m.AllocsPerOp(), bytes: m.BytesPerOp()}
		}
	}
	return s
}

// loopback drives every contender, and Null, over loopback TCP from
// clients concurrent clients, o.rounds times each, interleaved.
func loopback(name string, contenders []bench.Contender, clients int, o options) *scenario {
	s := &scenario{name: name, kind: kindLoopback}
	type lcase struct {
		c   bench.Contender
		new func() http.Handler
	}
	cases := []lcase{{c: bench.Contender{Name: nullName, Wire: bench.WireJSONRPC}, new: func() http.Handler { return bench.Null(nil) }}}
	for _, c := range contenders {
		cases = append(cases, lcase{c: c, new: func() http.Handler {
			h := c.New(bench.NewGate())
			check(name, c.Name, bench.CheckCall(c.Wire, h, bench.ToolAdd, addArgs, 42))
			return h
		}})
	}
	for i, c := range cases {
		s.rows = append(s.rows, newRow(c.c, i == 0, o.rounds))
	}
	opts := bench.LoadOptions{Clients: clients, Duration: o.loadtime / time.Duration(o.rounds),
		MaxCalls: max(o.maxCalls/o.rounds, clients), Warmup: 20}
	groups := loadGroups(cases, func(c lcase) bench.Contender { return c.c })
	for r := range o.rounds {
		for _, i := range roundOrder(groups, r) {
			c := cases[i]
			res, err := bench.Loopback(c.new(), c.c.Wire.CallRequest(bench.ToolAdd, addArgs), opts)
			if err != nil {
				fatal(fmt.Errorf("%s %s: %w", name, c.c.Name, err))
			}
			if res.Errors > 0 {
				fatal(fmt.Errorf("%s %s: %d failed requests", name, c.c.Name, res.Errors))
			}
			ob := obs{rps: res.RPS()}
			if res.Requests > 0 {
				ob.wall = float64(res.Elapsed.Nanoseconds()) / float64(res.Requests)
				ob.cpu = float64(res.CPU.Nanoseconds()) / float64(res.Requests)
			}
			s.rows[i].obs[r] = ob
			s.rows[i].latencies = append(s.rows[i].latencies, res.Latencies...)
		}
	}
	return s
}

// loadGroups groups the indexes of cases for loopback rounds: each floor
// together with, right after it, the first contender compared with it;
// every other case alone; in their order otherwise.
func loadGroups[T any](cases []T, contender func(T) bench.Contender) [][]int {
	index := make(map[string]int, len(cases))
	for i, c := range cases {
		index[contender(c).Name] = i
	}
	isFloor := func(name string) bool { return name == bench.FloorName || name == bench.RESTFloorName }
	var groups [][]int
	placed := make(map[int]bool, len(cases))
	for i, c := range cases {
		if placed[i] {
			continue
		}
		g := []int{i}
		name := contender(c).Name
		if f, ok := index[bench.FloorOf(contender(c))]; ok && name != nullName && !isFloor(name) && !placed[f] {
			g = []int{f, i}
		} else if isFloor(name) && hasFollower(cases, contender, i, placed) {
			continue // it runs beside the first contender compared with it
		}
		for _, j := range g {
			placed[j] = true
		}
		groups = append(groups, g)
	}
	return groups
}

// hasFollower reports whether a case after the floor at f, not yet placed,
// is compared with it.
func hasFollower[T any](cases []T, contender func(T) bench.Contender, f int, placed map[int]bool) bool {
	floor := contender(cases[f]).Name
	for j := f + 1; j < len(cases); j++ {
		c := contender(cases[j])
		if !placed[j] && c.Name != nullName && c.Name != bench.FloorName && c.Name != bench.RESTFloorName && bench.FloorOf(c) == floor {
			return true
		}
	}
	return false
}

// roundOrder is the order of round r: the groups rotated by r, so noise
// from elsewhere lands on every contender in turn, and each pair in the
// order floor, contender on even rounds and the other way on odd ones, so
// that neither side always runs first. The two of a pair always run one
// right after the other.
func roundOrder(groups [][]int, r int) []int {
	var order []int
	for k := range groups {
		g := groups[(k+r)%len(groups)]
		if r%2 == 0 {
			order = append(order, g...)
			continue
		}
		for j := len(g) - 1; j >= 0; j-- {
			order = append(order, g[j])
		}
	}
	return order
}

// held measures the memory held per waiting call, once per contender and
// once for the harness alone.
func held(name string, contenders []bench.Contender, o options) *scenario {
	s := &scenario{name: name, kind: kindHeld}
	v, err := bench.NullInFlightMemory(o.inflight, time.Minute)
	if err != nil {
		fatal(err)
	}
	s.rows = append(s.rows, newRow(bench.Contender{Name: nullName}, true, 1))
	s.rows[0].obs[0].held = v
	for _, c := range contenders {
		v, err := bench.InFlightMemory(c, o.inflight, time.Minute)
		if err != nil {
			fatal(err)
		}
		rw := newRow(c, false, 1)
		rw.obs[0].held = v
		s.rows = append(s.rows, rw)
	}
	return s
}

// stack measures the goroutine stack one call of add needs, per
// contender, beyond the harness's (the null row, 0 by definition).
func stack(name string, contenders []bench.Contender) *scenario {
	s := &scenario{name: name, kind: kindStack}
	s.rows = append(s.rows, newRow(bench.Contender{Name: nullName}, true, 1))
	nullReq := bench.WireJSONRPC.CallRequest(bench.ToolAdd, addArgs)
	null := func() { bench.Serve(bench.Null(nil), nullReq) }
	for _, c := range contenders {
		h := c.New(bench.NewGate())
		check(name, c.Name, bench.CheckCall(c.Wire, h, bench.ToolAdd, addArgs, 42))
		r := c.Wire.CallRequest(bench.ToolAdd, addArgs)
		rw := newRow(c, false, 1)
		rw.obs[0].stack = float64(bench.StackDepth(func() { bench.Serve(h, r) }, null))
		s.rows = append(s.rows, rw)
	}
	return s
}

// check stops the run when a contender answered wrongly: its figures
// would mean nothing.
func check(scenario, contender string, err error) {
	if err != nil {
		fatal(fmt.Errorf("%s: %s answered wrongly: %w", scenario, contender, err))
	}
}

func fatal(err error) {
	fmt.Fprintln(os.Stderr, "benchtable:", err)
	os.Exit(1)
}

// describeMachine prints what the figures were measured on, and how.
func describeMachine(w io.Writer, o options) {
	cpu := "unknown"
	if f, err := os.Open("/proc/cpuinfo"); err == nil {
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			if k, v, ok := strings.Cut(sc.Text(), ":"); ok && strings.TrimSpace(k) == "model name" {
				cpu = strings.TrimSpace(v)
				break
			}
		}
		_ = f.Close() // /proc/cpuinfo, read: closing it loses nothing
	}
	load := "unknown"
	if b, err := os.ReadFile("/proc/loadavg"); err == nil {
		if f := strings.Fields(string(b)); len(f) >= 3 {
			load = strings.Join(f[:3], " ")
		}
	}
	kernel := ""
	if out, err := exec.Command("uname", "-sr").Output(); err == nil {
		kernel = strings.TrimSpace(string(out))
	}
	fmt.Fprintf(w, "machine: %d CPUs (GOMAXPROCS %d), %s, %s, %s/%s, %s; load average at start %s\n",
		runtime.NumCPU(), runtime.GOMAXPROCS(0), cpu, kernel, runtime.GOOS, runtime.GOARCH, runtime.Version(), load)
	fmt.Fprintf(w, "run: %d rounds, %s per in-process sample, %s of loopback load per contender and client count, %d calls held, %d measured starts per server\n",
		o.rounds, o.benchtime, o.loadtime, o.inflight, o.startups)
}
