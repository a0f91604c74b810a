package toolexec

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/trace"
)

// telemetry is what an Executor observes its calls with: the tracer, the
// metric instruments and the logger, all fixed by New.
type telemetry struct {
	tracer    trace.Tracer
	inst      *instruments
	logger    *slog.Logger
	startCall []trace.SpanStartOption // the call span's options, made once
	setsMu    sync.RWMutex
	sets      map[metricKey]*measurement // made once each; a plain map so keys are not boxed
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
	surface       Surface
	name, version string
	outcome       string // "" for the calls-in-flight gauge
}

// measurement returns the attribute set of k, built on first use.
func (t *telemetry) measurement(k metricKey) *measurement {
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

// attrs lists k's attributes.
func (k metricKey) attrs() []attribute.KeyValue {
	attrs := make([]attribute.KeyValue, 0, 4)
	attrs = append(attrs, attrSurface.String(string(k.surface)))
	if k.name != "" {
		attrs = append(attrs, attrToolName.String(k.name))
	}
	if k.version != "" {
		attrs = append(attrs, attrVersion.String(k.version))
	}
	if k.outcome != "" {
		attrs = append(attrs, attrOutcome.String(k.outcome))
	}
	return attrs
}

// newTelemetry builds the telemetry from the providers the host passed, or
// from the global ones as they are now when it passed none.
func newTelemetry(tp trace.TracerProvider, mp metric.MeterProvider, logger *slog.Logger) *telemetry {
	if tp == nil {
		tp = otel.GetTracerProvider()
	}
	if mp == nil {
		mp = otel.GetMeterProvider()
	}
	return &telemetry{tracer: tp.Tracer(instrumentationName), inst: newInstruments(mp, logger), logger: logger,
		startCall: []trace.SpanStartOption{trace.WithSpanKind(trace.SpanKindInternal)}}
}

// observation follows one call from Call's start to its end.
type observation struct {
	ctx     context.Context // carries the call span
	span    trace.Span
	start   time.Time
	surface Surface
	name    string    // the tool's name as the caller asked for it
	tool    *Tool     // the resolved tool; nil until then
	key     metricKey // the metrics' attributes: surface, then tool and version once resolved
}

// begin starts the call span and the clock.
func (t *telemetry) begin(ctx context.Context, req CallRequest) observation {
	surface := surfaceOf(req)
	ctx, span := t.tracer.Start(ctx, callSpanName, t.startCall...)
	if span.IsRecording() {
		name := req.Name
		if len(name) > maxNameAttr {
			name = name[:maxNameAttr]
		}
		span.SetAttributes(attrOperation.String("execute_tool"), attrSurface.String(string(surface)),
			attrGenAITool.String(name), attrToolName.String(name))
	}
	return observation{ctx: ctx, span: span, start: time.Now(), surface: surface, name: req.Name, key: metricKey{surface: surface}}
}

// resolved notes the tool the call runs, names the span after it and counts
// the call in flight.
func (ob *observation) resolved(t *telemetry, tool *Tool) {
	ob.tool = tool
	ob.key.name, ob.key.version = tool.Name, tool.Version
	if ob.span.IsRecording() {
		ob.span.SetName(callSpanName + " " + tool.Name)
		ob.span.SetAttributes(attrGenAITool.String(tool.Name), attrToolName.String(tool.Name))
		if tool.Version != "" {
			ob.span.SetAttributes(attrVersion.String(tool.Version))
		}
	}
	t.inst.active.Add(ob.ctx, 1, t.measurement(ob.key).add...)
}

// recordArguments puts the redacted arguments on the call span
// (WithTraceArguments).
func (ob *observation) recordArguments(args map[string]any) {
	if !ob.span.IsRecording() {
		return
	}
	if s, ok := redactedArguments(args); ok {
		ob.span.SetAttributes(attrArguments.String(s))
	}
}

// end records the call's outcome on its span, in the metrics and in the
// debug log, and ends the span.
func (t *telemetry) end(ob *observation, res *CallToolResult, err error) {
	elapsed := time.Since(ob.start)
	ctx := ob.ctx
	if ob.span.IsRecording() {
		recordOutcome(ob.span, res, err, true)
	}
	ob.span.End()

	outcome := outcomeSuccess
	var e *Error
	switch {
	case err != nil:
		outcome = outcomeError
		e, _ = AsError(err) // Call only returns *Error
	case res.IsError:
		outcome = outcomeToolError
	}
	done := ob.key
	done.outcome = outcome
	m := t.measurement(done)
	t.inst.calls.Add(ctx, 1, m.add...)
	t.inst.duration.Record(ctx, elapsed.Seconds(), m.record...)
	if e != nil {
		t.inst.errors.Add(ctx, 1, metric.WithAttributes(append(ob.key.attrs(),
			attrStage.String(string(e.Stage)), attrErrorType.String(string(e.Code)))...))
	}
	if ob.tool != nil {
		t.inst.active.Add(ctx, -1, t.measurement(ob.key).add...)
	}

	if t.logger.Enabled(ctx, slog.LevelDebug) {
		la := make([]slog.Attr, 0, 8)
		la = append(la, slog.String("tool", ob.name))
		if ob.tool != nil && ob.tool.Version != "" {
			la = append(la, slog.String("version", ob.tool.Version))
		}
		la = append(la, slog.String("surface", string(ob.surface)), slog.String("outcome", outcome), slog.Duration("duration", elapsed))
		if e != nil {
			la = append(la, slog.String("stage", string(e.Stage)), slog.String("code", string(e.Code)), slog.String("error", e.logMessage()))
		}
		t.logger.LogAttrs(ctx, slog.LevelDebug, "toolexec: call", la...)
	}
}
