package main

import (
	"fmt"
	"io"
	"math"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/toolexec/toolexec/bench"
)

// The contenders targets and the ×toolexec column refer to.
const (
	restName  = "toolexec REST"
	mcpName   = "toolexec MCP"
	oxpName   = "toolexec OXP"
	mcpGoName = "mcp-go"
)

type kind int

const (
	kindInProcess kind = iota
	kindLoopback
	kindServe // a server process of its own against mcp-toolbox
	kindHeld
	kindStack
)

// obs is one contender's figures in one round: per call, except rps.
type obs struct {
	wall, cpu     float64 // nanoseconds
	allocs, bytes float64
	rps           float64 // loopback: answered requests per second
	held          float64 // bytes held per waiting call
	stack         float64 // bytes of goroutine stack a call needs beyond the harness's
	// A server process of its own (kindServe), per call: its CPU time,
	// and PostgreSQL's (every process of it); cpu is then everything the
	// machine spent that could be read: the clients', the server's and
	// PostgreSQL's.
	srv, db float64
	// sessions is how many database sessions were opened in the round,
	// calls how many calls were answered.
	sessions, calls float64
}

// cost is the figure ratios compare: CPU time per call when the process's
// CPU time could be read, wall time otherwise, or bytes held. The choice
// is made on raw figures, once per scenario: a net figure at or below zero
// stays what it is and gets no ratio.
func (s *scenario) costOf(o obs) float64 {
	switch {
	case s.kind == kindHeld:
		return o.held
	case s.kind == kindStack:
		return o.stack
	case s.measuredCPU():
		return o.cpu
	default:
		return o.wall
	}
}

// measuredCPU reports whether every raw figure of the scenario has a CPU
// time.
func (s *scenario) measuredCPU() bool {
	for _, r := range s.rows {
		for _, o := range r.obs {
			if o.cpu <= 0 {
				return false
			}
		}
	}
	return true
}

// minus is o with the harness's figures of the same round taken out
// (throughput stays as measured).
func (o obs) minus(null obs) obs {
	return obs{wall: o.wall - null.wall, cpu: o.cpu - null.cpu, allocs: o.allocs - null.allocs,
		bytes: o.bytes - null.bytes, rps: o.rps, held: o.held - null.held, stack: o.stack - null.stack,
		srv: o.srv, db: o.db, sessions: o.sessions, calls: o.calls}
}

// row is one contender in one scenario.
type row struct {
	contender string
	floor     string // the row it is compared with
	null      bool   // the harness alone
	obs       []obs  // one per round
	latencies []time.Duration
}

func newRow(c bench.Contender, null bool, rounds int) row {
	r := row{contender: c.Name, null: null, obs: make([]obs, rounds)}
	if !null {
		r.floor = bench.FloorOf(c)
	}
	return r
}

type scenario struct {
	name string
	kind kind
	rows []row
	// database reports, for kindServe, that the tool reads PostgreSQL:
	// its CPU time and sessions are measured.
	database bool
}

func (s *scenario) find(name string) *row {
	for i := range s.rows {
		if s.rows[i].contender == name {
			return &s.rows[i]
		}
	}
	return nil
}

// net is r's figures in each round less the harness's in the same round.
func (s *scenario) net(r *row) []obs {
	null := s.find(nullName)
	out := make([]obs, len(r.obs))
	for i, o := range r.obs {
		if null != nil && !r.null && i < len(null.obs) {
			o = o.minus(null.obs[i])
		}
		out[i] = o
	}
	return out
}

// median of f over r's rounds, net of the harness unless raw.
func (s *scenario) median(r *row, raw bool, f func(obs) float64) float64 {
	os := r.obs
	if !raw {
		os = s.net(r)
	}
	v := make([]float64, len(os))
	for i, o := range os {
		v[i] = f(o)
	}
	return median(v)
}

func (s *scenario) cost(r *row) float64 {
	return s.median(r, false, s.costOf)
}

