package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	goredis "github.com/redis/go-redis/v9"

	"github.com/toolexec/toolexec"
	"github.com/toolexec/toolexec/bench"
	"github.com/toolexec/toolexec/internal/balancertest"
	"github.com/toolexec/toolexec/redis"
	"github.com/toolexec/toolexec/redis/redistest"
)

// The scale scenarios (docs/scale.md): what a call pays for the shared
// store, and the throughput of one, two and three replicas behind HAProxy.
// They need redis-server (and haproxy for the second); without them they
// are left out with a note.
const (
	scenarioStore    = "shared store, per call"
	scenarioReplicas = "replicas behind HAProxy"
)

// scaleResults are the scale scenarios' figures, printed after the tables.
type scaleResults struct {
	notes    []string
	store    []storeRow
	replicas []replicaRow
}

type storeRow struct {
	name       string
	nsPerCall  float64 // median of rounds
	roundTrips float64 // to Redis, per call
	hit        bool    // the call is a cache hit
}

type replicaRow struct {
	name     string
	rps      float64 // median of rounds
	p50, p99 time.Duration
}

// storeTool is the tool of the store scenario: every call is a cache miss
// (its arguments change), takes a concurrency slot and counts against a
// rate, which never refuse.
const storeTool = "store"

func storeExecutor(store toolexec.Store) *toolexec.Executor {
	reg := toolexec.NewRegistry()
	toolexec.MustAddTool(reg, toolexec.Tool{Name: storeTool, Description: "Adds two integers.", Options: toolexec.ToolOptions{
		Cache: true, CacheShared: true,
		ConcurrencyLimit: &toolexec.ConcurrencyLimit{Max: 1 << 20},
		RateLimit:        &toolexec.RateLimit{Rate: 1 << 30},
	}}, func(_ context.Context, in bench.AddIn) (bench.SumOut, error) {
		return bench.SumOut{Sum: in.A + in.B}, nil
	})
	opts := []toolexec.Option{toolexec.WithAllowExecute(true)}
	if store != nil {
		opts = append(opts, toolexec.WithStore(store))
	}
	return toolexec.New(reg, reg, opts...)
}

// storeCost measures Executor.Call of storeTool, one call at a time, with
// the Executor's in-process default and with Redis over loopback, each for
// a cache miss and a cache hit, in alternating rounds of o.benchtime each.
func storeCost(o options, sr *scaleResults) {
	srv, err := redistest.Start()
	if err != nil {
		sr.notes = append(sr.notes, fmt.Sprintf("%s: left out (%v)", scenarioStore, err))
		return
	}
	defer srv.Close()
	client := goredis.NewClient(&goredis.Options{Addr: srv.Addr, ContextTimeoutEnabled: true})
	defer func() { _ = client.Close() }() // the benchmark is done with it
	var trips redistest.RoundTrips
	client.AddHook(&trips)
	local, shared := storeExecutor(nil), storeExecutor(redis.New(client, redis.Options{}))
	cases := []struct {
		name  string
		x     *toolexec.Executor
		hit   bool
		trips *redistest.RoundTrips
	}{
		{"in process (the default), a miss", local, false, nil},
		{"Redis over loopback, a miss", shared, false, &trips},
		{"in process (the default), a hit", local, true, nil},
		{"Redis over loopback, a hit", shared, true, &trips},
	}
	ctx := context.Background()
	var n atomic.Int64
	hitArgs := []byte(`{"a":-1,"b":1}`)
	callOnce := func(x *toolexec.Executor, hit bool) {
		args := hitArgs
		if !hit {
			args = fmt.Appendf(nil, `{"a":%d,"b":1}`, n.Add(1)) // a miss every time
		}
		if _, err := x.Call(ctx, toolexec.CallRequest{Name: storeTool, Arguments: args}); err != nil {
			fatal(fmt.Errorf("%s: %w", scenarioStore, err))
		}
	}
	for _, c := range cases { // warm up: connections, scripts, the hit's value
		for range 100 {
			callOnce(c.x, c.hit)
		}
	}
	samples := make([][]float64, len(cases))
	tripsPerCall := make([]float64, len(cases))
	for r := range o.rounds {
		for k := range cases {
			i := (k + r) % len(cases)
			c := cases[i]
			before := trips.Count()
			calls := 0
			start := time.Now()
			for time.Since(start) < o.benchtime {
				callOnce(c.x, c.hit)
				calls++
			}
			samples[i] = append(samples[i], float64(time.Since(start).Nanoseconds())/float64(calls))
			if c.trips != nil {
				tripsPerCall[i] = float64(trips.Count()-before) / float64(calls)
			}
		}
	}
	for i, c := range cases {
		sr.store = append(sr.store, storeRow{name: c.name, nsPerCall: median(samples[i]), roundTrips: tripsPerCall[i], hit: c.hit})
	}
}

