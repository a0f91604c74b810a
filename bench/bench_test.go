package bench

import (
	"fmt"
	"testing"
	"time"
)

// Standard benchmarks, one sub-benchmark per contender, so runs compare
// with benchstat:
//
//	go test -run '^$' -bench . -count 6 > new.txt && benchstat old.txt new.txt
//
// cmd/benchtable runs the same scenarios and prints one table.

// BenchmarkNull is the harness alone: subtract it from the others.
func BenchmarkNull(b *testing.B) {
	BenchServe(b, Null(nil), WireJSONRPC.CallRequest(ToolAdd, []byte(`{"a":2,"b":40}`)))
}

func BenchmarkCall(b *testing.B) {
	for _, c := range Contenders() {
		b.Run(c.Name, func(b *testing.B) {
			BenchServe(b, c.New(NewGate()), c.Wire.CallRequest(ToolAdd, []byte(`{"a":2,"b":40}`)))
		})
	}
}

func BenchmarkCallLarge(b *testing.B) {
	args, _ := LargeSumArgs(100 << 10)
	for _, c := range Contenders() {
		b.Run(c.Name, func(b *testing.B) {
			BenchServe(b, c.New(NewGate()), c.Wire.CallRequest(ToolSum, args))
		})
	}
}

// BenchmarkCallAmong1000 calls the last of 1000 registered tools.
func BenchmarkCallAmong1000(b *testing.B) {
	for _, c := range Contenders() {
		if c.NewList == nil {
			continue
		}
		b.Run(c.Name, func(b *testing.B) {
			BenchServe(b, c.NewList(1000), c.Wire.CallRequest(ListToolName(999), []byte(`{"a":2,"b":40}`)))
		})
	}
}

func BenchmarkList(b *testing.B) {
	for _, n := range []int{1, 100, 1000} {
		for _, c := range Contenders() {
			if c.NewList == nil {
				continue
			}
			b.Run(fmt.Sprintf("tools=%d/%s", n, c.Name), func(b *testing.B) {
				BenchServe(b, c.NewList(n), c.Wire.ListRequest())
			})
		}
	}
}

// BenchmarkLoopback sends b.N calls over loopback TCP from 1, 16 and 64
// concurrent clients; ns/op is wall time per call (the inverse of
// throughput), and p50/p99 are reported as extra metrics.
func BenchmarkLoopback(b *testing.B) {
	for _, clients := range []int{1, 16, 64} {
		for _, c := range Contenders() {
			b.Run(fmt.Sprintf("clients=%d/%s", clients, c.Name), func(b *testing.B) {
				h := c.New(NewGate())
				res, err := Loopback(h, c.Wire.CallRequest(ToolAdd, []byte(`{"a":2,"b":40}`)),
					LoadOptions{Clients: clients, Duration: time.Minute, MaxCalls: b.N, Warmup: 2})
				if err != nil {
					b.Fatal(err)
				}
				if res.Errors > 0 {
					b.Fatalf("%d errors", res.Errors)
				}
				b.ReportMetric(float64(res.P50.Nanoseconds()), "p50-ns")
				b.ReportMetric(float64(res.P99.Nanoseconds()), "p99-ns")
				b.ReportMetric(res.RPS(), "req/s")
			})
		}
	}
}

// BenchmarkInFlight reports the memory held per call while 1,000 calls
// wait inside a slow tool.
func BenchmarkInFlight(b *testing.B) {
	for _, c := range Contenders() {
		b.Run(c.Name, func(b *testing.B) {
			var perCall float64
			for b.Loop() {
				v, err := InFlightMemory(c, 1000, time.Minute)
				if err != nil {
					b.Fatal(err)
				}
				perCall = v
			}
			b.ReportMetric(perCall, "B/call")
		})
	}
}
