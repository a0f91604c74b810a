package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestScripts_ParsesAndPrintsTheBenchmarksLines(t *testing.T) {
	sr := &scriptResults{rounds: 2, cpu: map[string][]float64{}, allocs: map[string]float64{}, bytes: map[string]float64{}}
	out := `goos: linux
BenchmarkScripts/tool/go-2         	   10000	     20000 ns/op	     10000 cpu-ns/op	    2760 B/op	      49 allocs/op
BenchmarkScripts/tool/script-2     	   10000	     40000 ns/op	     20000 cpu-ns/op	    5977 B/op	     106 allocs/op
BenchmarkScripts/tool/vm-per-call-2         	     343	    753736 ns/op	    300000 cpu-ns/op	   93854 B/op	    1413 allocs/op
BenchmarkScripts/transform/none-2           	    4316	    128368 ns/op	     50000 cpu-ns/op	    4712 B/op	     110 allocs/op
BenchmarkScripts/transform/go-2             	    1832	    217186 ns/op	     60000 cpu-ns/op	    8767 B/op	     166 allocs/op
BenchmarkScripts/transform/script-2         	    1832	    217186 ns/op	     90000 cpu-ns/op	    8767 B/op	     166 allocs/op
BenchmarkScripts/transform/vm-per-call-2    	    1832	    217186 ns/op	    250000 cpu-ns/op	    8767 B/op	     166 allocs/op
PASS
`
	parseScriptBench([]byte(out), sr)
	parseScriptBench([]byte(strings.ReplaceAll(out, "     20000 cpu-ns/op", "     30000 cpu-ns/op")), sr)
	assert.Equal(t, []float64{20000, 30000}, sr.cpu["tool/script"])
	assert.Equal(t, 106.0, sr.allocs["tool/script"])
	var w bytes.Buffer
	sr.print(&w)
	assert.Contains(t, w.String(), "  a script, pooled runtimes                     25000          -     2.50      106     5977\n",
		"the median of the rounds, over Go's")
	assert.Contains(t, w.String(), "  by a script, pooled runtimes                  90000      40000     4.00      166     8767\n",
		"a transform: what it adds, over what Go's adds")
}