// ratio is a's median net cost over b's, and the least and greatest of the
// same ratio taken round by round.
func (s *scenario) ratio(a, b *row) (mid, lo, hi float64) {
	mid = div(s.cost(a), s.cost(b))
	an, bn := s.net(a), s.net(b)
	lo, hi = math.Inf(1), math.Inf(-1)
	for i := range min(len(an), len(bn)) {
		// min and max return NaN when either is NaN: one round whose net
		// cost is not positive leaves the range unknown.
		q := div(s.costOf(an[i]), s.costOf(bn[i]))
		lo, hi = min(lo, q), max(hi, q)
	}
	return mid, lo, hi
}

func (s *scenario) allocRatio(a, b *row) float64 {
	f := func(o obs) float64 { return o.allocs }
	return div(s.median(a, false, f), s.median(b, false, f))
}

// throughputRatio is a's req/s over b's: the median, over rounds, of the
// ratio within each round. Each round runs b and then a one after the
// other (see loopback), so the ratio compares runs made a second apart,
// and a machine whose speed drifts from round to round (a loaded VM) moves
// both sides of it alike; a ratio of medians taken over the whole run
// would carry that drift.
func (s *scenario) throughputRatio(a, b *row) float64 {
	return pairedMedian(a, b, func(x, y obs) float64 { return div(x.rps, y.rps) })
}

// cpuThroughputRatio is the throughput a's raw CPU time per request allows
// over b's, paired by round as throughputRatio is: what req/s ×floor would
// be if both had the machine to themselves, whatever else was running.
func (s *scenario) cpuThroughputRatio(a, b *row) float64 {
	return pairedMedian(a, b, func(x, y obs) float64 { return div(y.cpu, x.cpu) })
}

// pairedMedian is the median over rounds of q(a's figures, b's figures) in
// the same round.
func pairedMedian(a, b *row, q func(x, y obs) float64) float64 {
	v := make([]float64, 0, len(a.obs))
	for i := range min(len(a.obs), len(b.obs)) {
		v = append(v, q(a.obs[i], b.obs[i]))
	}
	return median(v)
}

// reference is toolexec's row for a scenario: its MCP surface when there is
// one (the same request the peers answer), else its REST surface.
func (s *scenario) reference() *row {
	if r := s.find(mcpName); r != nil {
		return r
	}
	return s.find(restName)
}

type results struct {
	rounds    int
	scenarios []*scenario
	scale     scaleResults  // the shared-store scenarios (scale.go)
	scripts   scriptResults // script tools and transforms (scripts.go)
	// notes say what the comparison with mcp-toolbox ran, and what it
	// left out and why; servers are its start-up, memory and size
	// figures.
	notes   []string
	servers []*server
}

func (t *results) add(s *scenario) { t.scenarios = append(t.scenarios, s) }

func (t *results) note(s string) { t.notes = append(t.notes, s) }

func (t *results) find(name string) *scenario {
	for _, s := range t.scenarios {
		if s.name == name {
			return s
		}
	}
	return nil
}

