package mcp

import (
	"context"

	"github.com/toolexec/toolexec"
)

// traceContext is the W3C trace context a request carries in params._meta:
// the traceparent, tracestate and baggage keys MCP reserves for
// OpenTelemetry, each as sent (nil when absent).
type traceContext struct {
	traceparent, tracestate, baggage []byte
}

// withRemoteParent returns ctx carrying the trace context tc describes
// (toolexec.ContextWithTraceContext), so that an observer (the OpenTelemetry one)
// makes the call's span a child of the client's span and hands the
// client's baggage to the handler. It reports false, and leaves ctx alone,
// when tc holds neither a traceparent nor baggage. The values are passed on
// as sent; the observer checks them.
func withRemoteParent(ctx context.Context, tc traceContext) (context.Context, bool) {
	if tc.traceparent == nil && tc.baggage == nil {
		return ctx, false
	}
	var out toolexec.TraceContext
	out.Traceparent, _ = jsonString(tc.traceparent)
	out.Tracestate, _ = jsonString(tc.tracestate)
	out.Baggage, _ = jsonString(tc.baggage)
	if out == (toolexec.TraceContext{}) {
		return ctx, false
	}
	return toolexec.ContextWithTraceContext(ctx, out), true
}
