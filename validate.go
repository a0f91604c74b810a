package toolexec

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/toolexec/toolexec/internal/rawjson"
	"github.com/toolexec/toolexec/internal/schema"
)

// WithValidation turns schema validation of calls on (the default) or off.
// When on, every call's arguments are checked against the tool's
// InputSchema before the handler runs, and a result's StructuredContent
// against the tool's OutputSchema after it; see docs/validation.md.
// ToolOptions.SkipValidation turns it off for one tool. Neither switch
// affects Executor.Validate or POST /tools/{name}/validate, which always
// validate because they are asked to.
func WithValidation(enabled bool) Option {
	return func(x *Executor) { x.noValidation = !enabled }
}

// Validate checks args, a JSON value, against the InputSchema of the tool
// name in version ("" is the latest), with the validator a call's
// validation stage uses, without running anything: no gate, no auth hook,
// no interceptor, no handler. It checks args as given: a call's input
// transforms, which run before its validation stage, do not run here. It is the engine of POST /tools/{name}/validate and serves
// any surface or host that wants the same answer in-process.
//
// The only error is for a tool that does not exist (an *Error with
// CodeNotFound). Everything else is a ValidateResult:
//   - a tool without an InputSchema accepts everything;
//   - args that are not JSON (empty included: unlike a call, nothing is
//     read as {}) fail with one failure, keyword "format", path "";
//   - a schema that cannot be compiled fails with one failure, keyword
//     "schema", path "", whose message starts "Invalid schema: ";
//   - a number beyond MaxNumberDigits or MaxNumberExponent fails with
//     keyword "format" at its path, and such numbers are then all that is
//     reported (the schema is not checked: exact arithmetic on them would
//     cost too much);
//   - otherwise each way args break the schema is one failure, at most
//     MaxValidationFailures of them within MaxFailureBytes (the rest are
//     counted in Omitted).
func (x *Executor) Validate(ctx context.Context, name, version string, args json.RawMessage) (ValidateResult, error) {
	tool, ok := x.Lookup(name, version)
	if !ok {
		return ValidateResult{}, notFound(name, version)
	}
	v, err := decodeJSON(args)
	if err != nil {
		return ValidateResult{Errors: []ValidationFailure{invalidJSON(err)}}, nil
	}
	return x.validateInput(&tool, v), nil
}

// decodeJSON decodes one JSON value, numbers kept exact.
func decodeJSON(data []byte) (any, error) {
	if len(rawjson.TrimSpace(data)) == 0 {
		return nil, fmt.Errorf("the body is empty")
	}
	return schema.DecodeJSON(data)
}

func invalidJSON(err error) ValidationFailure {
	return ValidationFailure{Path: "", Message: "Invalid JSON: " + schema.OneLine(err.Error()), Keyword: "format"}
}

// validateInput checks v against t's InputSchema.
func (x *Executor) validateInput(t *Tool, v any) ValidateResult {
	if len(t.InputSchema) == 0 {
		return ValidateResult{Valid: true}
	}
	cs := x.compiled(t, false)
	if err := cs.Err(); err != nil {
		return ValidateResult{Errors: []ValidationFailure{{Path: "", Message: "Invalid schema: " + err.Error(), Keyword: "schema"}}}
	}
	if fs, omitted := cs.Validate(v); len(fs) > 0 || omitted > 0 {
		return ValidateResult{Errors: failuresOf(fs), Omitted: omitted}
	}
	return ValidateResult{Valid: true}
}

// compiled returns t's input (or output) schema compiled, from the cache.
func (x *Executor) compiled(t *Tool, output bool) *schema.Compiled {
	raw := t.InputSchema
	if output {
		raw = t.OutputSchema
	}
	return x.schemas.Get(schema.Key{Name: t.Name, Version: t.Version, Output: output}, raw)
}

// schemaIDs lists the tools the provider serves now, for the schema cache
// to drop the schemas of tools that are gone.
func (x *Executor) schemaIDs() []schema.ID {
	tools := x.tools.Tools()
	ids := make([]schema.ID, len(tools))
	for i := range tools {
		ids[i] = schema.ID{Name: tools[i].Name, Version: tools[i].Version}
	}
	return ids
}

