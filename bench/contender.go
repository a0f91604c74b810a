package bench

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"strconv"
	"strings"
)

// Contender is one server under test.
type Contender struct {
	// Name is how tables and benchmarks name it.
	Name string
	// Wire is the protocol its requests and responses speak.
	Wire Wire
	// Validates reports whether it checks arguments against the tool's
	// input schema before running the tool. The tests prove it.
	Validates bool
	// New builds a handler serving ToolAdd, ToolSum and ToolWait, the last
	// held by g.
	New func(g *Gate) http.Handler
	// NewList builds a handler serving n discovery tools named by
	// ListToolName; nil leaves the contender out of discovery scenarios.
	NewList func(n int) http.Handler
}

// Wire is a request and response format.
type Wire int

// The wire formats.
const (
	// WireJSONRPC is MCP tools/call and tools/list over stateless
	// Streamable HTTP, POSTed to "/".
	WireJSONRPC Wire = iota
	// WireREST is toolexec's REST surface: POST /tools/{name}/call with the
	// arguments as the body, GET /tools.
	WireREST
	// WireOXP is OXP 1.0: POST /tools/call with {tool_id, input}, GET /tools.
	WireOXP
)

// oxpToolkit is the toolkit OXP puts a tool without a namespace in
// (oxp.DefaultToolkit): "add" is called as "Tools.add".
const oxpToolkit = "Tools"

// mcpProtocolVersion is the MCP-Protocol-Version every JSON-RPC request
// carries: the newest version all the MCP contenders negotiate.
const mcpProtocolVersion = "2025-11-25"

// Request is an HTTP request a contender answers, ready to be built any
// number of times.
type Request struct {
	Method string
	Path   string
	Header http.Header
	Body   []byte
}

// NewRequest returns a fresh client *http.Request for base + r.Path, as a
// client sends it (Loopback). In-process calls use a Caller instead.
func (r Request) NewRequest(base string) (*http.Request, error) {
	var body io.Reader = http.NoBody
	if r.Body != nil {
		body = bytes.NewReader(r.Body)
	}
	req, err := http.NewRequest(r.Method, base+r.Path, body)
	if err != nil {
		return nil, err
	}
	req.Header = r.Header.Clone()
	return req, nil
}

// CallRequest returns the request that calls tool with args (a JSON
// object).
func (w Wire) CallRequest(tool string, args []byte) Request {
	switch w {
	case WireREST:
		return Request{Method: http.MethodPost, Path: "/tools/" + url.PathEscape(tool) + "/call",
			Header: http.Header{"Content-Type": {"application/json"}}, Body: args}
	case WireOXP:
		body := make([]byte, 0, len(args)+64)
		body = append(body, `{"tool_id":`...)
		body = strconv.AppendQuote(body, oxpToolkit+"."+tool)
		body = append(body, `,"input":`...)
		body = append(body, args...)
		body = append(body, '}')
		return Request{Method: http.MethodPost, Path: "/tools/call",
			Header: http.Header{"Content-Type": {"application/json"}}, Body: body}
	default:
		body := make([]byte, 0, len(args)+96)
		body = append(body, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":`...)
		body = strconv.AppendQuote(body, tool)
		body = append(body, `,"arguments":`...)
		body = append(body, args...)
		body = append(body, `}}`...)
		return Request{Method: http.MethodPost, Path: "/", Header: mcpHeader(), Body: body}
	}
}

// ListRequest returns the discovery request: tools/list or GET /tools.
func (w Wire) ListRequest() Request {
	switch w {
	case WireREST, WireOXP:
		return Request{Method: http.MethodGet, Path: "/tools", Header: http.Header{"Accept": {"application/json"}}}
	default:
		return Request{Method: http.MethodPost, Path: "/", Header: mcpHeader(),
			Body: []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)}
	}
}

// mcpHeader is what a Streamable HTTP client sends: both media types in
// Accept (the official SDK refuses anything less) and the protocol version.
func mcpHeader() http.Header {
	return http.Header{
		"Content-Type":         {"application/json"},
		"Accept":               {"application/json, text/event-stream"},
		"Mcp-Protocol-Version": {mcpProtocolVersion},
	}
}

