package toolexec

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"

	"github.com/toolexec/toolexec/internal/infer"
	"github.com/toolexec/toolexec/internal/schema"
	"github.com/toolexec/toolexec/internal/typedargs"
)

// TypedHandler is the handler of a typed tool: it receives the call's
// arguments decoded into In and returns Out, or an error. See AddTool.
type TypedHandler[In, Out any] func(ctx context.Context, in In) (Out, error)

// AddTool registers on r a tool whose handler works with Go types: its
// arguments arrive decoded into In, and its Out becomes the result.
//
// Schemas are inferred from the types with github.com/google/jsonschema-go
// unless t already has them, which then win: InputSchema from In,
// OutputSchema from Out. Struct fields are named as encoding/json names
// them, a field tagged omitempty or omitzero (or a pointer) is optional and
// any other is required, unknown properties are refused, and a field's
// `jsonschema:"..."` tag is its description. docs/typed-tools.md lists how
// each Go type is described.
//
// In must describe a JSON object: a struct, a map with string keys, or a
// pointer to either; In of type any (or json.RawMessage) accepts any object.
// Out decides the result:
//
//   - a struct, a map with string keys, or a pointer to either: the value is
//     the result's StructuredContent (as its JSON, a json.RawMessage) and a
//     text block holds the same JSON, for clients that read only content.
//     A nil pointer or map is a tool error;
//   - []Content, Content or *CallToolResult: the handler returns content
//     directly and no OutputSchema is inferred;
//   - any: the value's JSON is a text block, and also the StructuredContent
//     when it is an object; no OutputSchema is inferred.
//
// The handler runs behind the Executor's pipeline: with validation on (the
// default), arguments that break InputSchema never reach it, and an Out
// that breaks OutputSchema is logged and reported as a tool error. When
// InputSchema was inferred from In and In is made of the plain types the
// strict checker supports, the arguments are checked and decoded into In
// without the generic validator or the map of arguments; the handler's
// CallFromContext(ctx).Arguments is then nil unless the auth hook, the
// cache, an output transform or WithTraceArguments needs it
// (docs/typed-tools.md, "The typed fast path"). An error
// it returns is a tool error carrying its message; return a *ToolError to
// say more.
//
// AddTool fails, without registering anything, when t has no name or is
// already registered in its version, when h is nil, when In or Out cannot
// be described (a channel, a function, a recursive type, a map with
// non-string keys) or does not describe an object, when a schema in t
// does not compile, or, with WithStrictToolNames, when its name is not of the
// form MCP recommends. Otherwise such a name is warned about as
// Registry.Add does.
func AddTool[In, Out any](r *Registry, t Tool, h TypedHandler[In, Out]) error {
	if t.Name == "" {
		return errors.New("toolexec: AddTool: tool has no name")
	}
	th, err := newTypedHandler(&t, h)
	if err != nil {
		return fmt.Errorf("toolexec: AddTool %q: %w", t.Name, err)
	}
	return r.Add(t, th)
}

// MustAddTool is AddTool that panics on error, for registrations fixed at
// compile time.
func MustAddTool[In, Out any](r *Registry, t Tool, h TypedHandler[In, Out]) {
	if err := AddTool(r, t, h); err != nil {
		panic(err)
	}
}

// outKind is how a typed handler's Out becomes a result.
type outKind int

const (
	outStructured outKind = iota // Out describes an object: structuredContent + JSON text
	outAny                       // Out is any: JSON text, structured when an object
	outContents                  // []Content
	outContent                   // Content
	outResult                    // *CallToolResult
)

// typedHandler adapts a TypedHandler to ToolCallHandler and
// ToolResultHandler.
type typedHandler[In, Out any] struct {
	fn  TypedHandler[In, Out]
	out outKind
	// exactIn is the input schema inferred from In, when t had none, and
	// plan its checker when In is in the subset typedargs supports: then
	// the handler implements checkedInput (see decodeChecked).
	exactIn json.RawMessage
	plan    *typedargs.Plan
	// exactOut is the output schema inferred from Out when every value of
	// Out encodes to JSON that schema accepts (see encodesExactly); nil
	// otherwise. Output validation can then skip this handler's results.
	exactOut json.RawMessage
}

