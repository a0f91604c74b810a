package main

import (
	"context"
	"errors"
	"io"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/exporters/stdout/stdoutmetric"
	"go.opentelemetry.io/otel/exporters/stdout/stdouttrace"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"

	"github.com/toolexec/toolexec"
	toolexecotel "github.com/toolexec/toolexec/otel"
)

// telemetry turns on OpenTelemetry when the standard environment variables
// ask for the console exporter: OTEL_TRACES_EXPORTER=console writes each
// span as a JSON line to out, OTEL_METRICS_EXPORTER=console writes the
// metrics every 10 seconds (and once more at shutdown). It returns the
// Executor options that use the providers, a description for the banner,
// and a shutdown function that flushes them.
//
// The providers are handed to the toolexec OpenTelemetry observer (module
// github.com/toolexec/toolexec/otel); no global provider is set.
func telemetry(getenv func(string) string, out io.Writer) ([]toolexec.Option, string, func(context.Context) error, error) {
	var otelOpts []toolexecotel.Option
	var shutdowns []func(context.Context) error
	var desc string
	res := resource.NewSchemaless(attribute.String("service.name", "toolexec-example-server"))

	if getenv("OTEL_TRACES_EXPORTER") == "console" {
		exp, err := stdouttrace.New(stdouttrace.WithWriter(out))
		if err != nil {
			return nil, "", nil, err
		}
		tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(exp), sdktrace.WithResource(res))
		otelOpts = append(otelOpts, toolexecotel.WithTracerProvider(tp), toolexecotel.WithTraceIDFromSpan(true))
		shutdowns = append(shutdowns, tp.Shutdown)
		desc += " traces"
	}
	if getenv("OTEL_METRICS_EXPORTER") == "console" {
		exp, err := stdoutmetric.New(stdoutmetric.WithWriter(out))
		if err != nil {
			return nil, "", nil, err
		}
		mp := sdkmetric.NewMeterProvider(sdkmetric.WithResource(res),
			sdkmetric.WithReader(sdkmetric.NewPeriodicReader(exp, sdkmetric.WithInterval(10*time.Second))))
		otelOpts = append(otelOpts, toolexecotel.WithMeterProvider(mp))
		shutdowns = append(shutdowns, mp.Shutdown)
		desc += " metrics"
	}
	shutdown := func(ctx context.Context) error {
		var errs []error
		for _, s := range shutdowns {
			errs = append(errs, s(ctx))
		}
		return errors.Join(errs...)
	}
	var opts []toolexec.Option
	if len(otelOpts) > 0 {
		opts = append(opts, toolexec.WithObserver(toolexecotel.NewObserver(otelOpts...)))
	}
	return opts, desc, shutdown, nil
}