// CallOutcome is what a call's response says, whatever its wire.
type CallOutcome struct {
	// Sum is the tool's {"sum": n}, read from the structured output when
	// there is one, else from the JSON in the first text block.
	Sum int
	// IsError reports a tool-level failure (isError, OXP success false, or
	// a validation failure).
	IsError bool
	// Structured reports whether the response carried structured output
	// (structuredContent, or OXP's value) as well as text.
	Structured bool
}

// ParseCall reads a call's response. It fails on anything that is not a
// well-formed answer of the wire: a wrong status, content type, envelope,
// or a JSON-RPC error. A JSON-RPC answer may be an event stream (a call
// that streamed notifications first): its last event is the response.
func (w Wire) ParseCall(status int, header http.Header, body []byte) (CallOutcome, error) {
	if mt, _, _ := mime.ParseMediaType(header.Get("Content-Type")); w == WireJSONRPC && mt == "text/event-stream" {
		body = lastEventData(body)
	} else if err := checkJSONContentType(header); err != nil {
		return CallOutcome{}, err
	}
	switch w {
	case WireREST:
		if status != http.StatusOK && status != http.StatusUnprocessableEntity && status != http.StatusInternalServerError {
			return CallOutcome{}, fmt.Errorf("status %d: %s", status, body)
		}
		out, err := parseCallResult(body)
		if err == nil && out.IsError != (status != http.StatusOK) {
			err = fmt.Errorf("status %d with isError %v", status, out.IsError)
		}
		return out, err
	case WireOXP:
		return parseOXP(status, body)
	default:
		if status != http.StatusOK {
			return CallOutcome{}, fmt.Errorf("status %d: %s", status, body)
		}
		var env struct {
			JSONRPC string          `json:"jsonrpc"`
			ID      json.RawMessage `json:"id"`
			Result  json.RawMessage `json:"result"`
			Error   json.RawMessage `json:"error"`
		}
		if err := json.Unmarshal(body, &env); err != nil {
			return CallOutcome{}, fmt.Errorf("response is not JSON-RPC: %w: %s", err, body)
		}
		if env.JSONRPC != "2.0" || string(env.ID) != "1" {
			return CallOutcome{}, fmt.Errorf("bad JSON-RPC envelope: %s", body)
		}
		if env.Error != nil || env.Result == nil {
			return CallOutcome{}, fmt.Errorf("JSON-RPC error: %s", body)
		}
		return parseCallResult(env.Result)
	}
}

// parseCallResult reads an MCP CallToolResult.
func parseCallResult(data []byte) (CallOutcome, error) {
	var res struct {
		Content []struct {
			Type string `json:"type"`
			Text string `json:"text"`
		} `json:"content"`
		StructuredContent json.RawMessage `json:"structuredContent"`
		IsError           bool            `json:"isError"`
	}
	if err := json.Unmarshal(data, &res); err != nil {
		return CallOutcome{}, fmt.Errorf("result is not a CallToolResult: %w: %s", err, data)
	}
	if len(res.Content) == 0 || res.Content[0].Type != "text" {
		return CallOutcome{}, fmt.Errorf("result has no text block: %s", data)
	}
	out := CallOutcome{IsError: res.IsError}
	if res.IsError {
		return out, nil
	}
	var text SumOut
	if err := strictUnmarshal([]byte(res.Content[0].Text), &text); err != nil {
		return CallOutcome{}, fmt.Errorf("text block is not {\"sum\": n}: %w: %s", err, data)
	}
	out.Sum = text.Sum
	if len(res.StructuredContent) > 0 && string(res.StructuredContent) != "null" {
		var sc SumOut
		if err := strictUnmarshal(res.StructuredContent, &sc); err != nil {
			return CallOutcome{}, fmt.Errorf("structuredContent is not {\"sum\": n}: %w: %s", err, data)
		}
		if sc.Sum != text.Sum {
			return CallOutcome{}, fmt.Errorf("structuredContent and text disagree: %s", data)
		}
		out.Structured = true
	}
	return out, nil
}