func (t *results) print(w io.Writer) {
	for _, k := range []kind{kindInProcess, kindLoopback, kindServe, kindHeld, kindStack} {
		var lines [][]string
		for _, s := range t.scenarios {
			if s.kind != k {
				continue
			}
			if lines == nil {
				lines = append(lines, header(k))
			} else {
				lines = append(lines, nil)
			}
			for i := range s.rows {
				lines = append(lines, s.cells(&s.rows[i], i == 0))
			}
		}
		if lines != nil {
			fmt.Fprintln(w)
			writeAligned(w, lines, 2)
		}
		if k == kindServe {
			t.printServers(w)
		}
	}
	if !slices.ContainsFunc(t.scenarios, func(s *scenario) bool { return s.kind != kindServe }) {
		return
	}
	fmt.Fprintf(w, `
Every figure is the median of %d rounds; "net" figures and every ratio have the harness taken out: each round,
the null row's figure of that round (a handler that does nothing, sent the same request through the same harness) is
subtracted from each contender's. Ratios are of medians: net CPU time per call (the process's CPU time, GC included),
or net bytes held per waiting call; above 1 is slower or bigger. ×floor compares each REST row with the REST floor
and every other row (OXP included) with the JSON-RPC floor; "rounds" is the least and greatest of the same ratio
taken round by round. ×toolexec is relative to toolexec MCP. Over loopback, req/s and latencies are as measured,
and "req/s ×floor" is the throughput ratio; "req/cpu-s ×floor" is the same ratio computed from raw CPU time per
request (the floor's over the contender's), which other processes on the machine barely move: when the two
disagree, the machine was busy. Net CPU there is what remains once the Go client's, the kernel's and net/http's
share (the null row) is taken out. Both throughput ratios are medians of the ratio within each round, where a floor
and the contender compared with it run one right after the other. "stack B/call" is the goroutine stack one
in-process call needs beyond the harness's (bench.StackDepth): over a keep-alive connection, a call that needs
more than the connection's goroutine holds while it waits grows that stack again after every garbage collection.
`, t.rounds)
}

func header(k kind) []string {
	switch k {
	case kindLoopback:
		return []string{"scenario", "contender", "req/s", "p50", "p99", "cpu ns/req", "net cpu ns/req", "req/s ×floor", "req/cpu-s ×floor", "×floor", "rounds", "×toolexec"}
	case kindServe:
		return []string{"scenario", "server", "req/s", "p50", "p99", "server cpu µs/call", "server cpu ×floor", "db cpu µs/call", "sessions/call",
			"all cpu µs/call", "req/s ×toolbox", "req/cpu-s ×toolbox", "rounds"}
	case kindHeld:
		return []string{"scenario", "contender", "B held/call", "net B held/call", "×floor", "×toolexec"}
	case kindStack:
		return []string{"scenario", "contender", "stack B/call", "×floor", "×toolexec"}
	default:
		return []string{"scenario", "contender", "ns/op", "cpu ns/op", "net cpu ns/op", "net B/op", "net allocs/op", "×floor", "rounds", "allocs ×floor", "×toolexec"}
	}
}

func (s *scenario) cells(r *row, first bool) []string {
	name := ""
	if first {
		name = s.name
	}
	raw := func(f func(obs) float64) string { return num(s.median(r, true, f)) }
	net := func(f func(obs) float64) string {
		if r.null {
			return ""
		}
		return num(s.median(r, false, f))
	}
	var floorRatio, rounds, allocs, thru, thruCPU, ref string
	if f := s.find(r.floor); f != nil {
		mid, lo, hi := s.ratio(r, f)
		floorRatio = ratio(mid)
		if len(r.obs) > 1 && f != r {
			rounds = "-" // some round's net cost was not positive
			if !math.IsNaN(lo) && !math.IsNaN(hi) {
				rounds = ratio(lo) + "–" + ratio(hi)
			}
		}
		allocs = ratio(s.allocRatio(r, f))
		thru = ratio(s.throughputRatio(r, f))
		thruCPU = ratio(s.cpuThroughputRatio(r, f))
	}
	if x := s.reference(); x != nil && !r.null {
		mid, _, _ := s.ratio(r, x)
		ref = ratio(mid)
	}
	switch s.kind {
	case kindServe:
		return s.serveCells(r, name)
	case kindLoopback:
		p50, p99 := bench.Percentiles(slices.Clone(r.latencies))
		return []string{name, r.contender, raw(func(o obs) float64 { return o.rps }), dur(p50), dur(p99),
			raw(func(o obs) float64 { return o.cpu }), net(func(o obs) float64 { return o.cpu }), thru, thruCPU, floorRatio, rounds, ref}
	case kindHeld:
		return []string{name, r.contender, raw(func(o obs) float64 { return o.held }), net(func(o obs) float64 { return o.held }), floorRatio, ref}
	case kindStack:
		return []string{name, r.contender, raw(func(o obs) float64 { return o.stack }), floorRatio, ref}
	default:
		return []string{name, r.contender, raw(func(o obs) float64 { return o.wall }), raw(func(o obs) float64 { return o.cpu }),
			net(func(o obs) float64 { return o.cpu }), net(func(o obs) float64 { return o.bytes }),
			net(func(o obs) float64 { return o.allocs }), floorRatio, rounds, allocs, ref}
	}
}

