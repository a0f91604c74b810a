package toolexec_test

// This file pins, in one place, every test criterion the source documents
// fix exactly: the execution API's POST /tools/{name}/call (its criteria 1
// to 7 and its precondition order), its auth hook and validate endpoint,
// HandsAI's envelopes and messages, and OXP 1.0's statuses. Each test names
// the criterion it holds; a change that breaks one fails here, whatever
// else it was meant to do. Bodies are compared exactly.

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolexec/toolexec"
	"github.com/toolexec/toolexec/mcp"
	"github.com/toolexec/toolexec/oxp"
)

// contract is the tools every criterion is checked with.
type contract struct {
	reg  *toolexec.Registry
	ran  atomic.Int64 // handler runs
	args chan map[string]any
}

type contractUser struct{}

func newContract(t *testing.T) *contract {
	t.Helper()
	c := &contract{reg: toolexec.NewRegistry(), args: make(chan map[string]any, 16)}
	c.reg.MustAdd(toolexec.Tool{Name: "echo", Description: "Echoes its arguments.",
		Annotations: &toolexec.ToolAnnotations{Title: "Echo"}},
		func(ctx context.Context, _ string, args map[string]any) ([]toolexec.Content, bool, string, error) {
			c.ran.Add(1)
			c.args <- args
			b, _ := json.Marshal(args)
			return []toolexec.Content{toolexec.Text(string(b))}, false, "abc-123", nil
		})
	c.reg.MustAdd(toolexec.Tool{Name: "soft", Description: "Reports a logical error."},
		func(string, map[string]any) ([]toolexec.Content, bool, string, error) {
			c.ran.Add(1)
			return []toolexec.Content{toolexec.Text("city not found")}, true, "", nil
		})
	c.reg.MustAdd(toolexec.Tool{Name: "raise", Description: "Fails."},
		func(string, map[string]any) ([]toolexec.Content, bool, string, error) {
			c.ran.Add(1)
			return nil, false, "", errors.New("Connection timeout")
		})
	c.reg.MustAdd(toolexec.Tool{Name: "untraced", Description: "No trace id."},
		func(string, map[string]any) ([]toolexec.Content, bool, string, error) {
			c.ran.Add(1)
			return []toolexec.Content{toolexec.Text("ok")}, false, "", nil
		})
	c.reg.MustAdd(toolexec.Tool{Name: "whoami", Description: "The hook's identity."},
		func(ctx context.Context, _ string, _ map[string]any) ([]toolexec.Content, bool, string, error) {
			c.ran.Add(1)
			user, _ := toolexec.RequestFromContext(ctx).Context().Value(contractUser{}).(string)
			return []toolexec.Content{toolexec.Text(user)}, false, "", nil
		})
	c.reg.MustAdd(toolexec.Tool{Name: "weather_get", Description: "Weather",
		InputSchema: json.RawMessage(`{"type":"object","properties":{"location":{"type":"string"}},"required":["location"]}`)},
		func(string, map[string]any) ([]toolexec.Content, bool, string, error) {
			c.ran.Add(1)
			return []toolexec.Content{toolexec.Text(`{"temperature": 18}`)}, false, "", nil
		})
	c.reg.MustAdd(toolexec.Tool{Name: "broken_schema", Description: "A schema that does not compile.",
		InputSchema: json.RawMessage(`{"type":"object","properties":{"a":{"type":"no-such-type"}}}`)},
		func(string, map[string]any) ([]toolexec.Content, bool, string, error) { return nil, false, "", nil })
	return c
}

func (c *contract) executor(opts ...toolexec.Option) *toolexec.Executor {
	base := []toolexec.Option{toolexec.WithAllowExecute(true), toolexec.WithLogger(slog.New(slog.NewTextHandler(io.Discard, nil)))}
	return toolexec.New(c.reg, c.reg, append(base, opts...)...)
}

// contractHook admits "Authorization: Bearer good" as alice; it refuses
// anyone else, saying why in words no caller may see.
func contractHook(ran *atomic.Int64) toolexec.AuthHook {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			ran.Add(1)
			if r.Header.Get("Authorization") != "Bearer good" {
				http.Error(w, "token of bob expired at 12:00", http.StatusForbidden)
				return
			}
			next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), contractUser{}, "alice")))
		})
	}
}

