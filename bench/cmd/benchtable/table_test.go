package main

import (
	"bytes"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolexec/toolexec/bench"
	"github.com/toolexec/toolexec/bench/external"
)

func TestMedian(t *testing.T) {
	assert.Equal(t, 2.0, median([]float64{3, 1, 2}))
	assert.Equal(t, 2.5, median([]float64{4, 1, 3, 2}))
	assert.Zero(t, median(nil))
	v := []float64{3, 1, 2}
	median(v)
	assert.Equal(t, []float64{3, 1, 2}, v, "the input is left as it was")
}

// scenarioOf builds an in-process scenario from CPU costs per round, the
// null row first.
func scenarioOf(name string, rows map[string][]float64, allocs map[string]float64) *scenario {
	s := &scenario{name: name, kind: kindInProcess}
	for _, c := range []bench.Contender{{Name: nullName}, bench.Floor(), bench.RESTFloor(), bench.ToolexecREST(), bench.ToolexecMCP(), bench.MCPGo()} {
		cpu, ok := rows[c.Name]
		if !ok {
			continue
		}
		r := newRow(c, c.Name == nullName, len(cpu))
		for i, v := range cpu {
			r.obs[i] = obs{cpu: v, wall: 2 * v, allocs: allocs[c.Name]}
		}
		s.rows = append(s.rows, r)
	}
	return s
}

func TestRatiosAreOfMediansNetOfTheSameRoundsHarness(t *testing.T) {
	s := scenarioOf("call", map[string][]float64{
		nullName:        {100, 200, 100},
		bench.FloorName: {1100, 1200, 5100}, // net 1000, 1000, 5000
		mcpName:         {1600, 1700, 1600}, // net 1500, 1500, 1500
	}, map[string]float64{nullName: 3, bench.FloorName: 31, mcpName: 66})
	mcp, floor := s.find(mcpName), s.find(bench.FloorName)
	assert.Equal(t, 1000.0, s.cost(floor))
	assert.Equal(t, 1500.0, s.cost(mcp))
	mid, lo, hi := s.ratio(mcp, floor)
	assert.Equal(t, 1.5, mid)
	assert.Equal(t, 0.3, lo)
	assert.Equal(t, 1.5, hi)
	assert.Equal(t, 63.0/28.0, s.allocRatio(mcp, floor), "allocations net of the harness's")
	assert.Equal(t, bench.FloorName, mcp.floor)
}

func TestRESTIsComparedWithTheRESTFloor(t *testing.T) {
	s := scenarioOf("call", map[string][]float64{
		nullName:            {0},
		bench.FloorName:     {1000},
		bench.RESTFloorName: {500},
		restName:            {1000},
	}, nil)
	v, ok := vsFloor(restName)(s)
	require.True(t, ok)
	assert.Equal(t, 2.0, v)
}

func TestANetCostAtOrBelowTheHarnessHasNoRatio(t *testing.T) {
	s := scenarioOf("call", map[string][]float64{
		nullName:        {100},
		bench.FloorName: {100},
		mcpName:         {200},
	}, nil)
	v, ok := vsFloor(mcpName)(s)
	require.True(t, ok)
	assert.True(t, math.IsNaN(v))
}

// A floor whose net CPU time is not positive has no ratio, even though its
// net wall time is: the cost compared is chosen once, on raw figures.
func TestANegativeNetCPUTimeIsNotReplacedByWallTime(t *testing.T) {
	s := scenarioOf("call", map[string][]float64{
		nullName:            {1000},
		bench.RESTFloorName: {900},
		restName:            {2000},
	}, nil)
	s.find(bench.RESTFloorName).obs[0].wall = 5000
	v, ok := vsFloor(restName)(s)
	require.True(t, ok)
	assert.True(t, math.IsNaN(v), "got %v", v)
}

