package mcp_test

import (
	"context"
	"encoding/json"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolexec/toolexec"
	"github.com/toolexec/toolexec/mcp"
)

// handsAICall posts body to the HandsAI call route of a handler mounted at
// /mcp, as HandsAI's curl examples do.
func handsAICall(t *testing.T, h http.Handler, body string, hdr ...string) (int, string) {
	t.Helper()
	mux := http.NewServeMux()
	mux.Handle("/mcp/", h)
	rec := send(t, mux, http.MethodPost, "/mcp/tools/call", body, append([]string{"Accept", ""}, hdr...)...)
	assert.Equal(t, "application/json", rec.Header().Get("Content-Type"))
	return rec.Code, rec.Body.String()
}

// The five examples of the HandsAI bridge's documentation, request and response, byte for byte in
// meaning.
func TestHandsAISeedExamples(t *testing.T) {
	h := newHandler(t, nil)
	cases := []struct {
		name, request, response string
	}{
		{
			name: "1 weather tool",
			request: `{"jsonrpc":"2.0","method":"tools/call","params":{"name":"weather_get",
				"arguments":{"location":"San Francisco","units":"celsius"}},"id":"weather-123"}`,
			response: `{"jsonrpc":"2.0","result":{"content":[{"type":"text",
				"text":"{\"temperature\": 18, \"condition\": \"Partly cloudy\", \"humidity\": 65}"}]},"id":"weather-123"}`,
		},
		{
			name: "2 array parameter",
			request: `{"jsonrpc":"2.0","method":"tools/call","params":{"name":"search_documents",
				"arguments":{"query":"quarterly revenue","tags":["finance","2024"],"limit":10}},"id":"search-456"}`,
			response: `{"jsonrpc":"2.0","result":{"content":[{"type":"text",
				"text":"[{\"id\": \"doc-1\", \"title\": \"Q4 2024 Revenue Report\"}, {\"id\": \"doc-2\", \"title\": \"Q3 2024 Financial Summary\"}]"}]},"id":"search-456"}`,
		},
		{
			// Real schema validation of weatherSchema: the failure is
			// "required" at /location, worded as HandsAI words it.
			name: "3 missing required parameter",
			request: `{"jsonrpc":"2.0","method":"tools/call","params":{"name":"weather_get",
				"arguments":{"units":"celsius"}},"id":"error-789"}`,
			response: `{"jsonrpc":"2.0","error":{"code":-32602,"message":"Invalid params: location is required"},"id":"error-789"}`,
		},
		{
			name:     "4 missing request body",
			request:  `null`,
			response: `{"jsonrpc":"2.0","error":{"code":-32602,"message":"Invalid params: missing required parameters"}}`,
		},
		{
			name: "5 tool execution failure",
			request: `{"jsonrpc":"2.0","method":"tools/call","params":{"name":"database_query",
				"arguments":{"sql":"SELECT * FROM users"}},"id":"fail-101"}`,
			response: `{"jsonrpc":"2.0","error":{"code":-32603,"message":"Internal error: Connection timeout"},"id":"fail-101"}`,
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			status, body := handsAICall(t, h, c.request)
			assert.Equal(t, http.StatusOK, status)
			assert.JSONEq(t, c.response, body)
		})
	}
}

func TestHandsAIToolsListAnswersTheEnvelopeTheBridgeReads(t *testing.T) {
	reg := toolexec.NewRegistry()
	reg.MustAdd(toolexec.Tool{Name: "weather_get", Description: "Weather", InputSchema: []byte(weatherSchema)},
		func(string, map[string]any) ([]toolexec.Content, bool, string, error) { return nil, false, "", nil })
	reg.MustAdd(toolexec.Tool{Name: "ping_tool"},
		func(string, map[string]any) ([]toolexec.Content, bool, string, error) { return nil, false, "", nil })
	h := mcp.NewHandler(toolexec.New(reg, reg))

	rec := send(t, h, http.MethodGet, "/mcp/tools/list", "", "Accept", "", "Content-Type", "")
	require.Equal(t, http.StatusOK, rec.Code)
	assert.Equal(t, "application/json", rec.Header().Get("Content-Type"))
	assert.JSONEq(t, `{"jsonrpc":"2.0","result":{"tools":[
		{"name":"weather_get","description":"Weather","inputSchema":`+weatherSchema+`},
		{"name":"ping_tool","inputSchema":{"type":"object"}}]}}`, rec.Body.String())
}

