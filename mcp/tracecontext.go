package mcp

import (
	"context"

	"go.opentelemetry.io/otel/baggage"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"
)

// traceContext is the W3C trace context a request carries in params._meta:
// the traceparent, tracestate and baggage keys MCP reserves for
// OpenTelemetry, each as sent (nil when absent).
type traceContext struct {
	traceparent, tracestate, baggage []byte
}

// withRemoteParent returns ctx carrying the trace context tc describes, so
// that the call's span becomes a child of the client's span and the
// client's baggage reaches the handler (baggage.FromContext). It reports
// false, and leaves ctx alone, when tc holds nothing valid.
func withRemoteParent(ctx context.Context, tc traceContext) (context.Context, bool) {
	if tc.traceparent == nil && tc.baggage == nil {
		return ctx, false
	}
	carrier := propagation.MapCarrier{}
	for key, raw := range map[string][]byte{"traceparent": tc.traceparent, "tracestate": tc.tracestate, "baggage": tc.baggage} {
		if s, ok := jsonString(raw); ok {
			carrier[key] = s
		}
	}
	extracted := propagation.NewCompositeTextMapPropagator(propagation.TraceContext{}, propagation.Baggage{}).
		Extract(context.Background(), carrier)
	changed := false
	if sc := trace.SpanContextFromContext(extracted); sc.IsValid() {
		ctx, changed = trace.ContextWithRemoteSpanContext(ctx, sc), true
	}
	if b := baggage.FromContext(extracted); b.Len() > 0 {
		ctx, changed = baggage.ContextWithBaggage(ctx, b), true
	}
	return ctx, changed
}