func TestWallTimeIsComparedWhereCPUTimeIsMissing(t *testing.T) {
	s := scenarioOf("call", map[string][]float64{
		nullName:        {0},
		bench.FloorName: {1000},
		mcpName:         {1500},
	}, nil)
	v, ok := vsFloor(mcpName)(s)
	require.True(t, ok)
	assert.Equal(t, 1.5, v, "wall times are twice the CPU times in scenarioOf; the ratio is the same")
}

func TestTargetsSayPassOrMissWithTheMeasuredValue(t *testing.T) {
	res := &results{rounds: 1}
	res.add(scenarioOf("call", map[string][]float64{
		nullName:            {0},
		bench.FloorName:     {1000},
		bench.RESTFloorName: {1000},
		mcpName:             {700},
		restName:            {1600},
		mcpGoName:           {2100},
	}, map[string]float64{bench.FloorName: 10, bench.RESTFloorName: 10, mcpName: 15, restName: 16}))
	var out bytes.Buffer
	res.targets(&out)
	got := out.String()
	assert.Regexp(t, `MCP tools/call CPU ×JSON-RPC floor\s+call\s+0\.70\s+≤ 0\.80\s+PASS`, got)
	assert.Regexp(t, `REST call CPU ×REST floor\s+call\s+1\.60\s+≤ 1\.50\s+MISS`, got)
	assert.Regexp(t, `MCP allocations ×JSON-RPC floor\s+call\s+1\.50\s+≤ 1\.50\s+PASS`, got)
	assert.Regexp(t, `REST allocations ×REST floor\s+call\s+1\.60\s+≤ 1\.50\s+MISS`, got)
	assert.Regexp(t, `mcp-go CPU ÷ toolexec MCP CPU \(speed-up\)\s+call\s+3\.00\s+≥ 3\.00\s+PASS`, got)
	assert.Regexp(t, `OXP call CPU ×JSON-RPC floor\s+call\s+-\s+≤ 1\.80\s+no contender`, got)
	assert.Regexp(t, `MCP tools/list of 1,000 .*not run`, got)
	assert.Contains(t, got, "3 of 5 measured targets PASS")
}

func TestLoopbackThroughputRatiosComeFromReqPerSecondAndFromCPUTime(t *testing.T) {
	s := &scenario{name: "loopback, 1 clients", kind: kindLoopback}
	for _, c := range []struct {
		c        bench.Contender
		rps, cpu float64
	}{{bench.Contender{Name: nullName}, 1000, 50}, {bench.Floor(), 800, 100}, {bench.ToolexecMCP(), 600, 125}} {
		r := newRow(c.c, c.c.Name == nullName, 1)
		r.obs[0] = obs{rps: c.rps, cpu: c.cpu, wall: 1e9 / c.rps}
		s.rows = append(s.rows, r)
	}
	mcp, floor := s.find(mcpName), s.find(bench.FloorName)
	assert.Equal(t, 0.75, s.throughputRatio(mcp, floor))
	assert.Equal(t, 0.8, s.cpuThroughputRatio(mcp, floor))
	v, ok := throughputVsFloor(mcpName)(s)
	require.True(t, ok)
	assert.Equal(t, 0.75, v, "the lesser of the two")
	s.find(mcpName).obs[0].rps = 1000
	v, _ = throughputVsFloor(mcpName)(s)
	assert.Equal(t, 0.8, v, "a wall-clock swing above the CPU-time ratio does not count")
	mid, _, _ := s.ratio(mcp, floor)
	assert.Equal(t, 1.5, mid, "net CPU: (125-50)/(100-50)")
}

func TestPrintShowsEveryRowAndTheMethod(t *testing.T) {
	res := &results{rounds: 2}
	res.add(scenarioOf("call", map[string][]float64{
		nullName:        {100, 100},
		bench.FloorName: {1100, 1100},
		mcpName:         {1600, 1600},
	}, nil))
	var out bytes.Buffer
	res.print(&out)
	got := out.String()
	assert.Regexp(t, `call\s+null \(harness\)\s+200\s+100\s*\n`, got)
	assert.Regexp(t, `JSON-RPC floor\s+2200\s+1100\s+1000\s+0\s+0\s+1\.00\s+-\s+0\.67\s*\n`, got)
	assert.Regexp(t, `toolexec MCP\s+3200\s+1600\s+1500\s+0\s+0\s+1\.50\s+1\.50–1\.50`, got)
	assert.Contains(t, got, "median of 2 rounds")
}