// target is one of the performance targets.
type target struct {
	what     string
	scenario string
	limit    float64
	atMost   bool // the value must be at most limit (else at least)
	value    func(s *scenario) (float64, bool)
}

// vsFloor is a contender's net CPU time over its floor's.
func vsFloor(contender string) func(*scenario) (float64, bool) {
	return func(s *scenario) (float64, bool) {
		r := s.find(contender)
		if r == nil {
			return 0, false
		}
		f := s.find(r.floor)
		if f == nil {
			return 0, false
		}
		mid, _, _ := s.ratio(r, f)
		return mid, true
	}
}

func allocsVsFloor(contender string) func(*scenario) (float64, bool) {
	return func(s *scenario) (float64, bool) {
		r := s.find(contender)
		if r == nil || s.find(r.floor) == nil {
			return 0, false
		}
		return s.allocRatio(r, s.find(r.floor)), true
	}
}

// kibAllocated is a contender's net heap allocation per call, in KiB.
func kibAllocated(contender string) func(*scenario) (float64, bool) {
	return func(s *scenario) (float64, bool) {
		r := s.find(contender)
		if r == nil {
			return 0, false
		}
		return s.median(r, false, func(o obs) float64 { return o.bytes }) / 1024, true
	}
}

// throughputVsFloor is the lesser of a contender's throughput ratios to
// its floor's: req/s as measured, and req/s as raw CPU time per request
// allows. On a quiet machine they agree; on a busy one the wall-clock ratio
// can swing either way, and a target must not pass on that swing.
func throughputVsFloor(contender string) func(*scenario) (float64, bool) {
	return func(s *scenario) (float64, bool) {
		r := s.find(contender)
		if r == nil || s.find(r.floor) == nil {
			return 0, false
		}
		f := s.find(r.floor)
		return min(s.throughputRatio(r, f), s.cpuThroughputRatio(r, f)), true
	}
}

// speedUp is how many times other's net CPU time is toolexec MCP's.
func speedUp(other string) func(*scenario) (float64, bool) {
	return func(s *scenario) (float64, bool) {
		a, b := s.find(other), s.find(mcpName)
		if a == nil || b == nil {
			return 0, false
		}
		mid, _, _ := s.ratio(a, b)
		return mid, true
	}
}

// targets are the issue's, in its order.
func targets() []target {
	ts := []target{
		{"MCP tools/call CPU ×JSON-RPC floor", "call", 0.8, true, vsFloor(mcpName)},
		{"REST call CPU ×REST floor", "call", 1.5, true, vsFloor(restName)},
		{"OXP call CPU ×JSON-RPC floor", "call", 1.8, true, vsFloor(oxpName)},
		{"MCP allocations ×JSON-RPC floor", "call", 1.5, true, allocsVsFloor(mcpName)},
		{"REST allocations ×REST floor", "call", 1.5, true, allocsVsFloor(restName)},
		{"MCP 100 KB arguments CPU ×JSON-RPC floor", "call, 100 KB args", 2, true, vsFloor(mcpName)},
		{"REST 100 KB arguments CPU ×REST floor", "call, 100 KB args", 2, true, vsFloor(restName)},
		{"MCP tools/list of 1,000 CPU ×JSON-RPC floor", "list, 1000 tools", 0.05, true, vsFloor(mcpName)},
		{"MCP tools/list of 1,000 KiB allocated/request", "list, 1000 tools", 1, true, kibAllocated(mcpName)},
	}
	for _, c := range []int{1, 16, 64} {
		s := fmt.Sprintf("loopback, %d clients", c)
		ts = append(ts,
			target{fmt.Sprintf("MCP throughput ×JSON-RPC floor's, %d clients", c), s, 0.95, false, throughputVsFloor(mcpName)},
			target{fmt.Sprintf("REST throughput ×REST floor's, %d clients", c), s, 0.95, false, throughputVsFloor(restName)})
	}
	ts = append(ts, target{"mcp-go CPU ÷ toolexec MCP CPU (speed-up)", "call", 3, false, speedUp(mcpGoName)})
	return append(ts, serveTargets()...)
}

