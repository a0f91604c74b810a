package main

import (
	"context"
	"errors"
	"fmt"
	"io"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/exporters/otlp/otlpmetric/otlpmetrichttp"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/exporters/stdout/stdoutmetric"
	"go.opentelemetry.io/otel/exporters/stdout/stdouttrace"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"

	"github.com/toolexec/toolexec"
	toolexecotel "github.com/toolexec/toolexec/otel"
)

// telemetry turns OpenTelemetry on when the standard environment variables
// ask for it, and only then (unset means off, unlike the SDK's default):
//
//	OTEL_TRACES_EXPORTER=otlp|console    spans, OTLP over HTTP or JSON lines on out
//	OTEL_METRICS_EXPORTER=otlp|console   metrics, likewise
//
// The OTLP exporters read the rest of their settings from the standard
// variables themselves (OTEL_EXPORTER_OTLP_ENDPOINT, ..._HEADERS, ...), and
// the resource from OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES. It
// returns the Executor options that use the providers (no global provider
// is set), a description, and a shutdown function that flushes them.
func telemetry(ctx context.Context, getenv func(string) (string, bool), out io.Writer) ([]toolexec.Option, string, func(context.Context) error, error) {
	var (
		opts      []toolexecotel.Option
		shutdowns []func(context.Context) error
		desc      string
	)
	shutdown := func(ctx context.Context) error {
		var errs []error
		for _, s := range shutdowns {
			errs = append(errs, s(ctx))
		}
		return errors.Join(errs...)
	}
	res, err := resource.Merge(resource.NewSchemaless(attribute.String("service.name", "toolexec")), resource.Environment())
	if err != nil {
		res = resource.NewSchemaless(attribute.String("service.name", "toolexec"))
	}
	traces, _ := getenv("OTEL_TRACES_EXPORTER")
	switch traces {
	case "", "none":
	case "otlp", "console":
		var exp sdktrace.SpanExporter
		if traces == "otlp" {
			exp, err = otlptracehttp.New(ctx)
		} else {
			exp, err = stdouttrace.New(stdouttrace.WithWriter(out))
		}
		if err != nil {
			return nil, "", shutdown, fmt.Errorf("OTEL_TRACES_EXPORTER=%s: %w", traces, err)
		}
		tp := sdktrace.NewTracerProvider(sdktrace.WithBatcher(exp), sdktrace.WithResource(res))
		opts = append(opts, toolexecotel.WithTracerProvider(tp), toolexecotel.WithTraceIDFromSpan(true))
		shutdowns = append(shutdowns, tp.Shutdown)
		desc += " traces (" + traces + ")"
	default:
		return nil, "", shutdown, fmt.Errorf("OTEL_TRACES_EXPORTER=%q: want otlp, console or none", traces)
	}
	metrics, _ := getenv("OTEL_METRICS_EXPORTER")
	switch metrics {
	case "", "none":
	case "otlp", "console":
		var exp sdkmetric.Exporter
		if metrics == "otlp" {
			exp, err = otlpmetrichttp.New(ctx)
		} else {
			exp, err = stdoutmetric.New(stdoutmetric.WithWriter(out))
		}
		if err != nil {
			return nil, "", shutdown, fmt.Errorf("OTEL_METRICS_EXPORTER=%s: %w", metrics, err)
		}
		mp := sdkmetric.NewMeterProvider(sdkmetric.WithResource(res), sdkmetric.WithReader(sdkmetric.NewPeriodicReader(exp)))
		opts = append(opts, toolexecotel.WithMeterProvider(mp))
		shutdowns = append(shutdowns, mp.Shutdown)
		desc += " metrics (" + metrics + ")"
	default:
		return nil, "", shutdown, fmt.Errorf("OTEL_METRICS_EXPORTER=%q: want otlp, console or none", metrics)
	}
	if len(opts) == 0 {
		return nil, desc, shutdown, nil
	}
	return []toolexec.Option{toolexec.WithObserver(toolexecotel.NewObserver(opts...))}, desc, shutdown, nil
}
