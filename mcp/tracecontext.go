package mcp

import (
	"context"

	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"
)

// withRemoteParent returns ctx carrying the W3C trace context a request
// sent in params._meta (the traceparent and tracestate keys MCP reserves for
// OpenTelemetry), so that the call's span becomes its child. It reports
// false, and leaves ctx alone, when there is none or it is not valid.
func withRemoteParent(ctx context.Context, traceparent, tracestate []byte) (context.Context, bool) {
	if traceparent == nil {
		return ctx, false
	}
	parent, ok := jsonString(traceparent)
	if !ok {
		return ctx, false
	}
	carrier := propagation.MapCarrier{"traceparent": parent}
	if state, ok := jsonString(tracestate); ok {
		carrier["tracestate"] = state
	}
	sc := trace.SpanContextFromContext(propagation.TraceContext{}.Extract(context.Background(), carrier))
	if !sc.IsValid() {
		return ctx, false
	}
	return trace.ContextWithRemoteSpanContext(ctx, sc), true
}
