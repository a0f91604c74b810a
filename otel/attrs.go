package toolexecotel

import (
	"encoding/json"
	"strings"

	"go.opentelemetry.io/otel/attribute"

	"github.com/toolexec/toolexec"
)

// instrumentationName names the tracer and the meter the observer asks the
// providers for.
const instrumentationName = "github.com/toolexec/toolexec"

// The attributes put on spans and metrics. docs/pipeline.md lists them.
const (
	attrOperation         = attribute.Key("gen_ai.operation.name") // always "execute_tool"
	attrGenAITool         = attribute.Key("gen_ai.tool.name")      // the tool's name
	attrErrorType         = attribute.Key("error.type")            // the Code of a failed call, or "tool_error"
	attrEndUser           = attribute.Key("enduser.id")            // the auth hook's end user (toolexec.ContextWithEndUser)
	attrToolName          = attribute.Key("toolexec.tool.name")    // the tool's name
	attrVersion           = attribute.Key("toolexec.tool.version") // the resolved version, when the tool has one
	attrSurface           = attribute.Key("toolexec.surface")      // rest, mcp, handsai, oxp or go
	attrStage             = attribute.Key("toolexec.stage")        // a stage span's stage; on the call, the failed stage
	attrOutcome           = attribute.Key("toolexec.outcome")      // success, tool_error (isError) or error
	attrCacheHit          = attribute.Key("toolexec.cache.hit")    // whether the cache answered
	attrArguments         = attribute.Key("toolexec.arguments")    // opt-in, redacted JSON arguments
	attrDirection         = attribute.Key("toolexec.transform.direction")
	attrValidateDirection = attribute.Key("toolexec.validate.direction")
	attrLimitMax          = attribute.Key("toolexec.limit.max")
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

// stageSpanName is "toolexec." and the stage, as constants so that starting
// a span allocates no name.
func stageSpanName(s toolexec.Stage) string {
	switch s {
	case toolexec.StageAuth:
		return "toolexec.auth"
	case toolexec.StageTimeout:
		return "toolexec.timeout"
	case toolexec.StageLimit:
		return "toolexec.limit"
	case toolexec.StageTransform:
		return "toolexec.transform"
	case toolexec.StageValidate:
		return "toolexec.validate"
	case toolexec.StageCache:
		return "toolexec.cache"
	case toolexec.StageExecute:
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