// replicaThroughput serves bench's add tool (under a concurrency and a rate
// limit counted in the store) from one, two and three replica processes
// sharing a Redis behind HAProxy, and drives each set from 16 clients.
func replicaThroughput(o options, sr *scaleResults) {
	rds, err := redistest.Start()
	if err != nil {
		sr.notes = append(sr.notes, fmt.Sprintf("%s: left out (%v)", scenarioReplicas, err))
		return
	}
	defer rds.Close()
	dir, err := os.MkdirTemp("", "toolexec-benchtable-scale-")
	if err != nil {
		fatal(err)
	}
	defer func() { _ = os.RemoveAll(dir) }() // a temporary directory; the OS cleans what is left
	bin := filepath.Join(dir, "benchreplica")
	if out, err := exec.Command("go", "build", "-o", bin, "./cmd/benchreplica").CombinedOutput(); err != nil {
		fatal(fmt.Errorf("building benchreplica: %v\n%s", err, out))
	}
	var procs []*exec.Cmd
	defer func() {
		for _, p := range procs {
			_ = p.Process.Kill()
			_ = p.Wait()
		}
	}()
	start := func(args ...string) string {
		cmd := exec.Command(bin, args...)
		cmd.Stderr = os.Stderr
		out, err := cmd.StdoutPipe()
		if err != nil {
			fatal(err)
		}
		if err := cmd.Start(); err != nil {
			fatal(err)
		}
		procs = append(procs, cmd)
		line, err := bufio.NewReader(out).ReadString('\n')
		if err != nil {
			fatal(fmt.Errorf("benchreplica did not start: %w", err))
		}
		return strings.TrimSpace(line)
	}
	var replicas []string
	for range 3 {
		replicas = append(replicas, strings.TrimPrefix(start("-redis", rds.URL()), "http://"))
	}
	alone := start() // no store: the reference

	req := bench.WireREST.CallRequest(bench.ToolAdd, addArgs)
	load := func(base string) (bench.LoadResult, error) {
		return bench.Drive(base, req, bench.LoadOptions{Clients: 16, Duration: o.loadtime / time.Duration(o.rounds),
			MaxCalls: max(o.maxCalls/o.rounds, 16), Warmup: 20})
	}
	type target struct {
		name string
		url  string
	}
	targets := []target{{"1 replica, no store, no balancer", alone}, {"1 replica + Redis, no balancer", "http://" + replicas[0]}}
	for n := 1; n <= 3; n++ {
		lb, err := balancertest.Start(replicas[:n]...)
		if err != nil {
			if errors.Is(err, balancertest.ErrNotInstalled) {
				sr.notes = append(sr.notes, fmt.Sprintf("%s: left out (%v)", scenarioReplicas, err))
				return
			}
			fatal(err)
		}
		defer lb.Close()
		targets = append(targets, target{fmt.Sprintf("%d replica%s + Redis, behind HAProxy", n, map[bool]string{true: "s"}[n > 1]), lb.URL()})
	}
	rps := make([][]float64, len(targets))
	lat := make([][]time.Duration, len(targets))
	for r := range o.rounds {
		for k := range targets {
			i := (k + r) % len(targets)
			res, err := load(targets[i].url)
			if err != nil {
				fatal(fmt.Errorf("%s %s: %w", scenarioReplicas, targets[i].name, err))
			}
			if res.Errors > 0 {
				fatal(fmt.Errorf("%s %s: %d failed requests", scenarioReplicas, targets[i].name, res.Errors))
			}
			rps[i] = append(rps[i], res.RPS())
			lat[i] = append(lat[i], res.Latencies...)
		}
	}
	for i, t := range targets {
		p50, p99 := bench.Percentiles(lat[i])
		sr.replicas = append(sr.replicas, replicaRow{name: t.name, rps: median(rps[i]), p50: p50, p99: p99})
	}
}

// print writes the scale tables.
func (sr *scaleResults) print(w io.Writer) {
	if len(sr.store) == 0 && len(sr.replicas) == 0 && len(sr.notes) == 0 {
		return
	}
	fmt.Fprintf(w, "\nshared store (docs/scale.md); machine: %d CPUs, GOMAXPROCS %d\n", runtime.NumCPU(), runtime.GOMAXPROCS(0))
	if len(sr.store) > 0 {
		fmt.Fprintf(w, "\n%s: Executor.Call of a cached tool with a concurrency slot and a rate, one call at a time\n", scenarioStore)
		fmt.Fprintf(w, "%-36s %12s %12s  %22s\n", "store", "ns/call", "+ns/call", "Redis round trips/call")
		base := map[bool]float64{}
		for _, r := range sr.store {
			if _, ok := base[r.hit]; !ok {
				base[r.hit] = r.nsPerCall // the in-process row of the same kind comes first
			}
			trips := "-"
			if r.roundTrips > 0 {
				trips = strconv.FormatFloat(r.roundTrips, 'f', 2, 64)
			}
			fmt.Fprintf(w, "%-36s %12.0f %12.0f  %22s\n", r.name, r.nsPerCall, r.nsPerCall-base[r.hit], trips)
		}
	}
	if len(sr.replicas) > 0 {
		fmt.Fprintf(w, "\n%s: REST calls of a tool with a concurrency slot and a rate in Redis, 16 clients, all on this machine's %d CPUs\n",
			scenarioReplicas, runtime.NumCPU())
		fmt.Fprintf(w, "%-40s %10s %10s %10s\n", "service", "req/s", "p50", "p99")
		for _, r := range sr.replicas {
			fmt.Fprintf(w, "%-40s %10.0f %10s %10s\n", r.name, r.rps, r.p50.Round(time.Microsecond), r.p99.Round(time.Microsecond))
		}
		fmt.Fprintln(w, "(the clients, HAProxy, Redis and every replica share those CPUs: more replicas add throughput only where cores are free)")
	}
	for _, n := range sr.notes {
		fmt.Fprintln(w, n)
	}
}