// validationInterceptor is the validation stage. It does nothing when
// validation is off (WithValidation(false), or the tool's
// ToolOptions.SkipValidation) or the tool has no schema.
//
// Before the handler, it checks the arguments against the InputSchema: a
// failure ends the call with an *Error of StageValidate,
// CodeInvalidArguments and the failures. Both schemas are compiled (once,
// from the cache) before the handler runs, so a broken schema stops the
// call before anything happens. After the handler, a successful result's
// StructuredContent is checked against the OutputSchema: a mismatch is
// logged and reported as a tool error.
func (x *Executor) validationInterceptor(next CallFunc) CallFunc {
	return func(ctx context.Context, call *Call) (*CallToolResult, error) {
		t := &call.Tool
		if x.noValidation || t.Options.SkipValidation || (len(t.InputSchema) == 0 && len(t.OutputSchema) == 0) {
			return next(ctx, call)
		}
		if err := x.validateArguments(ctx, call); err != nil {
			return nil, err
		}
		res, err := next(ctx, call)
		if err != nil || len(t.OutputSchema) == 0 || res == nil || res.IsError || res.StructuredContent == nil {
			return res, err
		}
		if sc, ok := res.StructuredContent.(json.RawMessage); ok && sameBytes(sc, call.conforming) {
			return res, nil // valid by construction: see encodesExactly
		}
		sctx, st := call.observer().StartStage(ctx, StageInfo{Stage: StageValidate, Direction: "output"})
		err = x.checkOutput(sctx, t, x.compiled(t, true), res.StructuredContent)
		st.End(nil, err)
		if err != nil {
			return nil, err
		}
		return res, nil
	}
}

// validateArguments is the part of the stage before the handler, traced as
// the validate stage.
func (x *Executor) validateArguments(ctx context.Context, call *Call) (err error) {
	ctx, st := call.observer().StartStage(ctx, StageInfo{Stage: StageValidate, Direction: "input"})
	defer func() { st.End(nil, err) }()
	t := &call.Tool
	var in *schema.Compiled
	if len(t.InputSchema) > 0 {
		if in = x.compiled(t, false); in.Err() != nil {
			return x.brokenSchema(ctx, t, "inputSchema", in.Err())
		}
	}
	if len(t.OutputSchema) > 0 {
		if out := x.compiled(t, true); out.Err() != nil {
			return x.brokenSchema(ctx, t, "outputSchema", out.Err())
		}
	}
	if in == nil || call.input != nil {
		return nil // call.input: checked by its typed handler (checkedInput)
	}
	v, verr := schema.JSONValue(call.Arguments)
	if verr != nil {
		return &Error{Stage: StageValidate, Code: CodeInvalidArguments, Message: "arguments are not JSON: " + verr.Error(), Err: verr}
	}
	if sfs, omitted := in.Validate(v); len(sfs) > 0 || omitted > 0 {
		fs := failuresOf(sfs)
		return &Error{Stage: StageValidate, Code: CodeInvalidArguments, Message: failureSummary(fs, omitted), Failures: fs, Omitted: omitted}
	}
	return nil
}

// checkOutput validates a result's structured content; a mismatch is the
// tool's fault, not the caller's, so it is logged in full and the caller
// gets a tool error whose developer message holds the details.
func (x *Executor) checkOutput(ctx context.Context, t *Tool, out *schema.Compiled, structured any) error {
	v, err := schema.JSONValue(structured)
	var fs []ValidationFailure
	omitted := 0
	if err != nil {
		fs = []ValidationFailure{{Message: "structuredContent is not JSON: " + err.Error(), Keyword: "format"}}
	} else {
		var sfs []schema.Failure
		sfs, omitted = out.Validate(v)
		fs = failuresOf(sfs)
	}
	if len(fs) == 0 && omitted == 0 {
		return nil
	}
	detail := failureLines(fs, "; ", omitted)
	x.logger.ErrorContext(ctx, "toolexec: tool output does not match its outputSchema",
		"tool", t.Name, "version", t.Version, "failures", detail)
	msg := "The tool's output does not match its output schema."
	return &Error{Stage: StageValidate, Code: CodeToolError, Message: msg,
		Err: &ToolError{Message: msg, DeveloperMessage: "outputSchema: " + detail}}
}

