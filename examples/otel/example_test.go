package main

import (
	"context"
	"log"
	"net/http"
	"time"

	"go.opentelemetry.io/otel/exporters/stdout/stdoutmetric"
	"go.opentelemetry.io/otel/exporters/stdout/stdouttrace"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"

	"github.com/toolexec/toolexec"
	toolexecotel "github.com/toolexec/toolexec/otel"
)

// The wiring of this example, alone: spans and metrics to stdout, and the
// span's trace id in each result.
func Example_stdout() {
	reg := toolexec.NewRegistry()
	reg.MustAdd(toolexec.Tool{Name: "ping"}, func(string, map[string]any) ([]toolexec.Content, bool, string, error) {
		return []toolexec.Content{toolexec.Text("pong")}, false, "", nil
	})

	spans, _ := stdouttrace.New()
	metrics, _ := stdoutmetric.New()
	tp := sdktrace.NewTracerProvider(sdktrace.WithBatcher(spans))
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(sdkmetric.NewPeriodicReader(metrics)))
	defer tp.Shutdown(context.Background())
	defer mp.Shutdown(context.Background())

	x := toolexec.New(reg, reg,
		toolexec.WithAllowExecute(true),
		toolexec.WithObserver(toolexecotel.NewObserver(
			toolexecotel.WithTracerProvider(tp),
			toolexecotel.WithMeterProvider(mp),
			toolexecotel.WithTraceIDFromSpan(true),
		)),
	)

	srv := &http.Server{Addr: "localhost:8080", Handler: toolexec.NewHandler(x), ReadHeaderTimeout: 5 * time.Second}
	log.Fatal(srv.ListenAndServe())
}
