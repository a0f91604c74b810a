// Command servepair compares two server processes serving the same tools
// file, in many short alternating runs, and prints the median and
// quartiles of the ratios taken within each round: B's req/s over A's,
// and A's server CPU time per call over B's; then each server's resident
// memory. It is the finer-grained version of make bench's comparison with
// mcp-toolbox, for checking one change to `toolexec serve`.
//
//	go run ./cmd/servepair -a /tmp/old/toolexec            (B: this tree's build)
//	go run ./cmd/servepair -a tree -b-args '--timeout 0' -db postgres -c 1
//	go run ./cmd/servepair -b toolbox                      (B: the pinned mcp-toolbox)
//	go run ./cmd/servepair -b floor                        (B: bench/cmd/servefloor)
//	go run ./cmd/servepair -b-env GOGC=400
//
// -a and -b each name a toolexec binary, "tree" (this tree's cmd/toolexec,
// built once), "toolbox" (the pinned mcp-toolbox, installed as make bench
// installs it) or "floor" (bench/cmd/servefloor, the floor make bench
// compares toolexec serve with). Each round runs A then B, or B then A on odd rounds, for
// -slice each with -c keep-alive clients (bench.Drive), every answer
// checked. It prints both processes' ids to stderr before measuring, so a
// profiler can attach (perf record -g -p PID).
//
// It only talks to servers it starts on 127.0.0.1.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/toolexec/toolexec/bench"
	"github.com/toolexec/toolexec/bench/external"
)

func main() {
	a := flag.String("a", "tree", `server A: a toolexec binary, "tree" (build this tree's), "toolbox" or "floor"`)
	b := flag.String("b", "tree", `server B: as -a`)
	aArgs := flag.String("a-args", "", "flags added to A's command line")
	bArgs := flag.String("b-args", "", "flags added to B's command line")
	aEnv := flag.String("a-env", "", "KEY=value entries (space-separated) added to A's environment")
	bEnv := flag.String("b-env", "", "KEY=value entries (space-separated) added to B's environment")
	db := flag.String("db", "sqlite", "the tool's database: sqlite or postgres (a throw-away server)")
	clients := flag.Int("c", 16, "concurrent keep-alive clients")
	rounds := flag.Int("n", 20, "rounds")
	slice := flag.Duration("slice", 700*time.Millisecond, "wall time of one server's run in one round")
	flag.Parse()
	if err := run(*a, *b, *aArgs, *bArgs, *aEnv, *bEnv, *db, *clients, max(*rounds, 1), *slice); err != nil {
		fmt.Fprintln(os.Stderr, "servepair:", err)
		os.Exit(1)
	}
}