type answer struct {
	status int
	header http.Header
	body   string
}

func exchange(h http.Handler, method, target, body string, header ...string) answer {
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	r := httptest.NewRequest(method, target, rd)
	for i := 0; i+1 < len(header); i += 2 {
		r.Header.Set(header[i], header[i+1])
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	return answer{w.Code, w.Header(), w.Body.String()}
}

// The execution API, POST /tools/{name}/call: test criteria 1 to 7.

func TestContractExecutionCriterion1SuccessIs200WithContentAndTraceID(t *testing.T) {
	c := newContract(t)
	a := exchange(toolexec.NewHandler(c.executor()), http.MethodPost, "/tools/echo/call", `{"q":"x"}`)
	assert.Equal(t, http.StatusOK, a.status)
	assert.Equal(t, "application/json", a.header.Get("Content-Type"))
	assert.JSONEq(t, `{"content":[{"type":"text","text":"{\"q\":\"x\"}"}],"isError":false,"_meta":{"_trace_id":"abc-123"}}`, a.body)
}

func TestContractExecutionCriterion2IsErrorIs500(t *testing.T) {
	c := newContract(t)
	a := exchange(toolexec.NewHandler(c.executor()), http.MethodPost, "/tools/soft/call", `{}`)
	assert.Equal(t, http.StatusInternalServerError, a.status)
	assert.JSONEq(t, `{"content":[{"type":"text","text":"city not found"}],"isError":true}`, a.body)
}

func TestContractExecutionCriterion3UnknownToolIs404(t *testing.T) {
	c := newContract(t)
	a := exchange(toolexec.NewHandler(c.executor()), http.MethodPost, "/tools/nope/call", `{}`)
	assert.Equal(t, http.StatusNotFound, a.status)
	assert.JSONEq(t, `{"error":"Tool not found: nope"}`, a.body)
}

func TestContractExecutionCriterion4ExecutionDisabledIs403(t *testing.T) {
	c := newContract(t)
	a := exchange(toolexec.NewHandler(toolexec.New(c.reg, c.reg)), http.MethodPost, "/tools/echo/call", `{}`)
	assert.Equal(t, http.StatusForbidden, a.status)
	assert.JSONEq(t, `{"error":"Tool execution is disabled."}`, a.body)
	assert.Zero(t, c.ran.Load())
}

func TestContractExecutionCriterion5InvalidJSONIsAnEmptyObject(t *testing.T) {
	c := newContract(t)
	h := toolexec.NewHandler(c.executor())
	for _, body := range []string{`not json`, ``, `[1,2]`, `{"a":`} {
		a := exchange(h, http.MethodPost, "/tools/echo/call", body)
		assert.Equal(t, http.StatusOK, a.status, body)
		assert.Equal(t, map[string]any{}, <-c.args, body)
	}
}

func TestContractExecutionCriterion6HandlerExceptionIs500WithItsMessage(t *testing.T) {
	c := newContract(t)
	a := exchange(toolexec.NewHandler(c.executor()), http.MethodPost, "/tools/raise/call", `{}`)
	assert.Equal(t, http.StatusInternalServerError, a.status)
	assert.JSONEq(t, `{"content":[{"type":"text","text":"Connection timeout"}],"isError":true}`, a.body)
}

func TestContractExecutionCriterion7NoTraceIDNoMeta(t *testing.T) {
	c := newContract(t)
	a := exchange(toolexec.NewHandler(c.executor()), http.MethodPost, "/tools/untraced/call", `{}`)
	assert.Equal(t, http.StatusOK, a.status)
	assert.JSONEq(t, `{"content":[{"type":"text","text":"ok"}],"isError":false}`, a.body)
	assert.NotContains(t, a.body, "_meta")
}

func TestContractExecutionPreconditionOrder(t *testing.T) {
	// 1 the gate (403), 2 the lookup (404), 3 a body that is not JSON is
	// {}, 4 the auth hook (401), 5 the handler.
	c := newContract(t)
	var hook atomic.Int64
	disabled := toolexec.NewHandler(toolexec.New(c.reg, c.reg, toolexec.WithAuthHook(contractHook(&hook))))
	assert.Equal(t, http.StatusForbidden, exchange(disabled, http.MethodPost, "/tools/nope/call", `{}`).status, "gate before lookup")
	assert.Equal(t, http.StatusForbidden, exchange(disabled, http.MethodPost, "/tools/echo/call", `{}`).status, "gate before hook")

	h := toolexec.NewHandler(c.executor(toolexec.WithAuthHook(contractHook(&hook))))
	a := exchange(h, http.MethodPost, "/tools/nope/call", `{}`)
	assert.Equal(t, http.StatusNotFound, a.status, "lookup before hook")
	assert.JSONEq(t, `{"error":"Tool not found: nope"}`, a.body)
	assert.Zero(t, hook.Load(), "the hook ran for neither")

	a = exchange(h, http.MethodPost, "/tools/echo/call", `not json`)
	assert.Equal(t, http.StatusUnauthorized, a.status, "a body that is not JSON goes on to the hook")
	assert.Equal(t, "{\"error\":\"Unauthorized\"}\n", a.body)

	a = exchange(h, http.MethodPost, "/tools/echo/call", `not json`, "Authorization", "Bearer good")
	assert.Equal(t, http.StatusOK, a.status)
	assert.Equal(t, map[string]any{}, <-c.args)
}

// The auth hook.

func TestContractAuthHookRefusalIsExactly401Unauthorized(t *testing.T) {
	c := newContract(t)
	var hook atomic.Int64
	h := toolexec.NewHandler(c.executor(toolexec.WithAuthHook(contractHook(&hook))))
	a := exchange(h, http.MethodPost, "/tools/echo/call", `{}`)
	assert.Equal(t, http.StatusUnauthorized, a.status)
	assert.Equal(t, "{\"error\":\"Unauthorized\"}\n", a.body)
	assert.NotContains(t, a.body, "bob", "nothing of why")
	assert.Zero(t, c.ran.Load())
}

func TestContractAuthHookIdentityReachesTheHandler(t *testing.T) {
	c := newContract(t)
	var hook atomic.Int64
	h := toolexec.NewHandler(c.executor(toolexec.WithAuthHook(contractHook(&hook))))
	a := exchange(h, http.MethodPost, "/tools/whoami/call", `{}`, "Authorization", "Bearer good")
	assert.JSONEq(t, `{"content":[{"type":"text","text":"alice"}],"isError":false}`, a.body)
}

func TestContractAuthHookGuardsCallsOnlyNeverDiscoveryOrValidate(t *testing.T) {
	c := newContract(t)
	var hook atomic.Int64
	h := toolexec.NewHandler(c.executor(toolexec.WithAuthHook(contractHook(&hook))))
	assert.Equal(t, http.StatusOK, exchange(h, http.MethodGet, "/tools", "").status)
	assert.Equal(t, http.StatusOK, exchange(h, http.MethodGet, "/tools/echo", "").status)
	assert.Equal(t, http.StatusOK, exchange(h, http.MethodPost, "/tools/echo/validate", `{}`).status)
	assert.Zero(t, hook.Load())
}

// Discovery.

func TestContractDiscoveryListAndDetail(t *testing.T) {
	c := newContract(t)
	h := toolexec.NewHandler(c.executor())
	var list []map[string]json.RawMessage
	a := exchange(h, http.MethodGet, "/tools", "")
	require.Equal(t, http.StatusOK, a.status)
	require.NoError(t, json.Unmarshal([]byte(a.body), &list))
	require.NotEmpty(t, list)
	assert.JSONEq(t, `{"name":"echo","description":"Echoes its arguments.","annotations":{"title":"Echo"}}`, mustJSON(t, list[0]))
	assert.JSONEq(t, `{"name":"soft","description":"Reports a logical error."}`, mustJSON(t, list[1]), "annotations omitted, never null")

	a = exchange(h, http.MethodGet, "/tools/soft", "")
	assert.JSONEq(t, `{"name":"soft","description":"Reports a logical error.","inputSchema":{"type":"object"}}`, a.body)
	a = exchange(h, http.MethodGet, "/tools/nope", "")
	assert.Equal(t, http.StatusNotFound, a.status)
	assert.JSONEq(t, `{"error":"Tool not found: nope"}`, a.body)
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	require.NoError(t, err)
	return string(b)
}

// The validate endpoint.

func TestContractValidate(t *testing.T) {
	c := newContract(t)
	h := toolexec.NewHandler(toolexec.New(c.reg, c.reg)) // not gated by execution
	cases := []struct {
		name, tool, body string
		status           int
		want             string
	}{
		{"valid", "weather_get", `{"location":"Oslo"}`, http.StatusOK, `{"valid":true}`},
		{"invalid", "weather_get", `{}`, http.StatusOK,
			`{"valid":false,"errors":[{"path":"","message":"missing property 'location'","keyword":"required"}]}`},
		{"no schema", "echo", `{"anything":[1]}`, http.StatusOK, `{"valid":true}`},
		{"unknown tool", "nope", `{}`, http.StatusNotFound, `{"error":"Tool not found: nope"}`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			a := exchange(h, http.MethodPost, "/tools/"+tc.tool+"/validate", tc.body)
			assert.Equal(t, tc.status, a.status)
			if tc.name == "invalid" {
				var got toolexec.ValidateResult
				require.NoError(t, json.Unmarshal([]byte(a.body), &got))
				require.Len(t, got.Errors, 1)
				assert.False(t, got.Valid)
				assert.Equal(t, "required", got.Errors[0].Keyword)
				assert.Contains(t, []string{"", "/location"}, got.Errors[0].Path)
				assert.NotEmpty(t, got.Errors[0].Message)
				return
			}
			assert.JSONEq(t, tc.want, a.body)
		})
	}

	a := exchange(h, http.MethodPost, "/tools/weather_get/validate", `not json`)
	assert.Equal(t, http.StatusBadRequest, a.status)
	var bad struct {
		Valid  bool                         `json:"valid"`
		Errors []toolexec.ValidationFailure `json:"errors"`
	}
	require.NoError(t, json.Unmarshal([]byte(a.body), &bad))
	require.Len(t, bad.Errors, 1)
	assert.False(t, bad.Valid)
	assert.Equal(t, "", bad.Errors[0].Path)
	assert.True(t, strings.HasPrefix(bad.Errors[0].Message, "Invalid JSON: "), bad.Errors[0].Message)
	assert.Equal(t, "format", bad.Errors[0].Keyword)

	a = exchange(h, http.MethodPost, "/tools/broken_schema/validate", `{}`)
	assert.Equal(t, http.StatusOK, a.status, "an uncompilable schema is never a 5xx")
	require.NoError(t, json.Unmarshal([]byte(a.body), &bad))
	require.Len(t, bad.Errors, 1)
	assert.False(t, bad.Valid)
	assert.Equal(t, "schema", bad.Errors[0].Keyword)
	assert.True(t, strings.HasPrefix(bad.Errors[0].Message, "Invalid schema: "), bad.Errors[0].Message)
	assert.Zero(t, c.ran.Load(), "validate never runs a handler")
}

