package oxp_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolexec/toolexec"
	"github.com/toolexec/toolexec/oxp"
)

// The OXP 1.0 examples' tools: Calculator.Add@1.0.0 and Doorbell.Ring@0.1.0.
var (
	calculatorAdd = toolexec.Tool{
		Name:        "Calculator.Add",
		Version:     "1.0.0",
		Description: "Adds two numbers together.",
		InputSchema: json.RawMessage(`{"type":"object","properties":{"a":{"type":"number","description":"The first number to add."},` +
			`"b":{"type":"number","description":"The second number to add."}},"required":["a","b"]}`),
		OutputSchema: json.RawMessage(`{"type":"number","description":"The sum of the two numbers."}`),
	}
	doorbellRing = toolexec.Tool{
		Name:        "Doorbell.Ring",
		Version:     "0.1.0",
		Description: "Rings a doorbell given a doorbell ID.",
		InputSchema: json.RawMessage(`{"type":"object","properties":{"doorbell_id":{"type":"string","description":"The ID of the doorbell to ring."}},"required":["doorbell_id"]}`),
	}
)

// add answers a + b as its text, the JSON of a number.
func add(_ context.Context, _ string, args map[string]any) ([]toolexec.Content, bool, string, error) {
	a, _ := args["a"].(float64)
	b, _ := args["b"].(float64)
	return []toolexec.Content{toolexec.Text(fmt.Sprint(a + b))}, false, "", nil
}

// ring knows doorbells 42 and 84 only, and says so as OXP's retry hints.
func ring(_ context.Context, _ string, args map[string]any) ([]toolexec.Content, bool, string, error) {
	id, _ := args["doorbell_id"].(string)
	if id != "doorbell42" && id != "doorbell84" {
		return nil, false, "", &toolexec.ToolError{
			Message:                 "Doorbell ID not found",
			DeveloperMessage:        fmt.Sprintf("The doorbell with ID '%s' does not exist.", id),
			CanRetry:                true,
			AdditionalPromptContent: "ids: doorbell42,doorbell84",
			RetryAfter:              500 * time.Millisecond,
		}
	}
	return []toolexec.Content{toolexec.Text("ding")}, false, "", nil
}

// seedRegistry holds the OXP 1.0 examples' tools.
func seedRegistry(t *testing.T) *toolexec.Registry {
	t.Helper()
	reg := &toolexec.Registry{}
	require.NoError(t, reg.Add(calculatorAdd, add))
	require.NoError(t, reg.Add(doorbellRing, ring))
	return reg
}

// newHandler serves reg over OXP with execution on; the pipeline's schema
// validation (on by default) checks each call's input.
func newHandler(t *testing.T, reg *toolexec.Registry, xopts []toolexec.Option, opts ...oxp.Option) http.Handler {
	t.Helper()
	xopts = append([]toolexec.Option{toolexec.WithAllowExecute(true), toolexec.WithLogger(discardLogger())}, xopts...)
	return oxp.NewHandler(toolexec.New(reg, reg, xopts...), opts...)
}

// do sends one request to h and returns the recorded response.
func do(h http.Handler, method, path, body string, header ...string) *httptest.ResponseRecorder {
	var r *http.Request
	if body == "" {
		r = httptest.NewRequest(method, path, nil)
	} else {
		r = httptest.NewRequest(method, path, strings.NewReader(body))
		r.Header.Set("Content-Type", "application/json")
	}
	for i := 0; i+1 < len(header); i += 2 {
		r.Header.Add(header[i], header[i+1])
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	return w
}

func call(h http.Handler, body string, header ...string) *httptest.ResponseRecorder {
	return do(h, http.MethodPost, "/tools/call", body, header...)
}

// callBody decodes a 200 answer, checks the duration is a measured number,
// then drops it so the rest can be compared exactly.
func callBody(t *testing.T, w *httptest.ResponseRecorder) map[string]any {
	t.Helper()
	require.Equal(t, http.StatusOK, w.Code, w.Body.String())
	assert.Equal(t, "1.0", w.Header().Get("OXP-Version"))
	assert.Equal(t, "application/json", w.Header().Get("Content-Type"))
	var m map[string]any
	require.NoError(t, json.Unmarshal(w.Body.Bytes(), &m), w.Body.String())
	d, ok := m["duration"].(float64)
	require.True(t, ok, "duration is a number: %s", w.Body.String())
	assert.GreaterOrEqual(t, d, 0.0)
	delete(m, "duration")
	return m
}

// jsonEq asserts that the body is exactly want, as JSON.
func jsonEq(t *testing.T, want string, w *httptest.ResponseRecorder) {
	t.Helper()
	assert.JSONEq(t, want, w.Body.String())
}

func toJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	require.NoError(t, err)
	return string(b)
}

func jsonUnmarshal(w *httptest.ResponseRecorder, v any) error {
	return json.Unmarshal(w.Body.Bytes(), v)
}
