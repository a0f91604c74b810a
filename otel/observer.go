package toolexecotel

import (
	"context"
	"log/slog"
	"time"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/baggage"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"

	"github.com/toolexec/toolexec"
)

// Observer records toolexec calls as OpenTelemetry spans and metrics; give
// it to toolexec.WithObserver. Create one with NewObserver; it is safe for
// concurrent use and may serve several Executors.
type Observer struct {
	tp              trace.TracerProvider
	mp              metric.MeterProvider
	propagator      propagation.TextMapPropagator
	logger          *slog.Logger
	traceArguments  bool
	traceIDFromSpan bool

	tracer    trace.Tracer
	inst      *instruments
	startCall []trace.SpanStartOption // the call span's options, made once
	sets      measurements
}

var _ toolexec.Observer = (*Observer)(nil)

// NewObserver returns an Observer configured by opts, its tracer and
// instruments made once, from the providers given (or the global ones as
// they are now).
func NewObserver(opts ...Option) *Observer {
	o := &Observer{}
	for _, opt := range opts {
		opt(o)
	}
	if o.tp == nil {
		o.tp = otel.GetTracerProvider()
	}
	if o.mp == nil {
		o.mp = otel.GetMeterProvider()
	}
	if o.propagator == nil {
		o.propagator = propagation.NewCompositeTextMapPropagator(propagation.TraceContext{}, propagation.Baggage{})
	}
	if o.logger == nil {
		o.logger = slog.Default()
	}
	o.tracer = o.tp.Tracer(instrumentationName)
	o.inst = newInstruments(o.mp, o.logger)
	o.startCall = []trace.SpanStartOption{trace.WithSpanKind(trace.SpanKindInternal)}
	return o
}

// ObservesArguments implements toolexec.ArgumentsObserver: with
// WithTraceArguments on, every call decodes its arguments for the span,
// typed tools' included.
func (o *Observer) ObservesArguments() bool { return o.traceArguments }

// StartCall starts the call span, under the trace context a surface found
// in the request when there is one, and the clock. It implements
// toolexec.Observer.
func (o *Observer) StartCall(ctx context.Context, info toolexec.CallInfo) (context.Context, toolexec.CallObserver) {
	if tc, ok := toolexec.TraceContextFromContext(ctx); ok {
		ctx = o.remoteParent(ctx, tc)
	}
	ctx, span := o.tracer.Start(ctx, callSpanName, o.startCall...)
	if span.IsRecording() {
		name := info.Name
		if len(name) > maxNameAttr {
			name = name[:maxNameAttr]
		}
		span.SetAttributes(attrOperation.String("execute_tool"), attrSurface.String(string(info.Surface)),
			attrGenAITool.String(name), attrToolName.String(name))
	}
	c := &call{o: o, ctx: ctx, span: span, start: time.Now(), key: metricKey{surface: info.Surface}}
	return ctx, c
}

// remoteParent returns ctx carrying the span context and baggage of tc, as
// the propagator reads them; what does not parse is ignored.
func (o *Observer) remoteParent(ctx context.Context, tc toolexec.TraceContext) context.Context {
	carrier := propagation.MapCarrier{}
	if tc.Traceparent != "" {
		carrier["traceparent"] = tc.Traceparent
	}
	if tc.Tracestate != "" {
		carrier["tracestate"] = tc.Tracestate
	}
	if tc.Baggage != "" {
		carrier["baggage"] = tc.Baggage
	}
	extracted := o.propagator.Extract(context.Background(), carrier)
	if sc := trace.SpanContextFromContext(extracted); sc.IsValid() {
		ctx = trace.ContextWithRemoteSpanContext(ctx, sc)
	}
	if b := baggage.FromContext(extracted); b.Len() > 0 {
		ctx = baggage.ContextWithBaggage(ctx, b)
	}
	return ctx
}

// call follows one call: its span, its clock and its metric attributes.
type call struct {
	o     *Observer
	ctx   context.Context // carries the call span
	span  trace.Span
	start time.Time
	tool  *toolexec.Tool // the resolved tool; nil until then
	key   metricKey      // surface, then tool and version once resolved
}

// Resolved names the span after the tool and counts the call in flight.
func (c *call) Resolved(tool *toolexec.Tool) {
	c.tool = tool
	c.key.name, c.key.version = tool.Name, tool.Version
	if c.span.IsRecording() {
		c.span.SetName(callSpanName + " " + tool.Name)
		c.span.SetAttributes(attrGenAITool.String(tool.Name), attrToolName.String(tool.Name))
		if tool.Version != "" {
			c.span.SetAttributes(attrVersion.String(tool.Version))
		}
	}
	c.o.inst.active.Add(c.ctx, 1, c.o.sets.get(c.key).add...)
}