// newTypedHandler fills t's missing schemas from In and Out, checks that
// every schema of t compiles, and returns the handler.
func newTypedHandler[In, Out any](t *Tool, fn TypedHandler[In, Out]) (*typedHandler[In, Out], error) {
	if fn == nil {
		return nil, errors.New("nil handler")
	}
	h := &typedHandler[In, Out]{fn: fn}
	outType := reflect.TypeFor[Out]()
	switch outType {
	case reflect.TypeFor[[]Content]():
		h.out = outContents
	case reflect.TypeFor[Content]():
		h.out = outContent
	case reflect.TypeFor[*CallToolResult]():
		h.out = outResult
	case reflect.TypeFor[any]():
		h.out = outAny
	default:
		h.out = outStructured
	}
	if inType := reflect.TypeFor[In](); inType.Kind() == reflect.Interface && inType.NumMethod() > 0 {
		return nil, fmt.Errorf("input type: %s is an interface with methods: arguments cannot be decoded into it", inType)
	}
	if len(t.InputSchema) == 0 {
		s, err := infer.ObjectSchema(reflect.TypeFor[In](), true)
		if err != nil {
			return nil, fmt.Errorf("input type: %w", err)
		}
		t.InputSchema = s
		h.exactIn = s
		// A type the plan does not support keeps the generic path.
		h.plan, _ = typedargs.For(reflect.TypeFor[In](), s, typedargs.Bounds{MaxDigits: MaxNumberDigits, MaxExponent: MaxNumberExponent})
	}
	if len(t.OutputSchema) == 0 && h.out == outStructured {
		s, err := infer.ObjectSchema(outType, false)
		if err != nil {
			return nil, fmt.Errorf("output type: %w (or return []Content, Content or *CallToolResult)", err)
		}
		t.OutputSchema = s
		if encodesExactly(outType, map[reflect.Type]bool{}) {
			h.exactOut = s
		}
	}
	for _, s := range []struct {
		name string
		raw  json.RawMessage
	}{{"inputSchema", t.InputSchema}, {"outputSchema", t.OutputSchema}} {
		if len(s.raw) == 0 {
			continue
		}
		if _, err := schema.Compile(s.raw); err != nil {
			return nil, fmt.Errorf("invalid %s: %w", s.name, err)
		}
	}
	return h, nil
}

// HandleCallResult decodes args into In, runs the handler and turns its Out
// into a result.
func (h *typedHandler[In, Out]) HandleCallResult(ctx context.Context, _ string, args map[string]any) (*CallToolResult, error) {
	in, err := decodeTyped[In](args)
	if err != nil {
		return nil, err
	}
	return h.run(ctx, in)
}

// run runs the handler on in and turns its Out into a result.
func (h *typedHandler[In, Out]) run(ctx context.Context, in In) (*CallToolResult, error) {
	out, err := h.fn(ctx, in)
	if err != nil {
		return nil, err
	}
	res, err := h.result(out)
	if err == nil && h.exactOut != nil {
		if c := CallFromContext(ctx); c != nil && bytes.Equal(c.Tool.OutputSchema, h.exactOut) {
			// The call's tool declares the very schema Out conforms to:
			// the validation stage need not check this structured content.
			c.conforming, _ = res.StructuredContent.(json.RawMessage)
		}
	}
	return res, err
}

// checkedInput is the typed fast path: implemented by a typed tool's
// handler whose In the strict checker supports (typedargs.For), it decodes
// the call's arguments straight into In, checked against the schema
// inferred from In, without the map of arguments or the generic validator.
// The pipeline uses it only when that schema is the one the call validates
// against and validation is on (see Executor.checkedInputFor).
type checkedInput interface {
	// inferredInput is the input schema inferred from In: the check is the
	// validator's only for a tool that declares these bytes.
	inferredInput() json.RawMessage
	// decodeChecked returns the call of the handler on raw decoded into In
	// when raw is a JSON object the generic validator would accept, and
	// nil when the generic path must decide (and report failures) instead.
	decodeChecked(raw json.RawMessage) decodedCall
}

// decodedCall is a typed handler with its input decoded and checked.
type decodedCall interface {
	run(ctx context.Context) (*CallToolResult, error)
}

// typedCall is the decodedCall of a typedHandler.
type typedCall[In, Out any] struct {
	h  *typedHandler[In, Out]
	in In
}

func (c *typedCall[In, Out]) run(ctx context.Context) (*CallToolResult, error) {
	return c.h.run(ctx, c.in)
}

func (h *typedHandler[In, Out]) inferredInput() json.RawMessage {
	if h.plan == nil {
		return nil
	}
	return h.exactIn
}

func (h *typedHandler[In, Out]) decodeChecked(raw json.RawMessage) decodedCall {
	if h.plan == nil {
		return nil
	}
	c := &typedCall[In, Out]{h: h} // decoded in place: one allocation for the call and its input
	if !typedargs.DecodeInto(h.plan, raw, &c.in) {
		return nil
	}
	return c
}

