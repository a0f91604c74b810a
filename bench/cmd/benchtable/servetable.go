package main

import (
	"fmt"
	"io"
	"math"
	"slices"
	"time"

	"github.com/toolexec/toolexec/bench"
	"github.com/toolexec/toolexec/bench/external"
)

// serveCells is a row of a server comparison: figures as measured (there
// is no harness to take out), CPU per call in µs, and ratios of
// toolexec's to mcp-toolbox's, each the median of the ratios within
// rounds.
func (s *scenario) serveCells(r *row, name string) []string {
	p50, p99 := bench.Percentiles(slices.Clone(r.latencies))
	us := func(f func(obs) float64) string { return num(s.median(r, true, f) / 1e3) }
	db, sessions := "-", "-"
	if s.database {
		db = us(func(o obs) float64 { return o.db })
		sessions = perCall(r.sessionsPerCall())
	}
	var thru, thruCPU, rounds string
	if f := s.find(r.floor); f != nil {
		thru = ratio(s.throughputRatio(r, f))
		thruCPU = ratio(s.cpuThroughputRatio(r, f))
		if f != r && len(r.obs) > 1 {
			lo, hi := math.Inf(1), math.Inf(-1)
			for i := range min(len(r.obs), len(f.obs)) {
				q := div(r.obs[i].rps, f.obs[i].rps)
				lo, hi = min(lo, q), max(hi, q)
			}
			rounds = "-"
			if !math.IsNaN(lo) && !math.IsNaN(hi) {
				rounds = ratio(lo) + "–" + ratio(hi)
			}
		}
	}
	var vsFloor string
	if f := s.find(external.FloorName); f != nil {
		vsFloor = ratio(s.serverCPURatio(r, f))
	}
	return []string{name, r.contender, num(s.median(r, true, func(o obs) float64 { return o.rps })), dur(p50), dur(p99),
		us(func(o obs) float64 { return o.srv }), vsFloor, db, sessions, us(func(o obs) float64 { return o.cpu }), thru, thruCPU, rounds}
}

// serverCPURatio is a's server CPU time per call over b's: the median, over
// rounds, of the ratio within each round (the two ran one right after the
// other: see serveOrder).
func (s *scenario) serverCPURatio(a, b *row) float64 {
	return pairedMedian(a, b, func(x, y obs) float64 { return div(x.srv, y.srv) })
}

// sessionsPerCall is the database sessions opened over every round per
// call answered over every round: most rounds of a pool that keeps its
// connections open none, so a median would hide the few that do.
func (r *row) sessionsPerCall() float64 {
	var n, calls float64
	for _, o := range r.obs {
		n += o.sessions
		calls += o.calls
	}
	if calls == 0 {
		return math.NaN()
	}
	return n / calls
}

func perCall(v float64) string {
	switch {
	case math.IsNaN(v):
		return "-"
	case v == 0:
		return "0"
	default:
		return fmt.Sprintf("%.4f", v)
	}
}

// printServers prints what the comparison with mcp-toolbox compared, what
// it left out, and each server's size, start-up and memory, with
// toolexec's over mcp-toolbox's.
func (t *results) printServers(w io.Writer) {
	if len(t.notes) == 0 && len(t.servers) == 0 {
		return
	}
	fmt.Fprintln(w)
	for _, n := range t.notes {
		fmt.Fprintln(w, n)
	}
	if len(t.servers) > 0 {
		starts := len(t.servers[0].startups)
		fmt.Fprintf(w, "\nstart-up: median of %d starts, from starting the process to its first correct answer; RSS: resident after the load\n", starts)
		lines := [][]string{{"server", "database", "binary MiB", "start-up", "RSS MiB", "peak RSS MiB"}}
		var databases []string
		for _, sv := range t.servers {
			if !slices.Contains(databases, sv.database) {
				databases = append(databases, sv.database)
			}
		}
		for i, db := range databases {
			if i > 0 {
				lines = append(lines, nil)
			}
			for _, sv := range t.servers {
				if sv.database == db {
					lines = append(lines, []string{sv.name, db, mib(sv.size), dur(medianDuration(sv.startups)), mib(sv.mem.RSS), mib(sv.mem.Peak)})
				}
			}
			te, tb := t.server(external.ToolexecName, db), t.server(external.ToolboxName, db)
			if te == nil || tb == nil {
				continue
			}
			f := func(a, b int64) string { return ratio(div(float64(a), float64(b))) }
			lines = append(lines, []string{external.ToolexecName + " ×" + external.ToolboxName, db, f(te.size, tb.size),
				f(int64(medianDuration(te.startups)), int64(medianDuration(tb.startups))), f(te.mem.RSS, tb.mem.RSS), f(te.mem.Peak, tb.mem.Peak)})
		}
		writeAligned(w, lines, 2)
	}
	fmt.Fprint(w, `
serve vs mcp-toolbox: each server is a process of its own serving the same tools file (one SQLite tool, or the
same tool on PostgreSQL) with warnings-only logging, driven over loopback by the same clients with MCP tools/call
of one indexed row, every answer checked. "serve floor" (bench/cmd/servefloor) is that call answered by hand:
net/http, database/sql with the same driver and pool size, one QueryRow and one json.Marshal of the very bytes
toolexec serve writes, GOGC=200 as toolexec serve sets it. Each round runs each server once, toolexec right beside
each of the others (mcp-toolbox, toolexec, the floor in even rounds; the reverse in odd ones). "server cpu ×floor",
"req/s ×toolbox" and "req/cpu-s ×toolbox" are medians of the ratios within rounds ("rounds": the least and greatest
req/s ratio to mcp-toolbox); CPU per call is the server's, PostgreSQL's (every process of it) and, in "all", the
clients' as well; "sessions/call" is the PostgreSQL sessions opened during the measured runs per call answered.
`)
}

// server finds a server's figures on a database.
func (t *results) server(name, database string) *server {
	for _, sv := range t.servers {
		if sv.name == name && sv.database == database {
			return sv
		}
	}
	return nil
}

func medianDuration(d []time.Duration) time.Duration {
	v := make([]float64, len(d))
	for i, x := range d {
		v[i] = float64(x)
	}
	return time.Duration(median(v))
}

func mib(b int64) string {
	if b <= 0 {
		return "-"
	}
	return fmt.Sprintf("%.1f", float64(b)/(1<<20))
}

// serveTargets are the comparison's targets: toolexec serve's server CPU
// time per call at most 1.25 times its floor's, and its throughput at
// least twice mcp-toolbox's, on every database and client count.
func serveTargets() []target {
	var ts []target
	for _, db := range serveDatabases {
		for _, c := range serveClients {
			ts = append(ts, target{fmt.Sprintf("serve server CPU/call ×its floor's, %s, %d clients", db, c),
				serveScenario(db, c), 1.25, true, serverCPUVsFloor(external.ToolexecName)})
		}
	}
	for _, db := range serveDatabases {
		for _, c := range serveClients {
			ts = append(ts, target{fmt.Sprintf("serve throughput ×mcp-toolbox's, %s, %d clients", db, c),
				serveScenario(db, c), 2, false, throughputVsFloor(external.ToolexecName)})
		}
	}
	return ts
}

// serverCPUVsFloor is a server's CPU time per call over the serve floor's,
// paired by round.
func serverCPUVsFloor(server string) func(*scenario) (float64, bool) {
	return func(s *scenario) (float64, bool) {
		r, f := s.find(server), s.find(external.FloorName)
		if r == nil || f == nil {
			return 0, false
		}
		return s.serverCPURatio(r, f), true
	}
}