// Arguments puts the redacted arguments on the call span when
// WithTraceArguments is on.
func (c *call) Arguments(args map[string]any) {
	if !c.o.traceArguments || !c.span.IsRecording() {
		return
	}
	if s, ok := redactedArguments(args); ok {
		c.span.SetAttributes(attrArguments.String(s))
	}
}

// StartStage starts the child span of one stage, under the call span in
// ctx. When the call span is not recording (no tracer provider, or the
// trace is not sampled) no stage span is made: it would not be recorded
// either, and the call stays cheap.
func (c *call) StartStage(ctx context.Context, info toolexec.StageInfo) (context.Context, toolexec.StageObserver) {
	if !trace.SpanFromContext(ctx).IsRecording() {
		return ctx, stage{trace.SpanFromContext(context.Background())} // the shared no-op span
	}
	ctx, span := c.o.tracer.Start(ctx, stageSpanName(info.Stage))
	if span.IsRecording() {
		span.SetAttributes(attrStage.String(string(info.Stage)))
		switch {
		case info.Stage == toolexec.StageLimit:
			span.SetAttributes(attrLimitMax.Int(info.LimitMax))
		case info.Stage == toolexec.StageValidate && info.Direction != "":
			span.SetAttributes(attrValidateDirection.String(info.Direction))
		case info.Direction != "":
			span.SetAttributes(attrDirection.String(info.Direction))
		}
	}
	return ctx, stage{span}
}

// CacheHit marks the cache stage's span and the call span.
func (c *call) CacheHit(ctx context.Context, hit bool) {
	trace.SpanFromContext(ctx).SetAttributes(attrCacheHit.Bool(hit))
	c.span.SetAttributes(attrCacheHit.Bool(hit))
}

// Resume records the end user the auth hook named (toolexec.ContextWithEndUser)
// on the auth span in ctx, then puts the call span back in ctx.
func (c *call) Resume(ctx context.Context) context.Context {
	if id, ok := toolexec.EndUserFromContext(ctx); ok {
		trace.SpanFromContext(ctx).SetAttributes(attrEndUser.String(id))
	}
	return trace.ContextWithSpan(ctx, c.span)
}

// TraceID is the call span's trace id when WithTraceIDFromSpan is on.
func (c *call) TraceID() string {
	if !c.o.traceIDFromSpan {
		return ""
	}
	if sc := c.span.SpanContext(); sc.HasTraceID() {
		return sc.TraceID().String()
	}
	return ""
}

// End records the call's outcome on its span and in the metrics, and ends
// the span.
func (c *call) End(res *toolexec.CallToolResult, err error) {
	elapsed := time.Since(c.start)
	ctx := c.ctx
	if c.span.IsRecording() {
		recordOutcome(c.span, res, err, true)
	}
	c.span.End()

	outcome := outcomeSuccess
	var e *toolexec.Error
	switch {
	case err != nil:
		outcome = outcomeError
		e, _ = toolexec.AsError(err) // Call only returns *Error
	case res != nil && res.IsError:
		outcome = outcomeToolError
	}
	done := c.key
	done.outcome = outcome
	m := c.o.sets.get(done)
	c.o.inst.calls.Add(ctx, 1, m.add...)
	c.o.inst.duration.Record(ctx, elapsed.Seconds(), m.record...)
	if e != nil {
		c.o.inst.errors.Add(ctx, 1, metric.WithAttributes(append(c.key.attrs(),
			attrStage.String(string(e.Stage)), attrErrorType.String(string(e.Code)))...))
	}
	if c.tool != nil {
		c.o.inst.active.Add(ctx, -1, c.o.sets.get(c.key).add...)
	}
}

// stage follows one stage's span.
type stage struct{ span trace.Span }

// End records the stage's outcome on its span and ends it.
func (s stage) End(res *toolexec.CallToolResult, err error) {
	if s.span.IsRecording() {
		recordOutcome(s.span, res, err, false)
	}
	s.span.End()
}

// recordOutcome puts error.type and the status of a failed call or stage on
// span; onCall adds the outcome and the failed stage, which a stage span
// does not need.
func recordOutcome(span trace.Span, res *toolexec.CallToolResult, err error, onCall bool) {
	switch {
	case err != nil:
		e, ok := toolexec.AsError(err)
		if !ok {
			e = &toolexec.Error{Stage: toolexec.StageIntercept, Code: toolexec.CodeInternal, Message: err.Error()}
		}
		span.SetAttributes(attrErrorType.String(string(e.Code)))
		if onCall {
			span.SetAttributes(attrOutcome.String(outcomeError), attrStage.String(string(e.Stage)))
		}
		span.SetStatus(codes.Error, e.Redacted())
	case res != nil && res.IsError:
		span.SetAttributes(attrErrorType.String(outcomeToolError))
		if onCall {
			span.SetAttributes(attrOutcome.String(outcomeToolError))
		}
		span.SetStatus(codes.Error, "the tool reported an error")
	case onCall:
		span.SetAttributes(attrOutcome.String(outcomeSuccess))
	}
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
