package toolexecotel_test

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"time"

	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/toolexec/toolexec"
	toolexecotel "github.com/toolexec/toolexec/otel"
)

// The host adds the observer with its tracer provider; each call is a
// span with a child per stage that did work.
func ExampleNewObserver() {
	spans := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(spans))
	reg := toolexec.NewRegistry()
	reg.MustAdd(toolexec.Tool{Name: "greet", Options: toolexec.ToolOptions{Cache: true, CacheShared: true}},
		func(string, map[string]any) ([]toolexec.Content, bool, string, error) {
			return []toolexec.Content{toolexec.Text("Hello!")}, false, "", nil
		})
	x := toolexec.New(reg, reg, toolexec.WithAllowExecute(true),
		toolexec.WithObserver(toolexecotel.NewObserver(toolexecotel.WithTracerProvider(tp))))

	_, _ = x.Call(context.Background(), toolexec.CallRequest{Name: "greet"})
	for _, s := range spans.Ended() {
		fmt.Println(s.Name())
	}
	// Output:
	// toolexec.cache
	// toolexec.execute
	// execute_tool greet
}

// A configured Executor: defaults for every call, the observer with the
// host's providers, and one tool with options of its own.
func ExampleNewObserver_pipeline() {
	spans := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(spans))
	mp := sdkmetric.NewMeterProvider()
	reg := toolexec.NewRegistry()
	runs := 0
	searchHandler := func(_ string, args map[string]any) ([]toolexec.Content, bool, string, error) {
		runs++
		return []toolexec.Content{toolexec.Text(fmt.Sprint("results for ", args["q"]))}, false, "", nil
	}

	x := toolexec.New(reg, reg,
		toolexec.WithAllowExecute(true),
		toolexec.WithTimeout(10*time.Second),
		toolexec.WithConcurrencyLimit(toolexec.ConcurrencyLimit{Max: 64}),
		toolexec.WithObserver(toolexecotel.NewObserver(
			toolexecotel.WithTracerProvider(tp),
			toolexecotel.WithMeterProvider(mp),
		)),
	)

	reg.MustAdd(toolexec.Tool{
		Name: "search",
		Options: toolexec.ToolOptions{
			Timeout:          2 * time.Second, // replaces the 10s above
			ConcurrencyLimit: &toolexec.ConcurrencyLimit{Max: 4, FailFast: true},
			Cache:            true,
			CacheShared:      true, // the same results for every caller
			CacheTTL:         5 * time.Minute,
		},
	}, searchHandler)

	for range 2 {
		res, err := x.Call(context.Background(), toolexec.CallRequest{Name: "search", Arguments: json.RawMessage(`{"q":"otel"}`)})
		if err != nil {
			panic(err)
		}
		fmt.Println(res.Text())
	}
	fmt.Println("handler runs:", runs, "call spans:", len(spans.Ended()) > 0)
	// Output:
	// results for otel
	// results for otel
	// handler runs: 1 call spans: true
}

// WithMeterProvider adds the host's meter provider: calls are counted and
// timed, and failed ones counted apart, refused calls too.
func ExampleWithMeterProvider() {
	reader := sdkmetric.NewManualReader()
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader))
	tp := sdktrace.NewTracerProvider()
	reg := toolexec.NewRegistry()
	reg.MustAdd(toolexec.Tool{Name: "greet"}, func(string, map[string]any) ([]toolexec.Content, bool, string, error) {
		return []toolexec.Content{toolexec.Text("Hello!")}, false, "", nil
	})

	x := toolexec.New(reg, reg, toolexec.WithObserver(toolexecotel.NewObserver(
		toolexecotel.WithTracerProvider(tp),
		toolexecotel.WithMeterProvider(mp),
	)))

	_, err := x.Call(context.Background(), toolexec.CallRequest{Name: "greet"})
	e, _ := toolexec.AsError(err)
	fmt.Println("execution is off:", e.Stage, e.Code)
	var rm metricdata.ResourceMetrics
	if err := reader.Collect(context.Background(), &rm); err != nil {
		panic(err)
	}
	var names []string
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			names = append(names, m.Name)
		}
	}
	sort.Strings(names)
	fmt.Println(names)
	// Output:
	// execution is off: gate execution_disabled
	// [toolexec.call.duration toolexec.call.errors toolexec.calls]
}