// parseOXP reads an OXP call response.
func parseOXP(status int, body []byte) (CallOutcome, error) {
	if status == http.StatusUnprocessableEntity {
		var e struct {
			Message         string            `json:"message"`
			ParameterErrors map[string]string `json:"parameter_errors"`
		}
		if err := json.Unmarshal(body, &e); err != nil || e.Message == "" {
			return CallOutcome{}, fmt.Errorf("bad OXP 422 body: %s", body)
		}
		return CallOutcome{IsError: true}, nil
	}
	if status != http.StatusOK {
		return CallOutcome{}, fmt.Errorf("status %d: %s", status, body)
	}
	var res struct {
		CallID  string          `json:"call_id"`
		Success *bool           `json:"success"`
		Value   json.RawMessage `json:"value"`
		Error   json.RawMessage `json:"error"`
	}
	if err := json.Unmarshal(body, &res); err != nil || res.Success == nil || res.CallID == "" {
		return CallOutcome{}, fmt.Errorf("bad OXP call response: %s", body)
	}
	if !*res.Success {
		return CallOutcome{IsError: true}, nil
	}
	var v SumOut
	if err := strictUnmarshal(res.Value, &v); err != nil {
		return CallOutcome{}, fmt.Errorf("OXP value is not {\"sum\": n}: %w: %s", err, body)
	}
	return CallOutcome{Sum: v.Sum, Structured: true}, nil
}

// ParseList reads a discovery response and returns the tool names it lists.
func (w Wire) ParseList(status int, header http.Header, body []byte) ([]string, error) {
	if status != http.StatusOK {
		return nil, fmt.Errorf("status %d: %s", status, body)
	}
	if err := checkJSONContentType(header); err != nil {
		return nil, err
	}
	type named struct {
		Name string `json:"name"`
		ID   string `json:"id"`
	}
	var tools []named
	switch w {
	case WireREST:
		if err := json.Unmarshal(body, &tools); err != nil {
			return nil, fmt.Errorf("bad tool list: %w", err)
		}
	case WireOXP:
		var l struct {
			Items []named `json:"items"`
		}
		if err := json.Unmarshal(body, &l); err != nil {
			return nil, fmt.Errorf("bad OXP tool list: %w", err)
		}
		for i, t := range l.Items {
			// "Tools.tool_7@0.0.0" is tool_7 in the default toolkit.
			id, _, _ := strings.Cut(t.ID, "@")
			l.Items[i].Name = strings.TrimPrefix(id, oxpToolkit+".")
		}
		tools = l.Items
	default:
		var env struct {
			Result *struct {
				Tools      []named `json:"tools"`
				NextCursor string  `json:"nextCursor"`
			} `json:"result"`
		}
		if err := json.Unmarshal(body, &env); err != nil || env.Result == nil {
			return nil, fmt.Errorf("bad tools/list response: %s", truncate(body))
		}
		if env.Result.NextCursor != "" {
			return nil, fmt.Errorf("tools/list is paginated (nextCursor %q)", env.Result.NextCursor)
		}
		tools = env.Result.Tools
	}
	names := make([]string, len(tools))
	for i, t := range tools {
		names[i] = t.Name
	}
	return names, nil
}

// lastEventData is the data of the last event of an SSE stream whose
// events each hold one line of data.
func lastEventData(stream []byte) []byte {
	var last []byte
	for line := range bytes.Lines(stream) {
		if data, ok := bytes.CutPrefix(bytes.TrimRight(line, "\r\n"), []byte("data:")); ok {
			last = bytes.TrimPrefix(data, []byte(" "))
		}
	}
	return last
}

func checkJSONContentType(h http.Header) error {
	mt, _, err := mime.ParseMediaType(h.Get("Content-Type"))
	if err != nil || mt != "application/json" {
		return fmt.Errorf("content type %q, want application/json", h.Get("Content-Type"))
	}
	return nil
}

func strictUnmarshal(data []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	return dec.Decode(v)
}

func truncate(b []byte) []byte {
	if len(b) > 300 {
		return append(b[:300:300], "..."...)
	}
	return b
}
