package mcp_test

import (
	"context"
	"encoding/json"
	"net/http"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolexec/toolexec"
	"github.com/toolexec/toolexec/mcp"
)

// Schema validation is the pipeline's (on by default); these tests check
// how its outcomes read over MCP tools/call and the HandsAI route.

// forecastIn and forecastOut are a typed tool's types: AddTool infers
// {"city": string, "days": integer}, both required, nothing else allowed, in;
// {"city", "temperatureC"} out.
type forecastIn struct {
	City string `json:"city"`
	Days int    `json:"days"`
}

type forecastOut struct {
	City         string  `json:"city"`
	TemperatureC float64 `json:"temperatureC"`
}

// typedRegistry holds the typed tool "forecast"; runs counts its calls.
func typedRegistry(t *testing.T, runs *atomic.Int64) *toolexec.Registry {
	t.Helper()
	reg := toolexec.NewRegistry()
	require.NoError(t, toolexec.AddTool(reg, toolexec.Tool{Name: "forecast"},
		func(_ context.Context, in forecastIn) (forecastOut, error) {
			runs.Add(1)
			return forecastOut{City: in.City, TemperatureC: 21.5}, nil
		}))
	return reg
}

func newTypedExecutor(reg *toolexec.Registry) *toolexec.Executor {
	return toolexec.New(reg, reg, toolexec.WithAllowExecute(true))
}

func TestAValidationFailureListsEachFailureAsALineAndInStructuredContent(t *testing.T) {
	var runs atomic.Int64
	reg := toolexec.NewRegistry()
	reg.MustAdd(toolexec.Tool{Name: "ship", InputSchema: json.RawMessage(addressSchema)},
		func(string, map[string]any) ([]toolexec.Content, bool, string, error) {
			runs.Add(1)
			return nil, false, "", nil
		})
	h := mcp.NewHandler(toolexec.New(reg, reg, toolexec.WithAllowExecute(true)))

	rec := post(t, h, callBody("ship", `{"units":"kelvin","address":{}}`))
	require.Equal(t, http.StatusOK, rec.Code)
	assert.JSONEq(t, `{"jsonrpc":"2.0","id":1,"result":{
		"content":[{"type":"text","text":"(root): minProperties: got 2, want 3\n/address/zip~1code: missing property 'zip/code'\n/location: missing property 'location'\n/units: value must be one of 'celsius', 'fahrenheit'"}],
		"structuredContent":{"errors":[
			{"path":"","message":"minProperties: got 2, want 3","keyword":"minProperties"},
			{"path":"/address/zip~1code","message":"missing property 'zip/code'","keyword":"required"},
			{"path":"/location","message":"missing property 'location'","keyword":"required"},
			{"path":"/units","message":"value must be one of 'celsius', 'fahrenheit'","keyword":"enum"}]},
		"isError":true}}`, rec.Body.String())
	assert.Zero(t, runs.Load(), "invalid arguments never reach the handler")
}

func TestSeed001sMissingLocationIsAValidationFailureOverMCP(t *testing.T) {
	rec := post(t, newHandler(t, nil), callBody("weather_get", `{"units":"celsius"}`))
	require.Equal(t, http.StatusOK, rec.Code)
	assert.JSONEq(t, `{"jsonrpc":"2.0","id":1,"result":{
		"content":[{"type":"text","text":"/location: missing property 'location'"}],
		"structuredContent":{"errors":[{"path":"/location","message":"missing property 'location'","keyword":"required"}]},
		"isError":true}}`, rec.Body.String())
}

// Clients check structuredContent against a tool's outputSchema even on
// error results, so the failure list must not travel there for such a
// tool; the text block carries every failure.
func TestAValidationFailureOfAToolWithAnOutputSchemaIsTextOnly(t *testing.T) {
	var runs atomic.Int64
	reg := typedRegistry(t, &runs)
	reg.MustAdd(toolexec.Tool{
		Name:         "declared",
		InputSchema:  json.RawMessage(`{"type":"object","properties":{"location":{"type":"string"}},"required":["location"]}`),
		OutputSchema: json.RawMessage(`{"type":"object","required":["temperature"]}`),
	}, func(string, map[string]any) ([]toolexec.Content, bool, string, error) {
		runs.Add(1)
		return nil, false, "", nil
	})
	h := mcp.NewHandler(toolexec.New(reg, reg, toolexec.WithAllowExecute(true)))

	cases := []struct {
		name, tool, args, text string
	}{
		{"typed tool, inferred schemas", "forecast", `{"city":3,"extra":true}`,
			"/city: got number, want string\n/days: missing property 'days'\n/extra: additional properties 'extra' not allowed"},
		{"plain tool, declared outputSchema", "declared", `{"location":["Oslo"]}`,
			"/location: got array, want string"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			rec := post(t, h, callBody(c.tool, c.args))
			require.Equal(t, http.StatusOK, rec.Code)
			want, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "result": map[string]any{
				"content": []any{map[string]any{"type": "text", "text": c.text}},
				"isError": true,
			}})
			require.NoError(t, err)
			assert.JSONEq(t, string(want), rec.Body.String(), "no structuredContent key at all")
		})
	}
	assert.Zero(t, runs.Load(), "invalid arguments never reach the handler")
}