func TestLoopbackRoundsRunEachFloorRightBesideItsContender(t *testing.T) {
	cases := []bench.Contender{{Name: nullName, Wire: bench.WireJSONRPC}}
	cases = append(cases, bench.Contenders()...)
	groups := loadGroups(cases, func(c bench.Contender) bench.Contender { return c })
	name := func(i int) string { return cases[i].Name }
	var got [][]string
	seen := map[int]int{}
	for _, g := range groups {
		var names []string
		for _, i := range g {
			names = append(names, name(i))
			seen[i]++
		}
		got = append(got, names)
	}
	assert.Contains(t, got, []string{bench.RESTFloorName, restName})
	assert.Contains(t, got, []string{bench.FloorName, mcpName})
	assert.Contains(t, got, []string{nullName})
	assert.Len(t, seen, len(cases), "every case runs")
	for i, n := range seen {
		assert.Equal(t, 1, n, "%s runs once a round", name(i))
	}
	for r := range 4 {
		order := roundOrder(groups, r)
		require.Len(t, order, len(cases))
		pos := map[string]int{}
		for k, i := range order {
			pos[name(i)] = k
		}
		for _, p := range [][2]string{{bench.RESTFloorName, restName}, {bench.FloorName, mcpName}} {
			d := pos[p[1]] - pos[p[0]]
			if r%2 == 0 {
				assert.Equal(t, 1, d, "round %d: %s right after %s", r, p[1], p[0])
			} else {
				assert.Equal(t, -1, d, "round %d: %s right before %s", r, p[1], p[0])
			}
		}
	}
}

func TestLoopbackRatiosAreTakenWithinEachRound(t *testing.T) {
	s := &scenario{name: "loopback, 16 clients", kind: kindLoopback}
	for _, c := range []struct {
		c        bench.Contender
		rps, cpu []float64
	}{
		{bench.Contender{Name: nullName}, []float64{2000, 4000, 8000}, []float64{50, 25, 12}},
		{bench.Floor(), []float64{1000, 2000, 4000}, []float64{100, 50, 25}},
		// Round by round: 3.9, 0.475, 0.495 of the floor's req/s.
		{bench.ToolexecMCP(), []float64{3900, 950, 1980}, []float64{100, 100, 50}},
	} {
		r := newRow(c.c, c.c.Name == nullName, 3)
		for i := range c.rps {
			r.obs[i] = obs{rps: c.rps[i], cpu: c.cpu[i]}
		}
		s.rows = append(s.rows, r)
	}
	mcp, floor := s.find(mcpName), s.find(bench.FloorName)
	assert.InDelta(t, 0.495, s.throughputRatio(mcp, floor), 1e-9, "not 1980/2000, the ratio of the medians")
	assert.InDelta(t, 0.5, s.cpuThroughputRatio(mcp, floor), 1e-9, "rounds give 1, 0.5, 0.5")
}

func TestStackRowsPrintBytesAndRatios(t *testing.T) {
	s := &scenario{name: "stack per call", kind: kindStack}
	for _, c := range []struct {
		c     bench.Contender
		stack float64
	}{{bench.Contender{Name: nullName}, 0}, {bench.Floor(), 2000}, {bench.ToolexecMCP(), 3000}} {
		r := newRow(c.c, c.c.Name == nullName, 1)
		r.obs[0].stack = c.stack
		s.rows = append(s.rows, r)
	}
	res := &results{rounds: 1}
	res.add(s)
	var out bytes.Buffer
	res.print(&out)
	assert.Regexp(t, `toolexec MCP\s+3000\s+1\.50\s+1\.00`, out.String())
	assert.Contains(t, out.String(), "stack B/call")
}

