package main

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// scenarioScripts is the table of script tools and transforms
// (docs/performance.md, "Scripts and transforms").
const scenarioScripts = "scripts and transforms, per call"

// scriptCase is one case of cmd/toolexec's BenchmarkScripts, as the table
// names it, and the case of the same work in Go that it is compared with
// ("" for none).
type scriptCase struct {
	bench, name, goCase, plain string
}

// scriptCases are BenchmarkScripts' cases in the table's order. plain is
// the case without the work (the tool without a transform), whose cost
// +ns/call is counted from.
var scriptCases = []scriptCase{
	{bench: "tool/go", name: "a tool that greets: in Go", goCase: "tool/go"},
	{bench: "tool/script", name: "  a script, pooled runtimes", goCase: "tool/go"},
	{bench: "tool/vm-per-call", name: "  a script, a new runtime per call", goCase: "tool/go"},
	{bench: "transform/none", name: "a SQLite tool's 10 rows, as they are", plain: "transform/none"},
	{bench: "transform/go", name: "  reshaped by a Go output transform", goCase: "transform/go", plain: "transform/none"},
	{bench: "transform/script", name: "  by a script, pooled runtimes", goCase: "transform/go", plain: "transform/none"},
	{bench: "transform/vm-per-call", name: "  by a script, a new runtime per call", goCase: "transform/go", plain: "transform/none"},
}

// scriptResults are the medians of each case of BenchmarkScripts, by its
// name, and what was left out.
type scriptResults struct {
	rounds int
	cpu    map[string][]float64 // CPU ns per call, one a round
	allocs map[string]float64
	bytes  map[string]float64
	note   string
}

// scriptCost builds cmd/toolexec's server tests once and runs their
// BenchmarkScripts o.rounds times, each case o.benchtime a round: a
// script tool and a transform through Executor.Call, against Go doing the
// same work and against a new runtime per call. The figures are the
// process's CPU time per call, medians over rounds.
func scriptCost(o options, sr *scriptResults, log io.Writer) {
	sr.rounds, sr.cpu, sr.allocs, sr.bytes = o.rounds, map[string][]float64{}, map[string]float64{}, map[string]float64{}
	root, err := repoRoot()
	if err != nil {
		fatal(err)
	}
	tmp, err := os.MkdirTemp("", "toolexec-benchtable-scripts-")
	if err != nil {
		fatal(err)
	}
	defer func() { _ = os.RemoveAll(tmp) }() // a temporary directory; the OS cleans what is left
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	bin := filepath.Join(tmp, "server.test")
	build := exec.CommandContext(ctx, "go", "test", "-c", "-o", bin, "./internal/server")
	build.Dir = filepath.Join(root, "cmd", "toolexec")
	if out, err := build.CombinedOutput(); err != nil {
		sr.note = fmt.Sprintf("%s: left out (building cmd/toolexec's tests failed: %v: %.500s)", scenarioScripts, err, out)
		return
	}
	for r := range o.rounds {
		fmt.Fprintf(log, "  round %d of %d\n", r+1, o.rounds)
		run := exec.CommandContext(ctx, bin, "-test.run", "^$", "-test.bench", "^BenchmarkScripts$", "-test.benchtime", o.benchtime.String(), "-test.count", "1")
		run.Dir = filepath.Join(root, "cmd", "toolexec", "internal", "server")
		out, err := run.CombinedOutput()
		if err != nil {
			fatal(fmt.Errorf("%s: %v: %.2000s", scenarioScripts, err, out))
		}
		parseScriptBench(out, sr)
	}
	for _, c := range scriptCases {
		if len(sr.cpu[c.bench]) == 0 {
			fatal(fmt.Errorf("%s: BenchmarkScripts reported no %s", scenarioScripts, c.bench))
		}
	}
}

// parseScriptBench reads the lines of BenchmarkScripts' cases from a run's
// output: "BenchmarkScripts/CASE-N  ITER  NS ns/op  CPU cpu-ns/op  B B/op
// A allocs/op".
func parseScriptBench(out []byte, sr *scriptResults) {
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) < 4 || !strings.HasPrefix(f[0], "BenchmarkScripts/") {
			continue
		}
		name := strings.TrimPrefix(f[0], "BenchmarkScripts/")
		if i := strings.LastIndexByte(name, '-'); i > 0 {
			if _, err := strconv.Atoi(name[i+1:]); err == nil {
				name = name[:i]
			}
		}
		for i := 2; i+1 < len(f); i += 2 {
			v, err := strconv.ParseFloat(f[i], 64)
			if err != nil {
				continue
			}
			switch f[i+1] {
			case "cpu-ns/op":
				sr.cpu[name] = append(sr.cpu[name], v)
			case "allocs/op":
				sr.allocs[name] = v
			case "B/op":
				sr.bytes[name] = v
			}
		}
	}
}

// print writes the table of scripts and transforms.
func (sr *scriptResults) print(w io.Writer) {
	if sr.note != "" {
		fmt.Fprintln(w, "\n"+sr.note)
		return
	}
	if len(sr.cpu) == 0 {
		return
	}
	fmt.Fprintf(w, "\n%s: Executor.Call of `toolexec serve`'s tools (cmd/toolexec BenchmarkScripts), one call at a time; CPU time, medians of %d rounds\n", scenarioScripts, sr.rounds)
	fmt.Fprintf(w, "%-42s %10s %10s %8s %8s %8s\n", "case", "ns/call", "+ns/call", "x Go", "allocs", "B/call")
	for _, c := range scriptCases {
		ns := median(sr.cpu[c.bench])
		plus, ratio := "-", "-"
		if c.plain != "" && c.plain != c.bench {
			plus = strconv.FormatFloat(ns-median(sr.cpu[c.plain]), 'f', 0, 64)
		}
		if c.goCase != "" {
			work, goWork := ns, median(sr.cpu[c.goCase])
			if c.plain != "" {
				// A transform's cost beside Go's: what each adds.
				base := median(sr.cpu[c.plain])
				work, goWork = ns-base, goWork-base
			}
			if goWork > 0 {
				ratio = strconv.FormatFloat(work/goWork, 'f', 2, 64)
			}
		}
		fmt.Fprintf(w, "%-42s %10.0f %10s %8s %8.0f %8.0f\n", c.name, ns, plus, ratio, sr.allocs[c.bench], sr.bytes[c.bench])
	}
	fmt.Fprintln(w, "(x Go: the script's cost over Go's doing the same work; for a transform, what each adds to the tool's call)")
}
