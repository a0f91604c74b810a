package main

import (
	"fmt"
	"io"
	"strings"
	"time"
	"unicode/utf8"
)

// The contenders ratios are taken against.
const (
	floorName = "floor"
	restName  = "toolexec REST"
	mcpName   = "toolexec MCP"
)

// row is one contender in one scenario. In-process scenarios fill ns, bytes
// and allocs; loopback scenarios rps, p50 and p99; the memory scenario held.
type row struct {
	scenario, contender string
	ns, cpu, bytes      float64
	allocs              float64
	rps                 float64
	p50, p99            time.Duration
	held                float64
	noRatio             bool
}

// cost is the figure ratios compare: CPU time per call (wall time, or the
// inverse of throughput, where CPU time cannot be read), or bytes held.
func (r row) cost() float64 {
	switch {
	case r.cpu > 0:
		return r.cpu
	case r.ns > 0:
		return r.ns
	case r.rps > 0:
		return 1 / r.rps
	default:
		return r.held
	}
}

type table struct{ rows []row }

func (t *table) add(r row) { t.rows = append(t.rows, r) }

func (t *table) find(scenario, contender string) (row, bool) {
	for _, r := range t.rows {
		if r.scenario == scenario && r.contender == contender {
			return r, true
		}
	}
	return row{}, false
}

// reference is toolexec's row for a scenario: its MCP surface when there is
// one (the same request the peers answer), else its REST surface.
func (t *table) reference(scenario string) (row, bool) {
	if r, ok := t.find(scenario, mcpName); ok {
		return r, true
	}
	return t.find(scenario, restName)
}

func (t *table) print(w io.Writer) {
	lines := [][]string{{"scenario", "contender", "ns/op", "cpu ns/op", "B/op", "allocs/op", "req/s", "p50", "p99", "B held/call", "×floor", "×toolexec", "allocs ×floor"}}
	last := ""
	for _, r := range t.rows {
		scenario := r.scenario
		if scenario == last {
			scenario = ""
		} else if last != "" {
			lines = append(lines, nil)
		}
		last = r.scenario
		cells := []string{scenario, r.contender,
			num(r.ns), num(r.cpu), num(r.bytes), num(r.allocs), num(r.rps), dur(r.p50), dur(r.p99), num(r.held), "", "", ""}
		const rf, rx, ra = 10, 11, 12
		if !r.noRatio {
			if f, ok := t.find(r.scenario, floorName); ok {
				cells[rf] = ratio(r.cost(), f.cost())
				if r.ns > 0 {
					cells[ra] = ratio(r.allocs, f.allocs)
				}
			}
			if x, ok := t.reference(r.scenario); ok {
				cells[rx] = ratio(r.cost(), x.cost())
			}
		}
		lines = append(lines, cells)
	}
	writeAligned(w, lines, 2)
	fmt.Fprintln(w, "×floor and ×toolexec compare cost, above 1 is slower or bigger: CPU time per call (cpu ns/op: the process's CPU time,")
	fmt.Fprintln(w, "GC included, which load from other processes barely changes; over loopback it includes the Go client's share, the same")
	fmt.Fprintln(w, "for everyone, so loopback ratios are closer to 1 than the servers' own), or bytes held per waiting call.")
	fmt.Fprintln(w, "×toolexec is relative to toolexec MCP (the request the peers answer), or toolexec REST where MCP is not built.")
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

// targets checks the targets on the in-process call scenario.
func (t *table) targets(w io.Writer) {
	const s = "call"
	floor, ok := t.find(s, floorName)
	if !ok {
		return
	}
	fmt.Fprintln(w, "\ntargets (in-process call):")
	check := func(what string, got, limit float64, atMost bool) {
		ok := got <= limit
		cmp := "<="
		if !atMost {
			ok, cmp = got >= limit, ">="
		}
		verdict := "met"
		if !ok {
			verdict = "MISSED"
		}
		fmt.Fprintf(w, "  %-52s %6.2f  (target %s %.1f)  %s\n", what, got, cmp, limit, verdict)
	}
	missing := func(what string) { fmt.Fprintf(w, "  %-52s    n/a  (contender not built yet)\n", what) }
	if r, ok := t.find(s, restName); ok {
		check("toolexec REST time ×floor", r.cost()/floor.cost(), 1.5, true)
		check("toolexec REST allocs ×floor", r.allocs/floor.allocs, 2, true)
	} else {
		missing("toolexec REST")
	}
	m, ok := t.find(s, mcpName)
	if !ok {
		missing("toolexec MCP tools/call time ×floor")
		return
	}
	check("toolexec MCP tools/call time ×floor", m.cost()/floor.cost(), 2, true)
	check("toolexec MCP allocs ×floor", m.allocs/floor.allocs, 2, true)
	if r, ok := t.find(s, "mcp-go"); ok {
		check("mcp-go time ÷ toolexec MCP (speed-up)", r.cost()/m.cost(), 2, false)
	}
	if r, ok := t.find(s, "go-sdk"); ok {
		check("go-sdk time ÷ toolexec MCP (speed-up)", r.cost()/m.cost(), 10, false)
	}
}

func num(v float64) string {
	switch {
	case v == 0:
		return "-"
	case v >= 100:
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

func ratio(a, b float64) string {
	if b == 0 || a == 0 {
		return "-"
	}
	return fmt.Sprintf("%.2f", a/b)
}
