// Package toolexecotel traces and measures toolexec calls with
// OpenTelemetry. It is its own module, so that a host that does not use
// OpenTelemetry does not depend on it.
//
// A host adds it as the Executor's observer:
//
//	x := toolexec.New(reg, reg, toolexec.WithObserver(toolexecotel.NewObserver(
//		toolexecotel.WithTracerProvider(tp),
//		toolexecotel.WithMeterProvider(mp),
//	)))
//
// Every call then gets a span ("execute_tool NAME", following
// OpenTelemetry's conventions for tool execution) with a child span for
// each stage that does work (toolexec.auth, toolexec.limit,
// toolexec.transform, toolexec.validate, toolexec.cache,
// toolexec.execute), and four metrics: toolexec.calls,
// toolexec.call.duration, toolexec.call.errors and toolexec.calls.active.
// docs/pipeline.md lists their attributes.
//
// A W3C trace context a surface found in the request
// (toolexec.ContextWithTraceContext: MCP 2026-07-28's params._meta) makes the
// call's span a child of the caller's, and its baggage reaches the handler.
package toolexecotel