// brokenSchema reports a tool schema that cannot be compiled: a fault of
// the host, logged at error level, and never the caller's.
func (x *Executor) brokenSchema(ctx context.Context, t *Tool, which string, err error) *Error {
	x.logger.ErrorContext(ctx, "toolexec: tool schema cannot be compiled",
		"tool", t.Name, "version", t.Version, "schema", which, "error", err)
	return &Error{Stage: StageValidate, Code: CodeInternal,
		Message: fmt.Sprintf("Invalid schema: the %s of tool %q cannot be used: %v", which, t.Name, err), Err: err}
}

// failureSummary is the one-line message of a failed validation.
func failureSummary(fs []ValidationFailure, omitted int) string {
	return "Invalid arguments: " + failureLines(fs, "; ", omitted)
}

// failureLines writes each failure as "path: message", the root as
// "(root)", joined by sep, and ends with a line saying how many more were
// omitted, when any were.
func failureLines(fs []ValidationFailure, sep string, omitted int) string {
	var b strings.Builder
	for i, f := range fs {
		if i > 0 {
			b.WriteString(sep)
		}
		if f.Path == "" {
			b.WriteString("(root)")
		} else {
			b.WriteString(f.Path)
		}
		b.WriteString(": ")
		b.WriteString(f.Message)
	}
	if omitted > 0 {
		if len(fs) > 0 {
			b.WriteString(sep)
		}
		b.WriteString(schema.OmittedNote(omitted))
	}
	return b.String()
}

// ValidationFailure is one way a JSON value fails a tool's input schema.
type ValidationFailure struct {
	// Path is a JSON Pointer to the failing value; "" is the root.
	Path string `json:"path"`
	// Message says what is wrong in the validator's own words.
	Message string `json:"message"`
	// Keyword is the JSON Schema keyword that failed ("required", "type",
	// ...), or "format" for a body that is not JSON and "schema" for a schema
	// that cannot be compiled.
	Keyword string `json:"keyword"`
}

// ValidateResult is the outcome of validating arguments against a tool's
// input schema, as POST /tools/{name}/validate answers it. Errors is omitted
// from the JSON when Valid is true.
type ValidateResult struct {
	// Valid reports whether the value passes the schema.
	Valid bool `json:"valid"`
	// Errors lists the failures when Valid is false: every one, up to
	// MaxValidationFailures and MaxFailureBytes.
	Errors []ValidationFailure `json:"errors,omitempty"`
	// Omitted counts the failures left out of Errors; omitted from the
	// JSON when none were.
	Omitted int `json:"omitted,omitempty"`
}

// Tokens returns the reference tokens of f.Path, unescaped as JSON Pointer
// says ("~1" is '/', "~0" is '~'): nil for the root, ["address", "city"]
// for "/address/city". Surfaces use them to name the failing parameter.
func (f ValidationFailure) Tokens() []string {
	if !strings.HasPrefix(f.Path, "/") {
		return nil
	}
	tokens := strings.Split(f.Path[1:], "/")
	for i, t := range tokens {
		tokens[i] = strings.ReplaceAll(strings.ReplaceAll(t, "~1", "/"), "~0", "~")
	}
	return tokens
}

// failuresOf converts the validator's failures to the public type.
func failuresOf(fs []schema.Failure) []ValidationFailure {
	if fs == nil {
		return nil
	}
	out := make([]ValidationFailure, len(fs))
	for i, f := range fs {
		out[i] = ValidationFailure(f)
	}
	return out
}

// nonNilFailures returns fs, or an empty list for nil, so that it encodes
// as [] rather than null.
func nonNilFailures(fs []ValidationFailure) []ValidationFailure {
	if fs == nil {
		return []ValidationFailure{}
	}
	return fs
}
