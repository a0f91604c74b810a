package toolexec

import "context"

// TraceContext is the W3C trace context a request carried outside its
// HTTP headers (MCP 2026-07-28 puts it in a request's params._meta), each
// field exactly as sent: "" when absent. A surface puts it in the call's
// context with ContextWithTraceContext; an Observer (the OpenTelemetry one)
// continues the caller's trace from it.
type TraceContext struct {
	// Traceparent is the W3C traceparent value.
	Traceparent string
	// Tracestate is the W3C tracestate value.
	Tracestate string
	// Baggage is the W3C baggage value.
	Baggage string
}

type traceContextKey struct{}

// ContextWithTraceContext returns ctx carrying tc for the call made with it; an
// empty tc leaves ctx as it is.
func ContextWithTraceContext(ctx context.Context, tc TraceContext) context.Context {
	if tc == (TraceContext{}) {
		return ctx
	}
	return context.WithValue(ctx, traceContextKey{}, tc)
}

// TraceContextFromContext returns the trace context ContextWithTraceContext put in
// ctx, if any.
func TraceContextFromContext(ctx context.Context) (TraceContext, bool) {
	tc, ok := ctx.Value(traceContextKey{}).(TraceContext)
	return tc, ok
}

type endUserKey struct{}

// ContextWithEndUser returns ctx naming the end user an auth hook
// authenticated (a token's subject, say), for observers only: the
// OpenTelemetry observer records it as enduser.id on the call's auth span.
// It is not the caller's identity, which the cache, the limits and task
// ownership key on (see ContextWithIdentity for the two notions). It is
// meant for an identifier, never a credential. The oauth package's hook
// sets it.
func ContextWithEndUser(ctx context.Context, id string) context.Context {
	return context.WithValue(ctx, endUserKey{}, id)
}

// EndUserFromContext returns the end user ContextWithEndUser put in ctx, if
// any.
func EndUserFromContext(ctx context.Context) (string, bool) {
	id, ok := ctx.Value(endUserKey{}).(string)
	return id, ok
}