// checkedInputFor returns the typed fast path for a call of t, or nil when
// the call must take the generic path: validation is off for it, something
// configured for it (an interceptor or an input transform, of the
// Executor, the tool or the call) could change its arguments before the
// handler, the handler is not the Registry's typed handler, or t's input
// schema is not the one inferred from that handler's In.
func (x *Executor) checkedInputFor(t *Tool, req *CallRequest) checkedInput {
	return x.checkedInputWith(t, req, nil)
}

// checkedInputWith is checkedInputFor with t's handler in the Registry
// already found (h), or nil to look it up.
func (x *Executor) checkedInputWith(t *Tool, req *CallRequest, h ToolCallHandler) checkedInput {
	r, ok := x.handler.(*Registry)
	if !ok || x.noValidation || t.Options.SkipValidation || len(t.InputSchema) == 0 {
		return nil
	}
	if len(x.interceptors) > 0 || len(x.inputTransforms) > 0 || len(req.interceptors) > 0 ||
		len(t.Options.Interceptors) > 0 || len(t.Options.InputTransforms) > 0 {
		return nil
	}
	if h == nil {
		h = r.handlerOf(t.Name, t.Version)
	}
	ci, ok := h.(checkedInput)
	if !ok || !bytes.Equal(ci.inferredInput(), t.InputSchema) {
		return nil
	}
	return ci
}

// readsArguments reports whether anything of a call of t on the fast path
// may read Call.Arguments: the auth hook, the arguments recorded on the
// span, the cache (its key), an output transform (it sees the call). Then
// the map is decoded too; otherwise a call decoded by its typed handler
// has none.
func (x *Executor) readsArguments(t *Tool, req *CallRequest) bool {
	return (req.Request != nil && x.authHook != nil) || x.observesArguments || t.Options.Cache ||
		len(x.outputTransforms) > 0 || len(t.Options.OutputTransforms) > 0
}

// handlerOf returns the handler registered for exactly name and version,
// or nil.
func (r *Registry) handlerOf(name, version string) ToolCallHandler {
	r.mu.RLock()
	defer r.mu.RUnlock()
	for _, i := range r.byName[name] {
		if r.entries[i].tool.Version == version {
			return r.entries[i].handler
		}
	}
	return nil
}

// HandleCall implements ToolCallHandler for callers that want content
// blocks alone; the pipeline uses HandleCallResult.
func (h *typedHandler[In, Out]) HandleCall(ctx context.Context, name string, args map[string]any) ([]Content, bool, string, error) {
	res, err := h.HandleCallResult(ctx, name, args)
	if err != nil {
		return nil, false, "", err
	}
	return res.Content, res.IsError, res.TraceID(), nil
}

// result turns the handler's Out into a result.
func (h *typedHandler[In, Out]) result(out Out) (*CallToolResult, error) {
	switch h.out {
	case outResult:
		if res := any(out).(*CallToolResult); res != nil {
			return res, nil
		}
		return &CallToolResult{}, nil
	case outContents:
		return &CallToolResult{Content: any(out).([]Content)}, nil
	case outContent:
		if c, _ := any(out).(Content); c != nil {
			return &CallToolResult{Content: []Content{c}}, nil
		}
		return &CallToolResult{}, nil
	}
	data, err := json.Marshal(out)
	if err != nil {
		return nil, fmt.Errorf("the tool's output cannot be encoded as JSON: %w", err)
	}
	isObject := len(data) > 0 && data[0] == '{'
	if h.out == outStructured && !isObject {
		return nil, errors.New("the tool returned no output (a nil value where an object was expected)")
	}
	res := textResult(string(data))
	if isObject {
		res.StructuredContent = json.RawMessage(data)
	}
	return res, nil
}

// decodeTyped decodes the pipeline's arguments into In. Validation has
// normally made sure they fit; when it is off, a misfit is a tool error
// naming the field.
func decodeTyped[In any](args map[string]any) (In, error) {
	if in, ok := any(args).(In); ok { // In is any or map[string]any
		return in, nil
	}
	var in In
	data, err := json.Marshal(args)
	if err == nil {
		err = json.Unmarshal(data, &in)
	}
	if err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) && te.Field != "" {
			return in, &ToolError{Message: fmt.Sprintf("invalid arguments: %s: got %s, want %s", te.Field, te.Value, jsonKind(te.Type)), Err: err}
		}
		return in, &ToolError{Message: "invalid arguments: " + err.Error(), Err: err}
	}
	return in, nil
}

// jsonKind names the JSON type a Go type is read from.
func jsonKind(t reflect.Type) string {
	switch t.Kind() {
	case reflect.Bool:
		return "boolean"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return "integer"
	case reflect.Float32, reflect.Float64:
		return "number"
	case reflect.String:
		return "string"
	case reflect.Slice, reflect.Array:
		return "array"
	case reflect.Map, reflect.Struct:
		return "object"
	}
	return t.String()
}