func TestHandsAIIdsAreEchoedOnlyWhenSent(t *testing.T) {
	h := newHandler(t, nil)
	cases := map[string]struct{ request, response string }{
		"no id": {
			`{"jsonrpc":"2.0","method":"tools/call","params":{"name":"weather_get","arguments":{"location":"Oslo"}}}`,
			`{"jsonrpc":"2.0","result":{"content":[{"type":"text","text":"{\"temperature\": 18, \"condition\": \"Partly cloudy\", \"humidity\": 65}"}]}}`,
		},
		"null id": {
			`{"jsonrpc":"2.0","method":"tools/call","params":{"name":"weather_get","arguments":{"location":"Oslo"}},"id":null}`,
			`{"jsonrpc":"2.0","result":{"content":[{"type":"text","text":"{\"temperature\": 18, \"condition\": \"Partly cloudy\", \"humidity\": 65}"}]}}`,
		},
		"number id": {
			`{"jsonrpc":"2.0","method":"tools/call","params":{"name":"database_query"},"id":42}`,
			`{"jsonrpc":"2.0","error":{"code":-32603,"message":"Internal error: Connection timeout"},"id":42}`,
		},
		"params null, id kept": {
			`{"jsonrpc":"2.0","method":"tools/call","params":null,"id":"p-1"}`,
			`{"jsonrpc":"2.0","error":{"code":-32602,"message":"Invalid params: missing required parameters"},"id":"p-1"}`,
		},
		"params missing": {
			`{"jsonrpc":"2.0","method":"tools/call","id":7}`,
			`{"jsonrpc":"2.0","error":{"code":-32602,"message":"Invalid params: missing required parameters"},"id":7}`,
		},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			status, body := handsAICall(t, h, c.request)
			assert.Equal(t, http.StatusOK, status)
			assert.JSONEq(t, c.response, body)
		})
	}
}

func TestHandsAIErrorsUseItsTwoCodes(t *testing.T) {
	h := newHandler(t, nil)
	cases := map[string]struct{ request, response string }{
		"empty body": {
			``,
			`{"jsonrpc":"2.0","error":{"code":-32602,"message":"Invalid params: missing required parameters"}}`,
		},
		"unknown tool": {
			`{"jsonrpc":"2.0","method":"tools/call","params":{"name":"nope"},"id":1}`,
			`{"jsonrpc":"2.0","error":{"code":-32602,"message":"Invalid params: tool not found","data":"nope"},"id":1}`,
		},
		"no name": {
			`{"jsonrpc":"2.0","method":"tools/call","params":{"arguments":{}},"id":1}`,
			`{"jsonrpc":"2.0","error":{"code":-32602,"message":"Invalid params: name is required"},"id":1}`,
		},
		"arguments not an object": {
			`{"jsonrpc":"2.0","method":"tools/call","params":{"name":"weather_get","arguments":[1]},"id":1}`,
			`{"jsonrpc":"2.0","error":{"code":-32602,"message":"Invalid params: arguments must be a JSON object"},"id":1}`,
		},
		"panic": {
			`{"jsonrpc":"2.0","method":"tools/call","params":{"name":"explode"},"id":1}`,
			`{"jsonrpc":"2.0","error":{"code":-32603,"message":"Internal error: The tool failed unexpectedly."},"id":1}`,
		},
		"tool reports isError": {
			`{"jsonrpc":"2.0","method":"tools/call","params":{"name":"soft_fail"},"id":1}`,
			`{"jsonrpc":"2.0","error":{"code":-32603,"message":"Internal error: city not found"},"id":1}`,
		},
		"not JSON": {
			`{"jsonrpc":`,
			`{"jsonrpc":"2.0","error":{"code":-32700,"message":"Parse error: the body is not valid JSON"}}`,
		},
		"a batch": {
			`[{"jsonrpc":"2.0","method":"tools/call","params":{"name":"weather_get"},"id":1}]`,
			`{"jsonrpc":"2.0","error":{"code":-32600,"message":"Invalid Request: the body must be one JSON-RPC request object"}}`,
		},
		"another method": {
			`{"jsonrpc":"2.0","method":"tools/list","id":1}`,
			`{"jsonrpc":"2.0","error":{"code":-32601,"message":"Method not found: tools/list"},"id":1}`,
		},
		"wrong jsonrpc": {
			`{"jsonrpc":"1.0","method":"tools/call","params":{"name":"weather_get"},"id":1}`,
			`{"jsonrpc":"2.0","error":{"code":-32600,"message":"Invalid Request: \"jsonrpc\" must be \"2.0\""},"id":1}`,
		},
		"id an object": {
			`{"jsonrpc":"2.0","method":"tools/call","params":{"name":"weather_get"},"id":{}}`,
			`{"jsonrpc":"2.0","error":{"code":-32600,"message":"Invalid Request: id must be a string or a number"}}`,
		},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			status, body := handsAICall(t, h, c.request)
			assert.Equal(t, http.StatusOK, status)
			assert.JSONEq(t, c.response, body)
		})
	}
}

// addressSchema fails in every way HandsAI words differently: a missing
// field, a missing nested field whose name needs escaping in a JSON Pointer,
// a value out of its enum, and a rule of the arguments object itself.
const addressSchema = `{"type":"object",
	"properties":{
		"location":{"type":"string"},
		"units":{"enum":["celsius","fahrenheit"]},
		"address":{"type":"object","properties":{"zip/code":{"type":"string"}},"required":["zip/code"]}},
	"required":["location","address"],
	"minProperties":3}`