func TestATypedToolAnswersStructuredContentAndListsItsOutputSchema(t *testing.T) {
	var runs atomic.Int64
	h := mcp.NewHandler(newTypedExecutor(typedRegistry(t, &runs)))

	rec := post(t, h, `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)
	require.Equal(t, http.StatusOK, rec.Code)
	assert.JSONEq(t, `{"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"forecast",
		"inputSchema":{"type":"object","properties":{"city":{"type":"string"},"days":{"type":"integer"}},"required":["city","days"],"additionalProperties":false},
		"outputSchema":{"type":"object","properties":{"city":{"type":"string"},"temperatureC":{"type":"number"}},"required":["city","temperatureC"],"additionalProperties":false}}]}}`,
		rec.Body.String())

	rec = post(t, h, callBody("forecast", `{"city":"Oslo","days":1}`))
	assert.JSONEq(t, `{"jsonrpc":"2.0","id":1,"result":{
		"content":[{"type":"text","text":"{\"city\":\"Oslo\",\"temperatureC\":21.5}"}],
		"structuredContent":{"city":"Oslo","temperatureC":21.5},
		"isError":false}}`, rec.Body.String())
	assert.EqualValues(t, 1, runs.Load())
}

// An output that breaks the tool's outputSchema is the tool's fault: the
// caller gets a tool error without the details (they are logged), never
// the offending structuredContent.
func TestAnOutputThatBreaksTheOutputSchemaIsAToolError(t *testing.T) {
	reg := toolexec.NewRegistry()
	require.NoError(t, toolexec.AddTool(reg, toolexec.Tool{
		Name:         "forecast",
		OutputSchema: json.RawMessage(`{"type":"object","properties":{"temperatureC":{"type":"number","minimum":-90}},"required":["temperatureC"]}`),
	}, func(context.Context, forecastIn) (forecastOut, error) {
		return forecastOut{City: "Oslo", TemperatureC: -300}, nil
	}))
	h := mcp.NewHandler(toolexec.New(reg, reg, toolexec.WithAllowExecute(true), toolexec.WithLogger(quietLogger())))

	rec := post(t, h, callBody("forecast", `{"city":"Oslo","days":1}`))
	assert.JSONEq(t, `{"jsonrpc":"2.0","id":1,"result":{
		"content":[{"type":"text","text":"The tool's output does not match its output schema."}],
		"isError":true}}`, rec.Body.String())

	status, body := handsAICall(t, h, `{"jsonrpc":"2.0","method":"tools/call","params":{"name":"forecast","arguments":{"city":"Oslo","days":1}},"id":1}`)
	assert.Equal(t, http.StatusOK, status)
	assert.JSONEq(t, `{"jsonrpc":"2.0","error":{"code":-32603,"message":"Internal error: The tool's output does not match its output schema."},"id":1}`, body)
}

func TestHandsAIRefusesATypedToolsInvalidArgumentsWithItsWording(t *testing.T) {
	var runs atomic.Int64
	h := mcp.NewHandler(newTypedExecutor(typedRegistry(t, &runs)))
	status, body := handsAICall(t, h, `{"jsonrpc":"2.0","method":"tools/call","params":{"name":"forecast","arguments":{"city":3}},"id":"v"}`)
	assert.Equal(t, http.StatusOK, status)
	assert.JSONEq(t, `{"jsonrpc":"2.0","error":{"code":-32602,"message":"Invalid params: /city: got number, want string; days is required"},"id":"v"}`, body)
	assert.Zero(t, runs.Load())
}

func TestWithValidationOffMCPCallsReachTheHandlerUnchecked(t *testing.T) {
	h := newHandler(t, []toolexec.Option{toolexec.WithValidation(false)})
	res := callResult(t, post(t, h, callBody("weather_get", `{"units":"celsius"}`)))
	assert.False(t, res.IsError, "the surface adds no validation of its own")
}
