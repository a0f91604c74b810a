package toolexecotel_test

import (
	"context"
	"fmt"

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
