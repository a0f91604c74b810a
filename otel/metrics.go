package toolexecotel

import (
	"log/slog"
	"sync"

	"go.opentelemetry.io/otel/attribute"

	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/metric/noop"

	"github.com/toolexec/toolexec"
)

// The metrics the observer records, under the meter named
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

// maxMeasurements bounds the attribute sets kept: tools times surfaces
// times outcomes, for any host with a reasonable number of tools.
const maxMeasurements = 4096

// measurement is one attribute set as the instruments take it: ready-made
// option slices, because a variadic slice passed to an instrument (an
// interface) would otherwise be allocated on every call.
type measurement struct {
	add    []metric.AddOption
	record []metric.RecordOption
}

// metricKey names one combination of the metrics' attributes. Only
// resolved tools have a name here, so callers cannot grow the combinations
// by asking for made-up tools: they are bounded by the tools served.
type metricKey struct {
	surface       toolexec.Surface
	name, version string
	outcome       string // "" for the calls-in-flight gauge
}

// measurements are the attribute sets made so far, each once; a plain map
// so keys are not boxed.
type measurements struct {
	setsMu sync.RWMutex
	sets   map[metricKey]*measurement
}

// get returns the attribute set of k, built on first use.
func (t *measurements) get(k metricKey) *measurement {
	t.setsMu.RLock()
	m, ok := t.sets[k]
	t.setsMu.RUnlock()
	if ok {
		return m
	}
	t.setsMu.Lock()
	defer t.setsMu.Unlock()
	if m, ok := t.sets[k]; ok {
		return m
	}
	if t.sets == nil {
		t.sets = make(map[metricKey]*measurement)
	}
	set := metric.WithAttributeSet(attribute.NewSet(k.attrs()...))
	m = &measurement{add: []metric.AddOption{set}, record: []metric.RecordOption{set}}
	if len(t.sets) < maxMeasurements { // beyond, a provider minting tools gets fresh sets per call
		t.sets[k] = m
	}
	return m
}
