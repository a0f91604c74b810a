package toolexec

import (
	"context"
	"encoding/json"
	"strings"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"
)

// instrumentationName names the tracer and the meter toolexec asks the
// providers for.
const instrumentationName = "github.com/toolexec/toolexec"

// The attributes toolexec puts on its spans and metrics. docs/pipeline.md
// lists them.
const (
	attrOperation = attribute.Key("gen_ai.operation.name") // always "execute_tool"
	attrGenAITool = attribute.Key("gen_ai.tool.name")      // the tool's name
	attrErrorType = attribute.Key("error.type")            // the Code of a failed call, or "tool_error"
	attrToolName  = attribute.Key("toolexec.tool.name")    // the tool's name
	attrVersion   = attribute.Key("toolexec.tool.version") // the resolved version, when the tool has one
	attrSurface   = attribute.Key("toolexec.surface")      // rest, mcp, handsai, oxp or go
	attrStage     = attribute.Key("toolexec.stage")        // a stage span's stage; on the call, the failed stage
	attrOutcome   = attribute.Key("toolexec.outcome")      // success, tool_error (isError) or error
	attrCacheHit  = attribute.Key("toolexec.cache.hit")    // whether the cache answered
	attrArguments = attribute.Key("toolexec.arguments")    // opt-in, redacted JSON arguments
	attrDirection = attribute.Key("toolexec.transform.direction")
	attrLimitMax  = attribute.Key("toolexec.limit.max")
)

// The outcomes of a call, as attrOutcome records them.
const (
	outcomeSuccess   = "success"
	outcomeToolError = "tool_error"
	outcomeError     = "error"
)

// callSpanName is the call span's name until the tool is resolved; then it
// becomes "execute_tool NAME", as OpenTelemetry's conventions for tool
// execution name it. An unknown tool's name never reaches the span name,
// which must stay low in cardinality.
const callSpanName = "execute_tool"

// maxNameAttr bounds the requested tool name recorded on a call whose tool
// was not found: the caller chose it.
const maxNameAttr = 256

// WithTracerProvider sets where the Executor's spans go: one span per call,
// with a child span for each stage that does work (see docs/pipeline.md).
// The default is otel.GetTracerProvider() as it is when New runs; toolexec
// never sets the global provider.
func WithTracerProvider(tp trace.TracerProvider) Option {
	return func(x *Executor) { x.tracerProvider = tp }
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
	return func(x *Executor) { x.traceArguments = on }
}

// WithTraceIDFromSpan, when on, fills a result's _meta._trace_id with the
// trace id of the call's span when the handler gave none, so a caller can
// find the call's trace. A trace id the handler gave is kept. Without a
// tracer provider that records spans (and no incoming trace), there is no
// trace id to give and _meta stays as the handler left it.
func WithTraceIDFromSpan(on bool) Option {
	return func(x *Executor) { x.traceIDFromSpan = on }
}

// startStage starts the child span of one stage, under the call span in
// ctx. When the call span is not recording (no tracer provider, or the
// trace is not sampled) no stage span is made: it would not be recorded
// either, and the call stays cheap. The span returned then is a no-op.
func (t *telemetry) startStage(ctx context.Context, stage Stage, attrs ...attribute.KeyValue) (context.Context, trace.Span) {
	if !trace.SpanFromContext(ctx).IsRecording() {
		return ctx, trace.SpanFromContext(context.Background()) // the shared no-op span
	}
	ctx, span := t.tracer.Start(ctx, stageSpanName(stage))
	if span.IsRecording() {
		span.SetAttributes(attrStage.String(string(stage)))
		span.SetAttributes(attrs...)
	}
	return ctx, span
}

// endStage records the outcome of a stage (an error, or an isError result)
// on its span and ends it.
func endStage(span trace.Span, res *CallToolResult, err error) {
	if span.IsRecording() {
		recordOutcome(span, res, err, false)
	}
	span.End()
}

// recordOutcome puts error.type and the status of a failed call or stage on
// span; onCall adds the outcome and the failed stage, which a stage span
// does not need.
func recordOutcome(span trace.Span, res *CallToolResult, err error, onCall bool) {
	switch {
	case err != nil:
		e, ok := AsError(err)
		if !ok {
			e = &Error{Stage: StageIntercept, Code: CodeInternal, Message: err.Error()}
		}
		span.SetAttributes(attrErrorType.String(string(e.Code)))
		if onCall {
			span.SetAttributes(attrOutcome.String(outcomeError), attrStage.String(string(e.Stage)))
		}
		span.SetStatus(codes.Error, e.logMessage())
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

// stageSpanName is "toolexec." and the stage, as constants so that starting
// a span allocates no name.
func stageSpanName(s Stage) string {
	switch s {
	case StageAuth:
		return "toolexec.auth"
	case StageTimeout:
		return "toolexec.timeout"
	case StageLimit:
		return "toolexec.limit"
	case StageTransform:
		return "toolexec.transform"
	case StageValidate:
		return "toolexec.validate"
	case StageCache:
		return "toolexec.cache"
	case StageExecute:
		return "toolexec.execute"
	}
	return "toolexec." + string(s)
}

// redactedArguments is the JSON of args with the values of secret-looking
// keys replaced, for the toolexec.arguments attribute.
func redactedArguments(args map[string]any) (string, bool) {
	data, err := json.Marshal(redact(args))
	if err != nil {
		return "", false
	}
	return string(data), true
}

// redacted stands in for a secret value.
const redacted = "[REDACTED]"

// redact copies v, replacing the value of every object key that looks
// secret, at any depth. v is never modified.
func redact(v any) any {
	switch v := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(v))
		for k, val := range v {
			if secretKey(k) {
				out[k] = redacted
			} else {
				out[k] = redact(val)
			}
		}
		return out
	case []any:
		out := make([]any, len(v))
		for i, val := range v {
			out[i] = redact(val)
		}
		return out
	}
	return v
}

// secretKey reports whether an argument's name looks like it holds a
// secret. It errs towards redacting: "monkey" is redacted too.
func secretKey(k string) bool {
	k = strings.ToLower(k)
	for _, w := range [...]string{"password", "passwd", "secret", "token", "key", "authorization", "credential", "cookie"} {
		if strings.Contains(k, w) {
			return true
		}
	}
	return false
}
