package bench

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Each contender must answer the benchmark's requests correctly, or its
// figures mean nothing: these tests run every request the benchmarks send
// and check every answer.

func TestEveryContenderAddsTwoIntegers(t *testing.T) {
	for _, c := range Contenders() {
		t.Run(c.Name, func(t *testing.T) {
			g := NewGate()
			require.NoError(t, CheckCall(c.Wire, c.New(g), ToolAdd, []byte(`{"a":2,"b":40}`), 42))
			assert.Equal(t, int64(1), g.Ran(), "the tool ran once")
		})
	}
}

func TestEveryContenderAnswersStructuredOutput(t *testing.T) {
	for _, c := range Contenders() {
		t.Run(c.Name, func(t *testing.T) {
			rec := Serve(c.New(NewGate()), c.Wire.CallRequest(ToolAdd, []byte(`{"a":1,"b":1}`)))
			out, err := c.Wire.ParseCall(rec.Status(), rec.Header(), rec.Body())
			require.NoError(t, err)
			assert.True(t, out.Structured, "no structured output: %s", rec.Body())
		})
	}
}

func TestEveryContenderSumsLargeArguments(t *testing.T) {
	args, want := LargeSumArgs(largeArgsSize)
	require.GreaterOrEqual(t, len(args), largeArgsSize)
	for _, c := range Contenders() {
		t.Run(c.Name, func(t *testing.T) {
			require.NoError(t, CheckCall(c.Wire, c.New(NewGate()), ToolSum, args, want))
		})
	}
}

// A contender that claims to validate must refuse arguments that break the
// schema as a tool error, without running the tool.
func TestValidatingContendersRefuseArgumentsThatBreakTheSchema(t *testing.T) {
	bad := []string{
		`{"a":"two","b":40}`, // wrong type
		`{"a":2}`,            // missing required
		`{"a":2.5,"b":1}`,    // not an integer
	}
	for _, c := range Contenders() {
		if !c.Validates {
			continue
		}
		for _, args := range bad {
			t.Run(c.Name+"/"+args, func(t *testing.T) {
				g := NewGate()
				rec := Serve(c.New(g), c.Wire.CallRequest(ToolAdd, []byte(args)))
				out, err := c.Wire.ParseCall(rec.Status(), rec.Header(), rec.Body())
				require.NoError(t, err, "body: %s", rec.Body())
				assert.True(t, out.IsError, "accepted %s: %s", args, rec.Body())
				assert.Zero(t, g.Ran(), "the tool ran on arguments that break its schema")
			})
		}
	}
}

func TestEveryContenderListsAllItsToolsAndCallsTheLast(t *testing.T) {
	for _, c := range Contenders() {
		if c.NewList == nil {
			continue
		}
		for _, n := range []int{1, 100, 1000} {
			if n > listSizesMax {
				continue
			}
			t.Run(fmt.Sprintf("%s/%d", c.Name, n), func(t *testing.T) {
				h := c.NewList(n)
				require.NoError(t, CheckList(c.Wire, h, n))
				require.NoError(t, CheckCall(c.Wire, h, ListToolName(n-1), []byte(`{"a":2,"b":40}`), 42), "calling the last tool")
			})
		}
	}
}

func TestToolexecRESTServesTheOpenAPIDocumentOfItsTools(t *testing.T) {
	n := min(1000, listSizesMax)
	require.NoError(t, CheckOpenAPI(ToolexecREST().NewList(n), n))
	require.Error(t, CheckOpenAPI(ToolexecREST().NewList(n-1), n), "a missing tool is caught")
}

func TestEveryContenderAnswersOverLoopback(t *testing.T) {
	for _, c := range Contenders() {
		t.Run(c.Name, func(t *testing.T) {
			// MaxCalls ends the run; the minute only bounds a stuck one, so a
			// slow machine cannot make the count fall short.
			res, err := Loopback(c.New(NewGate()), c.Wire.CallRequest(ToolAdd, []byte(`{"a":2,"b":40}`)),
				LoadOptions{Clients: 4, Duration: time.Minute, MaxCalls: 40, Warmup: 1})
			require.NoError(t, err)
			assert.Zero(t, res.Errors)
			assert.Equal(t, 40, res.Requests)
			assert.LessOrEqual(t, res.P50, res.P99)
		})
	}
}

func TestEveryContenderHoldsWaitingCallsUntilReleased(t *testing.T) {
	for _, c := range Contenders() {
		t.Run(c.Name, func(t *testing.T) {
			// InFlightMemory fails unless all 20 calls reach the tool and wait
			// there, and each answers correctly once released. The bytes it
			// returns are noise at 20 calls (a GC in between can make them
			// negative); make bench measures them with 1,000.
			_, err := InFlightMemory(c, 20, 10*time.Second)
			require.NoError(t, err)
		})
	}
}