func run(a, b, aArgs, bArgs, aEnv, bEnv, db string, clients, rounds int, slice time.Duration) error {
	ctx := context.Background()
	tmp, err := os.MkdirTemp("", "toolexec-servepair-")
	if err != nil {
		return err
	}
	defer func() { _ = os.RemoveAll(tmp) }() // a temporary directory; the OS cleans what is left
	var tree *external.Binary
	binary := func(name string) (external.Binary, error) {
		switch name {
		case "tree":
			if tree == nil {
				root, err := filepath.Abs(filepath.Join("..")) // go run in bench/
				if err == nil && !exists(filepath.Join(root, "cmd", "toolexec", "go.mod")) {
					err = errors.New("run it in bench/")
				}
				if err != nil {
					return external.Binary{}, err
				}
				fmt.Fprintln(os.Stderr, "building toolexec serve...")
				t, err := external.BuildToolexec(ctx, root, tmp)
				if err != nil {
					return external.Binary{}, err
				}
				tree = &t
			}
			return *tree, nil
		case "toolbox":
			root, err := filepath.Abs(filepath.Join(".."))
			if err != nil {
				return external.Binary{}, err
			}
			return external.InstallToolbox(ctx, root, func(s string) { fmt.Fprintln(os.Stderr, s+"...") })
		case "floor":
			root, err := filepath.Abs(filepath.Join(".."))
			if err != nil {
				return external.Binary{}, err
			}
			return external.BuildFloor(ctx, root, tmp)
		}
		return external.ToolexecAt(ctx, name)
	}
	ba, err := binary(a)
	if err != nil {
		return err
	}
	bb, err := binary(b)
	if err != nil {
		return err
	}
	ba.Args, ba.Env = strings.Fields(aArgs), strings.Fields(aEnv)
	bb.Args, bb.Env = strings.Fields(bArgs), strings.Fields(bEnv)

	var config string
	var pg *external.Postgres
	switch db {
	case "sqlite":
		config, err = external.WriteSQLite(ctx, tmp)
	case "postgres":
		if pg, err = external.StartPostgres(); err != nil {
			return err
		}
		defer pg.Stop()
		config, err = external.WritePostgres(ctx, tmp, pg)
	default:
		err = fmt.Errorf("-db %q: sqlite or postgres", db)
	}
	if err != nil {
		return err
	}
	pa, err := ba.Start(config, external.CallRequest(), external.CheckAnswer, time.Minute)
	if err != nil {
		return err
	}
	defer pa.Stop()
	pb, err := bb.Start(config, external.CallRequest(), external.CheckAnswer, time.Minute)
	if err != nil {
		return err
	}
	defer pb.Stop()
	fmt.Fprintf(os.Stderr, "A: %s %s, pid %d\nB: %s %s, pid %d\n", ba.Path, strings.Join(ba.Args, " "), pa.PID(), bb.Path, strings.Join(bb.Args, " "), pb.PID())

	type sample struct{ rps, cpu float64 }
	measure := func(p *external.Process) (sample, error) {
		var c0, c1 time.Duration
		var cerr error
		res, err := bench.Drive(p.URL, external.CallRequest(), bench.LoadOptions{
			Clients: clients, Duration: slice, MaxCalls: 1 << 30, Warmup: 20, Check: external.QuickCheck,
			Around: func(m func()) {
				c0, cerr = p.CPU()
				m()
				if cerr == nil {
					c1, cerr = p.CPU()
				}
			}})
		if err == nil {
			err = cerr
		}
		if err == nil && res.Errors > 0 {
			err = fmt.Errorf("%d failed requests, such as: %v", res.Errors, res.FirstError)
		}
		if err == nil && res.Requests == 0 {
			err = errors.New("no request was answered")
		}
		if err != nil {
			return sample{}, err
		}
		return sample{rps: res.RPS(), cpu: float64(c1-c0) / float64(res.Requests)}, nil
	}
	var byRPS, byCPU []float64
	for r := range rounds {
		order := []*external.Process{pa, pb}
		if r%2 == 1 {
			order = []*external.Process{pb, pa}
		}
		got := map[*external.Process]sample{}
		for _, p := range order {
			s, err := measure(p)
			if err != nil {
				return fmt.Errorf("%s: %w", p.Binary.Path, err)
			}
			got[p] = s
		}
		byRPS = append(byRPS, got[pb].rps/got[pa].rps)
		if got[pb].cpu > 0 {
			byCPU = append(byCPU, got[pa].cpu/got[pb].cpu)
		}
	}
	fmt.Printf("%s, %d clients, %d rounds of %s per server; median [quartiles] of the ratios within rounds\n", db, clients, rounds, slice)
	fmt.Printf("req/s B÷A           %.3f [%.3f %.3f]\n", quantile(byRPS, .5), quantile(byRPS, .25), quantile(byRPS, .75))
	if len(byCPU) > 0 {
		fmt.Printf("server CPU/call A÷B  %.3f [%.3f %.3f]\n", quantile(byCPU, .5), quantile(byCPU, .25), quantile(byCPU, .75))
	}
	for _, p := range []*external.Process{pa, pb} {
		if m, err := p.Memory(); err == nil {
			fmt.Printf("RSS %s  %.1f MiB (peak %.1f)\n", map[*external.Process]string{pa: "A", pb: "B"}[p], float64(m.RSS)/(1<<20), float64(m.Peak)/(1<<20))
		}
	}
	return nil
}

func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// quantile is the q-quantile of v (nearest rank), v unchanged.
func quantile(v []float64, q float64) float64 {
	v = slices.Clone(v)
	slices.Sort(v)
	return v[int(q*float64(len(v)-1)+0.5)]
}
