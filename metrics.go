package toolexec

import (
	"log/slog"

	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/metric/noop"
)

// The metrics toolexec records, under the meter named
// "github.com/toolexec/toolexec".
const (
	// metricCalls counts calls by tool, surface and outcome.
	metricCalls = "toolexec.calls"
	// metricDuration is the time a call took, in seconds, by tool, surface
	// and outcome.
	metricDuration = "toolexec.call.duration"
	// metricErrors counts failed calls by tool, surface, stage and
	// error.type (the Code).
	metricErrors = "toolexec.call.errors"
	// metricActive is the number of calls in flight, by tool and surface.
	metricActive = "toolexec.calls.active"
)

// durationBuckets are the duration histogram's bounds, in seconds: those
// OpenTelemetry recommends for request durations, extended to a minute for
// slow tools.
func durationBuckets() []float64 {
	return []float64{0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 7.5, 10, 30, 60}
}

// WithMeterProvider sets where the Executor's metrics go: calls
// (toolexec.calls), their duration in seconds (toolexec.call.duration),
// failed calls by stage (toolexec.call.errors) and calls in flight
// (toolexec.calls.active); docs/pipeline.md lists their attributes. The
// default is otel.GetMeterProvider() as it is when New runs; toolexec never
// sets the global provider.
func WithMeterProvider(mp metric.MeterProvider) Option {
	return func(x *Executor) { x.meterProvider = mp }
}

// instruments are the Executor's metric instruments, created once by New.
type instruments struct {
	calls    metric.Int64Counter
	duration metric.Float64Histogram
	errors   metric.Int64Counter
	active   metric.Int64UpDownCounter
}

// newInstruments creates the instruments on mp. An instrument the provider
// refuses is logged and replaced by one that records nothing: metrics never
// stop calls.
func newInstruments(mp metric.MeterProvider, logger *slog.Logger) *instruments {
	m := mp.Meter(instrumentationName)
	none := noop.Meter{}
	warn := func(name string, err error) {
		logger.Warn("toolexec: metric instrument not created; it records nothing", "metric", name, "error", err)
	}
	var in instruments
	var err error
	if in.calls, err = m.Int64Counter(metricCalls, metric.WithUnit("{call}"),
		metric.WithDescription("Tool calls, by tool, surface and outcome.")); err != nil {
		warn(metricCalls, err)
		in.calls, _ = none.Int64Counter(metricCalls)
	}
	if in.duration, err = m.Float64Histogram(metricDuration, metric.WithUnit("s"),
		metric.WithDescription("Duration of tool calls, by tool, surface and outcome."),
		metric.WithExplicitBucketBoundaries(durationBuckets()...)); err != nil {
		warn(metricDuration, err)
		in.duration, _ = none.Float64Histogram(metricDuration)
	}
	if in.errors, err = m.Int64Counter(metricErrors, metric.WithUnit("{call}"),
		metric.WithDescription("Failed tool calls, by tool, surface, stage and error type.")); err != nil {
		warn(metricErrors, err)
		in.errors, _ = none.Int64Counter(metricErrors)
	}
	if in.active, err = m.Int64UpDownCounter(metricActive, metric.WithUnit("{call}"),
		metric.WithDescription("Tool calls in flight, by tool and surface.")); err != nil {
		warn(metricActive, err)
		in.active, _ = none.Int64UpDownCounter(metricActive)
	}
	return &in
}