// serveScenarioOf builds a comparison of toolexec serve with mcp-toolbox
// from per-round figures: req/s, all CPU per call, sessions and calls.
func serveScenarioOf(name string, rows map[string][]obs) *scenario {
	s := &scenario{name: name, kind: kindServe, database: strings.Contains(name, "PostgreSQL")}
	for _, n := range []string{external.ToolexecName, external.ToolboxName, external.FloorName} {
		if o, ok := rows[n]; ok {
			s.rows = append(s.rows, row{contender: n, floor: external.ToolboxName, obs: o})
		}
	}
	return s
}

func TestServeThroughputIsTheLesserOfPairedRatios(t *testing.T) {
	s := serveScenarioOf(serveScenario("PostgreSQL", 16), map[string][]obs{
		external.ToolexecName: {{rps: 3000, cpu: 100, sessions: 0, calls: 3000}, {rps: 2000, cpu: 100, sessions: 2, calls: 2000}, {rps: 900, cpu: 300, calls: 900}},
		external.ToolboxName:  {{rps: 1000, cpu: 300, sessions: 0, calls: 1000}, {rps: 1000, cpu: 150, calls: 1000}, {rps: 300, cpu: 600, calls: 300}},
	})
	te, tb := s.find(external.ToolexecName), s.find(external.ToolboxName)
	assert.Equal(t, 3.0, s.throughputRatio(te, tb), "the median of 3, 2 and 3")
	assert.Equal(t, 2.0, s.cpuThroughputRatio(te, tb), "the median of 3, 1.5 and 2")
	v, ok := throughputVsFloor(external.ToolexecName)(s)
	require.True(t, ok)
	assert.Equal(t, 2.0, v)
	assert.Equal(t, 2.0/5900, te.sessionsPerCall(), "every round's sessions over every round's calls")
	assert.Zero(t, tb.sessionsPerCall())

	cells := s.serveCells(te, s.name)
	assert.Equal(t, []string{"3.00", "2.00", "2.00–3.00"}, cells[len(cells)-3:])
	assert.Equal(t, "0.0003", cells[8], "sessions per call")
}

func TestServeServerCPUIsComparedWithTheFloorRoundByRound(t *testing.T) {
	s := serveScenarioOf(serveScenario("SQLite", 16), map[string][]obs{
		external.ToolexecName: {{rps: 3000, srv: 120, calls: 1}, {rps: 3000, srv: 100, calls: 1}, {rps: 3000, srv: 300, calls: 1}},
		external.ToolboxName:  {{rps: 1000, srv: 400, calls: 1}, {rps: 1000, srv: 400, calls: 1}, {rps: 1000, srv: 400, calls: 1}},
		external.FloorName:    {{rps: 4000, srv: 100, calls: 1}, {rps: 4000, srv: 100, calls: 1}, {rps: 4000, srv: 200, calls: 1}},
	})
	v, ok := serverCPUVsFloor(external.ToolexecName)(s)
	require.True(t, ok)
	assert.Equal(t, 1.2, v, "the median of 1.2, 1 and 1.5")
	assert.Equal(t, "1.20", s.serveCells(s.find(external.ToolexecName), s.name)[6])
	assert.Equal(t, "1.00", s.serveCells(s.find(external.FloorName), s.name)[6])

	res := &results{rounds: 3}
	res.add(s)
	var out bytes.Buffer
	res.targets(&out)
	assert.Regexp(t, `serve server CPU/call ×its floor's, SQLite, 16 clients\s+serve vs mcp-toolbox, SQLite, 16 clients\s+1\.20\s+≤ 1\.25\s+PASS`, out.String())
}

func TestServeOrderPutsToolexecBesideEachOtherServer(t *testing.T) {
	assert.Equal(t, []int{1, 0, 2}, serveOrder(3, 0))
	assert.Equal(t, []int{2, 0, 1}, serveOrder(3, 1))
	assert.Equal(t, []int{0, 1}, serveOrder(2, 0), "no mcp-toolbox: toolexec and the floor")
	assert.Equal(t, []int{1, 0}, serveOrder(2, 1))
}