// HandsAI's POST /mcp/tools/call.

func handsAI(t *testing.T, h http.Handler, body string) answer {
	t.Helper()
	mux := http.NewServeMux()
	mux.Handle("/mcp/", h)
	a := exchange(mux, http.MethodPost, "/mcp/tools/call", body, "Content-Type", "application/json")
	assert.Equal(t, http.StatusOK, a.status, "HandsAI answers every envelope with 200")
	return a
}

func TestContractHandsAIEnvelopesAndMessages(t *testing.T) {
	c := newContract(t)
	h := mcp.NewHandler(c.executor())
	cases := map[string]struct{ request, response string }{
		"success echoes the id": {
			`{"jsonrpc":"2.0","method":"tools/call","params":{"name":"weather_get","arguments":{"location":"San Francisco"}},"id":"weather-123"}`,
			`{"jsonrpc":"2.0","result":{"content":[{"type":"text","text":"{\"temperature\": 18}"}]},"id":"weather-123"}`,
		},
		"missing required parameter": {
			`{"jsonrpc":"2.0","method":"tools/call","params":{"name":"weather_get","arguments":{}},"id":"error-789"}`,
			`{"jsonrpc":"2.0","error":{"code":-32602,"message":"Invalid params: location is required"},"id":"error-789"}`,
		},
		"missing request body": {
			`null`,
			`{"jsonrpc":"2.0","error":{"code":-32602,"message":"Invalid params: missing required parameters"}}`,
		},
		"unknown tool": {
			`{"jsonrpc":"2.0","method":"tools/call","params":{"name":"nope"},"id":1}`,
			`{"jsonrpc":"2.0","error":{"code":-32602,"message":"Invalid params: tool not found","data":"nope"},"id":1}`,
		},
		"execution failure": {
			`{"jsonrpc":"2.0","method":"tools/call","params":{"name":"raise","arguments":{}},"id":"fail-101"}`,
			`{"jsonrpc":"2.0","error":{"code":-32603,"message":"Internal error: Connection timeout"},"id":"fail-101"}`,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			assert.JSONEq(t, tc.response, handsAI(t, h, tc.request).body)
		})
	}
}

