package toolexec

import (
	"encoding/json"
)

// traceIDKey is the _meta key under which a handler's trace id travels:
// {"_meta": {"_trace_id": "abc-123"}}.
const traceIDKey = "_trace_id"

// CallToolResult is the outcome of a tool call in the MCP CallToolResult
// shape (specification 2025-11-25).
//
// Content is always written as an array ("content": [] when empty) and
// IsError is always written; StructuredContent and Meta are omitted when
// nil, never written as null.
type CallToolResult struct {
	// Content holds the blocks a client shows or hands to a model.
	Content []Content
	// StructuredContent is the tool's structured output, when it has one;
	// typed tools fill it from their output value. It must marshal to a JSON
	// object.
	StructuredContent any
	// IsError reports a logical tool failure: the call ran, and the tool
	// says it did not succeed.
	IsError bool
	// Meta is the result's _meta object. The trace id, when the handler
	// gives one, is Meta["_trace_id"].
	Meta map[string]any
}

type callToolResultWire struct {
	Content           []Content      `json:"content"`
	StructuredContent any            `json:"structuredContent,omitempty"`
	IsError           bool           `json:"isError"`
	Meta              map[string]any `json:"_meta,omitempty"`
}

// MarshalJSON writes the MCP CallToolResult shape.
func (r CallToolResult) MarshalJSON() ([]byte, error) {
	if data, ok := appendResultFast(make([]byte, 0, fastResultSize(&r)), &r); ok {
		return data, nil
	}
	return r.marshalGeneral()
}

// marshalGeneral is MarshalJSON for every result, by reflection.
func (r CallToolResult) marshalGeneral() ([]byte, error) {
	content := r.Content
	if content == nil {
		content = []Content{}
	}
	return json.Marshal(callToolResultWire{Content: content, StructuredContent: r.StructuredContent, IsError: r.IsError, Meta: r.Meta})
}

// UnmarshalJSON reads the MCP CallToolResult shape, decoding each content
// block into its Go type (see UnmarshalContent).
func (r *CallToolResult) UnmarshalJSON(data []byte) error {
	var w struct {
		Content           json.RawMessage `json:"content"`
		StructuredContent any             `json:"structuredContent"`
		IsError           bool            `json:"isError"`
		Meta              map[string]any  `json:"_meta"`
	}
	if err := json.Unmarshal(data, &w); err != nil {
		return err
	}
	content, err := unmarshalContents(w.Content)
	if err != nil {
		return err
	}
	*r = CallToolResult{Content: content, StructuredContent: w.StructuredContent, IsError: w.IsError, Meta: w.Meta}
	return nil
}

// TraceID returns the trace id in Meta["_trace_id"], or "" when there is none.
func (r *CallToolResult) TraceID() string {
	s, _ := r.Meta[traceIDKey].(string)
	return s
}

// SetTraceID stores id as Meta["_trace_id"]. An empty id removes it, and
// Meta is left nil when nothing else is in it, so "_meta" is omitted.
func (r *CallToolResult) SetTraceID(id string) {
	if id == "" {
		delete(r.Meta, traceIDKey)
		if len(r.Meta) == 0 {
			r.Meta = nil
		}
		return
	}
	if r.Meta == nil {
		r.Meta = make(map[string]any, 1)
	}
	r.Meta[traceIDKey] = id
}

// Text joins the text of every TextContent block with newlines: a quick way
// to read a result in tests and logs.
func (r *CallToolResult) Text() string {
	var out []byte
	for _, c := range r.Content {
		if t, ok := c.(*TextContent); ok {
			if len(out) > 0 {
				out = append(out, '\n')
			}
			out = append(out, t.Text...)
		}
	}
	return string(out)
}

// NewResult builds the result of a handler's return values: content,
// isError, and _meta._trace_id only when traceID is not empty.
func NewResult(content []Content, isError bool, traceID string) *CallToolResult {
	r := &CallToolResult{Content: content, IsError: isError}
	r.SetTraceID(traceID)
	return r
}

// ErrorResult is a result with IsError set and one text block holding msg.
func ErrorResult(msg string) *CallToolResult {
	return &CallToolResult{Content: []Content{Text(msg)}, IsError: true}
}

// Result returns the isError result that stands for e on the surfaces that
// answer failed calls as tool results (REST, MCP): e.Message as text, or,
// for validation failures, one line per failure ("/city: ...") with the
// failures themselves in StructuredContent as {"errors": [...]}; when some
// failures were omitted (Error.Omitted), the text ends with a line saying
// how many ("3 more failures were omitted") and StructuredContent holds
// {"errors": [...], "omitted": 3}.
func (e *Error) Result() *CallToolResult {
	if len(e.Failures) == 0 && e.Omitted == 0 {
		return ErrorResult(e.Message)
	}
	structured := map[string]any{"errors": nonNilFailures(e.Failures)}
	if e.Omitted > 0 {
		structured["omitted"] = e.Omitted
	}
	return &CallToolResult{
		Content:           []Content{Text(failureLines(e.Failures, "\n", e.Omitted))},
		StructuredContent: structured,
		IsError:           true,
	}
}

// textResult is a result of one text block, made in one allocation instead
// of three (result, content slice, block): typed tools answer every call
// with one.
func textResult(text string) *CallToolResult {
	b := &struct {
		res     CallToolResult
		content [1]Content
		text    TextContent
	}{text: TextContent{Text: text}}
	b.content[0] = &b.text
	b.res.Content = b.content[:]
	return &b.res
}