func TestServeTargetsNeedBothServers(t *testing.T) {
	res := &results{rounds: 1}
	res.add(serveScenarioOf(serveScenario("SQLite", 1), map[string][]obs{
		external.ToolexecName: {{rps: 2500, cpu: 100, calls: 1}},
		external.ToolboxName:  {{rps: 1000, cpu: 300, calls: 1}},
	}))
	res.add(serveScenarioOf(serveScenario("SQLite", 16), map[string][]obs{
		external.ToolexecName: {{rps: 1500, cpu: 100, calls: 1}},
		external.ToolboxName:  {{rps: 1000, cpu: 300, calls: 1}},
	}))
	res.add(serveScenarioOf(serveScenario("PostgreSQL", 1), map[string][]obs{
		external.ToolexecName: {{rps: 1500, cpu: 100, calls: 1}},
	}))
	var out bytes.Buffer
	res.targets(&out)
	got := out.String()
	assert.Regexp(t, `serve throughput ×mcp-toolbox's, SQLite, 1 clients\s+serve vs mcp-toolbox, SQLite, 1 clients\s+2\.50\s+≥ 2\.00\s+PASS`, got)
	assert.Regexp(t, `serve throughput ×mcp-toolbox's, SQLite, 16 clients\s+serve vs mcp-toolbox, SQLite, 16 clients\s+1\.50\s+≥ 2\.00\s+MISS`, got)
	assert.Regexp(t, `serve throughput ×mcp-toolbox's, PostgreSQL, 1 clients\s+.*no contender`, got)
	assert.Regexp(t, `serve throughput ×mcp-toolbox's, PostgreSQL, 16 clients\s+.*not run`, got)
	assert.Contains(t, got, "1 of 2 measured targets PASS")
}

func TestPrintShowsTheServersSideBySide(t *testing.T) {
	res := &results{rounds: 1}
	res.add(serveScenarioOf(serveScenario("SQLite", 1), map[string][]obs{
		external.ToolexecName: {{rps: 2500, cpu: 100e3, srv: 60e3, calls: 1}},
		external.ToolboxName:  {{rps: 1000, cpu: 300e3, srv: 250e3, calls: 1}},
	}))
	res.note("mcp-toolbox: version 1.12.0")
	res.servers = []*server{
		{name: external.ToolexecName, database: "SQLite", size: 40 << 20, startups: []time.Duration{30 * time.Millisecond, 10 * time.Millisecond, 20 * time.Millisecond}, mem: external.Memory{RSS: 30 << 20, Peak: 32 << 20}},
		{name: external.ToolboxName, database: "SQLite", size: 320 << 20, startups: []time.Duration{80 * time.Millisecond, 90 * time.Millisecond, 100 * time.Millisecond}, mem: external.Memory{RSS: 100 << 20, Peak: 128 << 20}},
	}
	var out bytes.Buffer
	res.print(&out)
	got := out.String()
	assert.Regexp(t, `serve vs mcp-toolbox, SQLite, 1 clients\s+toolexec serve\s+2500\s+-\s+-\s+60\.0\s+-\s+-\s+100\s+2\.50\s+3\.00\s*\n`, got)
	assert.Contains(t, got, "mcp-toolbox: version 1.12.0")
	assert.Regexp(t, `toolexec serve\s+SQLite\s+40\.0\s+20ms\s+30\.0\s+32\.0\n`, got)
	assert.Regexp(t, `mcp-toolbox\s+SQLite\s+320\.0\s+90ms\s+100\.0\s+128\.0\n`, got)
	assert.Regexp(t, `toolexec serve ×mcp-toolbox\s+SQLite\s+0\.12\s+0\.22\s+0\.30\s+0\.25\n`, got)
	assert.NotContains(t, got, "null row", "no harness paragraph without a harness")
}