// OXP 1.0's POST /tools/call.

func TestContractOXPStatuses(t *testing.T) {
	reg := toolexec.NewRegistry()
	reg.MustAdd(toolexec.Tool{Name: "Calculator.Add", Version: "1.0.0", OutputSchema: json.RawMessage(`{"type":"number"}`),
		InputSchema: json.RawMessage(`{"type":"object","properties":{"a":{"type":"number"},"b":{"type":"number"}},"required":["a","b"]}`)},
		func(_ string, args map[string]any) ([]toolexec.Content, bool, string, error) {
			a, _ := args["a"].(float64)
			b, _ := args["b"].(float64)
			out, _ := json.Marshal(a + b)
			return []toolexec.Content{toolexec.Text(string(out))}, false, "", nil
		})
	reg.MustAdd(toolexec.Tool{Name: "Calculator.Fail", Version: "1.0.0"},
		func(string, map[string]any) ([]toolexec.Content, bool, string, error) {
			return nil, false, "", errors.New("the calculator is broken")
		})
	x := toolexec.New(reg, reg, toolexec.WithAllowExecute(true), toolexec.WithLogger(slog.New(slog.NewTextHandler(io.Discard, nil))))
	h := oxp.NewHandler(x)
	decode := func(a answer) map[string]any {
		var m map[string]any
		require.NoError(t, json.Unmarshal([]byte(a.body), &m), a.body)
		assert.Equal(t, "1.0", a.header.Get("OXP-Version"), "every response carries OXP-Version")
		return m
	}

	a := exchange(h, http.MethodPost, "/tools/call", `{"call_id":"c1","tool_id":"Calculator.Add@1","input":{"a":10,"b":5}}`)
	assert.Equal(t, http.StatusOK, a.status)
	m := decode(a)
	assert.Equal(t, "c1", m["call_id"])
	assert.Equal(t, true, m["success"])
	assert.Equal(t, 15.0, m["value"])
	assert.Contains(t, m, "duration")

	a = exchange(h, http.MethodPost, "/tools/call", `{"tool_id":"Calculator.Add","input":{"a":1,"b":2}}`)
	m = decode(a)
	assert.NotEmpty(t, m["call_id"], "the server generates a call_id when none is sent")

	for _, id := range []string{"Calculator.Nope", "Calculator.Add@2.0.0"} {
		a = exchange(h, http.MethodPost, "/tools/call", `{"tool_id":"`+id+`"}`)
		assert.Equal(t, http.StatusBadRequest, a.status, "unknown tool or version: 400 Server Error")
		m = decode(a)
		assert.NotEmpty(t, m["message"])
	}

	a = exchange(h, http.MethodPost, "/tools/call", `{"tool_id":"Calculator.Add@1.0.0","input":{"a":10,"b":"x"}}`)
	assert.Equal(t, http.StatusUnprocessableEntity, a.status, "input failing the schema: 422")
	m = decode(a)
	assert.NotEmpty(t, m["message"])
	require.IsType(t, map[string]any{}, m["parameter_errors"])
	assert.Contains(t, m["parameter_errors"], "b")

	a = exchange(h, http.MethodPost, "/tools/call", `{"call_id":"c2","tool_id":"Calculator.Fail"}`)
	assert.Equal(t, http.StatusOK, a.status, "an execution error is 200 with success false")
	m = decode(a)
	assert.Equal(t, false, m["success"])
	assert.Equal(t, map[string]any{"message": "the calculator is broken"}, m["error"])

	disabled := oxp.NewHandler(toolexec.New(reg, reg))
	a = exchange(disabled, http.MethodPost, "/tools/call", `{"tool_id":"Calculator.Add","input":{"a":1,"b":2}}`)
	assert.Equal(t, http.StatusBadRequest, a.status, "execution disabled: 400")
	decode(a)
}