func TestHandsAIWordsEveryValidationFailure(t *testing.T) {
	reg := toolexec.NewRegistry()
	reg.MustAdd(toolexec.Tool{Name: "ship", InputSchema: json.RawMessage(addressSchema)},
		func(string, map[string]any) ([]toolexec.Content, bool, string, error) {
			t.Error("the handler ran despite invalid arguments")
			return nil, false, "", nil
		})
	h := mcp.NewHandler(toolexec.New(reg, reg, toolexec.WithAllowExecute(true)))
	status, body := handsAICall(t, h, `{"jsonrpc":"2.0","method":"tools/call","params":{"name":"ship","arguments":{"units":"kelvin","address":{}}},"id":1}`)
	assert.Equal(t, http.StatusOK, status)
	assert.JSONEq(t, `{"jsonrpc":"2.0","error":{"code":-32602,"message":
		"Invalid params: minProperties: got 2, want 3; address.zip/code is required; location is required; /units: value must be one of 'celsius', 'fahrenheit'"},"id":1}`, body)
}

func TestHandsAIExecutionDisabledIsAnInternalError(t *testing.T) {
	reg := fixtureRegistry()
	h := mcp.NewHandler(toolexec.New(reg, reg))
	status, body := handsAICall(t, h, `{"jsonrpc":"2.0","method":"tools/call","params":{"name":"weather_get","arguments":{"location":"x"}},"id":1}`)
	assert.Equal(t, http.StatusOK, status)
	assert.JSONEq(t, `{"jsonrpc":"2.0","error":{"code":-32603,"message":"Internal error: Tool execution is disabled."},"id":1}`, body)
}

// handsAIToken is an auth hook checking the header HandsAI's stdio bridge
// sends its token in.
func handsAIToken(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("X-HandsAI-Token") != "s3cret" {
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		next.ServeHTTP(w, r)
	})
}

func TestTheAuthHookGuardsHandsAICallsButNotTheList(t *testing.T) {
	h := newHandler(t, []toolexec.Option{toolexec.WithAuthHook(handsAIToken)})
	call := `{"jsonrpc":"2.0","method":"tools/call","params":{"name":"weather_get","arguments":{"location":"x"}},"id":1}`

	status, body := handsAICall(t, h, call)
	assert.Equal(t, http.StatusUnauthorized, status)
	assert.JSONEq(t, `{"error":"Unauthorized"}`, body)

	status, body = handsAICall(t, h, call, "X-HandsAI-Token", "s3cret")
	assert.Equal(t, http.StatusOK, status)
	assert.Contains(t, body, `"result"`)

	rec := send(t, h, http.MethodGet, "/mcp/tools/list", "")
	assert.Equal(t, http.StatusOK, rec.Code)
}

func TestHandsAIRoutesRefuseOtherMethodsWith405(t *testing.T) {
	h := newHandler(t, nil)
	rec := send(t, h, http.MethodPost, "/mcp/tools/list", `{}`)
	assert.Equal(t, http.StatusMethodNotAllowed, rec.Code)
	assert.Equal(t, "GET", rec.Header().Get("Allow"))
	assert.JSONEq(t, `{"jsonrpc":"2.0","error":{"code":-32000,"message":"Method not allowed: use GET"}}`, rec.Body.String())

	rec = send(t, h, http.MethodGet, "/mcp/tools/call", "")
	assert.Equal(t, http.StatusMethodNotAllowed, rec.Code)
	assert.Equal(t, "POST", rec.Header().Get("Allow"))
}

func TestHandsAICallsSeeTheHandsAISurface(t *testing.T) {
	var got toolexec.Surface
	spy := func(next toolexec.CallFunc) toolexec.CallFunc {
		return func(ctx context.Context, call *toolexec.Call) (*toolexec.CallToolResult, error) {
			got = call.Surface
			return next(ctx, call)
		}
	}
	h := newHandler(t, []toolexec.Option{toolexec.WithInterceptors(spy)})
	status, _ := handsAICall(t, h, `{"jsonrpc":"2.0","method":"tools/call","params":{"name":"weather_get","arguments":{"location":"x"}}}`)
	require.Equal(t, http.StatusOK, status)
	assert.Equal(t, toolexec.SurfaceHandsAI, got)
}

func TestHandsAIAPanicOutsideTheHandlerIsAnInternalError(t *testing.T) {
	h := newHandler(t, []toolexec.Option{toolexec.WithInterceptors(panicky)})
	status, body := handsAICall(t, h, `{"jsonrpc":"2.0","method":"tools/call","params":{"name":"weather_get","arguments":{"location":"x"}},"id":1}`)
	assert.Equal(t, http.StatusOK, status)
	assert.JSONEq(t, `{"jsonrpc":"2.0","error":{"code":-32603,"message":"Internal error: The tool failed unexpectedly."},"id":1}`, body)
}