// targets prints every target with its measured value and verdict.
func (t *results) targets(w io.Writer) {
	lines := [][]string{{"target", "scenario", "measured", "goal", "verdict"}}
	pass, total := 0, 0
	for _, tg := range targets() {
		goal := fmt.Sprintf("≥ %.2f", tg.limit)
		if tg.atMost {
			goal = fmt.Sprintf("≤ %.2f", tg.limit)
		}
		s := t.find(tg.scenario)
		if s == nil {
			lines = append(lines, []string{tg.what, tg.scenario, "-", goal, "not run"})
			continue
		}
		v, ok := tg.value(s)
		if ok && math.IsNaN(v) {
			lines = append(lines, []string{tg.what, tg.scenario, "-", goal, "no net cost"})
			continue
		}
		if !ok {
			lines = append(lines, []string{tg.what, tg.scenario, "-", goal, "no contender"})
			continue
		}
		total++
		verdict := "MISS"
		if (tg.atMost && v <= tg.limit) || (!tg.atMost && v >= tg.limit) {
			verdict = "PASS"
			pass++
		}
		lines = append(lines, []string{tg.what, tg.scenario, fmt.Sprintf("%.2f", v), goal, verdict})
	}
	fmt.Fprintln(w, "\ntargets (net of the harness where there is one, medians of rounds):")
	writeAligned(w, lines, 2)
	fmt.Fprintln(w, "throughput: the lesser of the req/s and req/cpu-s ratios.")
	fmt.Fprintf(w, "%d of %d measured targets PASS\n", pass, total)
}

// writeAligned prints lines as columns: the first left columns aligned
// left, the others right; a nil line is a blank separator.
func writeAligned(w io.Writer, lines [][]string, left int) {
	var widths []int
	for _, l := range lines {
		for i, c := range l {
			if i >= len(widths) {
				widths = append(widths, 0)
			}
			widths[i] = max(widths[i], utf8.RuneCountInString(c))
		}
	}
	for _, l := range lines {
		var b strings.Builder
		for i, c := range l {
			pad := strings.Repeat(" ", widths[i]-utf8.RuneCountInString(c))
			if i > 0 {
				b.WriteString("  ")
			}
			if i < left {
				b.WriteString(c + pad)
			} else {
				b.WriteString(pad + c)
			}
		}
		fmt.Fprintln(w, strings.TrimRight(b.String(), " "))
	}
}

func median(v []float64) float64 {
	if len(v) == 0 {
		return 0
	}
	v = slices.Clone(v)
	slices.Sort(v)
	if n := len(v); n%2 == 0 {
		return (v[n/2-1] + v[n/2]) / 2
	}
	return v[len(v)/2]
}

// div is a/b, or NaN when either is not positive (a net cost at or below
// the harness's has no meaningful ratio).
func div(a, b float64) float64 {
	if a <= 0 || b <= 0 {
		return math.NaN()
	}
	return a / b
}

func num(v float64) string {
	switch {
	case math.IsNaN(v):
		return "-"
	case v == 0:
		return "0"
	case math.Abs(v) >= 100:
		return fmt.Sprintf("%.0f", v)
	default:
		return fmt.Sprintf("%.1f", v)
	}
}

func dur(d time.Duration) string {
	if d == 0 {
		return "-"
	}
	return d.Round(time.Microsecond).String()
}

func ratio(v float64) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return "-"
	}
	return fmt.Sprintf("%.2f", v)
}
