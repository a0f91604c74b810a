package toolexecotel

import (
	"log/slog"

	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"
)

// Option configures an Observer.
type Option func(*Observer)

// WithTracerProvider sets where the spans go: one span per call, with a
// child span for each stage that does work. The default is
// otel.GetTracerProvider() as it is when NewObserver runs; the observer
// never sets the global provider.
func WithTracerProvider(tp trace.TracerProvider) Option {
	return func(o *Observer) { o.tp = tp }
}

// WithMeterProvider sets where the metrics go: calls (toolexec.calls),
// their duration in seconds (toolexec.call.duration), failed calls by stage
// (toolexec.call.errors) and calls in flight (toolexec.calls.active). The
// default is otel.GetMeterProvider() as it is when NewObserver runs; the
// observer never sets the global provider.
func WithMeterProvider(mp metric.MeterProvider) Option {
	return func(o *Observer) { o.mp = mp }
}

// WithPropagator sets how a trace context a surface found in the request
// (toolexec.TraceContextFromContext) is read. The default is W3C Trace
// Context and W3C Baggage.
func WithPropagator(p propagation.TextMapPropagator) Option {
	return func(o *Observer) { o.propagator = p }
}

// WithTraceArguments records each call's arguments on its span, as the JSON
// attribute toolexec.arguments, when on. They are recorded as the caller
// sent them, before any input transform. It is off by default: argument
// values never reach a span unless the host opts in. Even then, the value of
// every key that looks secret (containing password, passwd, secret, token,
// key, authorization, credential or cookie, in any case, at any depth) is
// replaced by "[REDACTED]". Bound the attribute's length with the tracer
// provider's span limits if arguments may be large.
func WithTraceArguments(on bool) Option {
	return func(o *Observer) { o.traceArguments = on }
}

// WithTraceIDFromSpan, when on, fills a result's _meta._trace_id with the
// trace id of the call's span when the handler gave none, so a caller can
// find the call's trace. A trace id the handler gave is kept. Without a
// tracer provider that records spans (and no incoming trace), there is no
// trace id to give and _meta stays as the handler left it.
func WithTraceIDFromSpan(on bool) Option {
	return func(o *Observer) { o.traceIDFromSpan = on }
}

// WithLogger sets where the observer logs a metric instrument the meter
// provider refused. The default is slog.Default() as it is when
// NewObserver runs.
func WithLogger(l *slog.Logger) Option {
	return func(o *Observer) { o.logger = l }
}
