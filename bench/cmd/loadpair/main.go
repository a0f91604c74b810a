// Command loadpair compares a few contenders' loopback throughput with
// the first one's, in many short alternating runs, and prints the median
// and quartiles of the ratios taken within each round: the finer-grained
// version of make bench's loopback scenarios, for checking one change.
//
//	go run ./cmd/loadpair -c 64 -n 40 -slice 300ms -names "REST floor,toolexec REST"
//
// Each round runs every contender once for -slice with -c keep-alive
// clients (bench.Loopback), in an order rotated from round to round and
// reversed on odd rounds; a contender's ratios are its req/s over the
// first contender's, and the first's CPU time per request over its own,
// in the same round. -cpuprofile writes one CPU profile of the whole run
// whose samples carry the contender's name (go tool pprof -tagfocus
// contender=...), so two contenders' profiles come from the same minutes.
// A name "+nosniff" stands for the contender before it
// with X-Content-Type-Options: nosniff added to every response.
//
// It only talks to servers it starts on 127.0.0.1.
package main

import (
	"context"
	"flag"
	"fmt"
	"net/http"
	"os"
	"runtime/pprof"
	"slices"
	"strings"
	"time"

	"github.com/toolexec/toolexec/bench"
)

type entry struct {
	name string
	c    bench.Contender
	h    http.Handler
}

func main() {
	clients := flag.Int("c", 64, "concurrent keep-alive clients")
	slice := flag.Duration("slice", 300*time.Millisecond, "wall time of one contender's run in one round")
	rounds := flag.Int("n", 40, "rounds")
	names := flag.String("names", "JSON-RPC floor,toolexec MCP", "contenders, comma-separated; the first is the reference")
	profile := flag.String("cpuprofile", "", "write a CPU profile here, each sample labelled contender=<name>")
	flag.Parse()
	if *profile != "" {
		f, err := os.Create(*profile)
		if err == nil {
			err = pprof.StartCPUProfile(f)
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "loadpair:", err)
			os.Exit(1)
		}
		defer pprof.StopCPUProfile()
	}

	entries, err := build(strings.Split(*names, ","))
	if err != nil || len(entries) < 2 {
		fmt.Fprintln(os.Stderr, "loadpair: need two or more known contenders:", err)
		os.Exit(2)
	}
	args := []byte(`{"a":2,"b":40}`)
	opts := bench.LoadOptions{Clients: *clients, Duration: *slice, MaxCalls: 200_000, Warmup: 20}
	rps := make([][]float64, len(entries))
	cpu := make([][]float64, len(entries))
	for r := range *rounds {
		for k := range entries {
			i := (k + r) % len(entries)
			if r%2 == 1 {
				i = (len(entries) - 1 - k + r) % len(entries)
			}
			e := entries[i]
			var res bench.LoadResult
			var err error
			// The label reaches every goroutine the run starts: the
			// server's, its connections' and the clients'.
			pprof.Do(context.Background(), pprof.Labels("contender", e.name), func(context.Context) {
				res, err = bench.Loopback(e.h, e.c.Wire.CallRequest(bench.ToolAdd, args), opts)
			})
			if err == nil && res.Errors > 0 {
				err = fmt.Errorf("%d failed requests", res.Errors)
			}
			if err != nil {
				fmt.Fprintf(os.Stderr, "loadpair: %s: %v\n", e.name, err)
				pprof.StopCPUProfile()
				os.Exit(1)
			}
			rps[i] = append(rps[i], res.RPS())
			cpu[i] = append(cpu[i], float64(res.CPU)/float64(res.Requests))
		}
	}
	fmt.Printf("%d clients, %d rounds of %s per contender; ratios to %s, median [quartiles]\n", *clients, *rounds, *slice, entries[0].name)
	for j := 1; j < len(entries); j++ {
		var byRPS, byCPU []float64
		for i := range rps[j] {
			byRPS = append(byRPS, rps[j][i]/rps[0][i])
			byCPU = append(byCPU, cpu[0][i]/cpu[j][i])
		}
		fmt.Printf("%-26s req/s %.3f [%.3f %.3f]   req/cpu-s %.3f [%.3f %.3f]\n", entries[j].name,
			quantile(byRPS, .5), quantile(byRPS, .25), quantile(byRPS, .75),
			quantile(byCPU, .5), quantile(byCPU, .25), quantile(byCPU, .75))
	}
}

// build returns the named contenders' handlers.
func build(names []string) ([]entry, error) {
	known := make(map[string]bench.Contender)
	for _, c := range bench.Contenders() {
		known[c.Name] = c
	}
	var out []entry
	for _, name := range names {
		name = strings.TrimSpace(name)
		if name == "+nosniff" {
			if len(out) == 0 {
				return nil, fmt.Errorf("+nosniff needs a contender before it")
			}
			prev := out[len(out)-1]
			base := prev.h
			out = append(out, entry{prev.name + " +nosniff", prev.c, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("X-Content-Type-Options", "nosniff")
				base.ServeHTTP(w, r)
			})})
			continue
		}
		c, ok := known[name]
		if !ok {
			return nil, fmt.Errorf("unknown contender %q", name)
		}
		out = append(out, entry{name, c, c.New(bench.NewGate())})
	}
	return out, nil
}

// quantile is the q-quantile of v (nearest rank), v unchanged.
func quantile(v []float64, q float64) float64 {
	v = slices.Clone(v)
	slices.Sort(v)
	return v[int(q*float64(len(v)-1)+0.5)]
}
