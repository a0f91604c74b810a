package oxp_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"

	"github.com/toolexec/toolexec"
	"github.com/toolexec/toolexec/oxp"
)

// Serve a registry over OXP, list its tools and call one. The same Executor
// can back the REST and MCP surfaces at once.
func Example() {
	reg := &toolexec.Registry{}
	sum := func(v string) toolexec.ToolCallHandlerFunc {
		return func(_ context.Context, _ string, args map[string]any) ([]toolexec.Content, bool, string, error) {
			a, _ := args["a"].(float64)
			b, _ := args["b"].(float64)
			return []toolexec.Content{toolexec.Text(fmt.Sprint(a + b))}, false, "", nil
		}
	}
	for _, v := range []string{"1.0.0", "1.1.0"} {
		reg.MustAdd(toolexec.Tool{
			Name:         "Calculator.Add",
			Version:      v,
			Description:  "Adds two numbers.",
			InputSchema:  json.RawMessage(`{"type":"object","properties":{"a":{"type":"number"},"b":{"type":"number"}},"required":["a","b"]}`),
			OutputSchema: json.RawMessage(`{"type":"number"}`), // so the text "15" is the value 15
		}, sum(v))
	}
	h := oxp.NewHandler(toolexec.New(reg, reg, toolexec.WithAllowExecute(true)))

	w := httptest.NewRecorder()
	h.ServeHTTP(w, httptest.NewRequest(http.MethodGet, "/tools", nil))
	var list struct{ Items []struct{ ID, Name string } }
	_ = json.Unmarshal(w.Body.Bytes(), &list)
	for _, t := range list.Items {
		fmt.Println(t.ID, t.Name)
	}

	w = httptest.NewRecorder()
	h.ServeHTTP(w, httptest.NewRequest(http.MethodPost, "/tools/call",
		strings.NewReader(`{"call_id": "c-1", "tool_id": "Calculator.Add@1", "input": {"a": 10, "b": 5}}`)))
	var res struct {
		CallID  string `json:"call_id"`
		Success bool   `json:"success"`
		Value   any    `json:"value"`
	}
	_ = json.Unmarshal(w.Body.Bytes(), &res)
	fmt.Println(w.Code, w.Header().Get("OXP-Version"), res.CallID, res.Success, res.Value)
	// Output:
	// Calculator.Add@1.0.0 Calculator_Add
	// Calculator.Add@1.1.0 Calculator_Add
	// 200 1.0 c-1 true 15
}

// A tool declares the secret it needs; OXP callers supply it in the call's
// context, and the handler reads it with FromContext. A call without it is
// refused before the tool runs.
func ExampleFromContext() {
	reg := &toolexec.Registry{}
	reg.MustAdd(toolexec.Tool{
		Name:         "SMS.Send",
		Version:      "0.1.2",
		Requirements: toolexec.Requirements{Secrets: []string{"TWILIO_API_KEY"}},
	}, func(ctx context.Context, _ string, _ map[string]any) ([]toolexec.Content, bool, string, error) {
		key, _ := oxp.FromContext(ctx).Secret("TWILIO_API_KEY")
		return []toolexec.Content{toolexec.Text("sent with a key of " + fmt.Sprint(len(key)) + " bytes")}, false, "", nil
	})
	h := oxp.NewHandler(toolexec.New(reg, reg, toolexec.WithAllowExecute(true)))

	for _, body := range []string{
		`{"tool_id": "SMS.Send"}`,
		`{"tool_id": "SMS.Send", "context": {"secrets": [{"id": "TWILIO_API_KEY", "value": "abc123"}]}}`,
	} {
		w := httptest.NewRecorder()
		h.ServeHTTP(w, httptest.NewRequest(http.MethodPost, "/tools/call", strings.NewReader(body)))
		var res struct {
			Value               any            `json:"value"`
			MissingRequirements map[string]any `json:"missing_requirements"`
		}
		_ = json.Unmarshal(w.Body.Bytes(), &res)
		fmt.Println(w.Code, res.Value, res.MissingRequirements)
	}
	// Output:
	// 400 <nil> map[secrets:[map[id:TWILIO_API_KEY]]]
	// 200 sent with a key of 6 bytes map[]
}

// Mount the OXP surface under a prefix of the host's own mux, beside its
// other routes.
func ExampleNewHandler() {
	reg := &toolexec.Registry{}
	x := toolexec.New(reg, reg, toolexec.WithAllowExecute(true))
	ready := false
	mux := http.NewServeMux()
	mux.Handle("/oxp/", http.StripPrefix("/oxp", oxp.NewHandler(x,
		oxp.WithToolkit("Acme"),
		oxp.WithReadiness(func(context.Context) bool { return ready }),
	)))

	for range 2 {
		w := httptest.NewRecorder()
		mux.ServeHTTP(w, httptest.NewRequest(http.MethodGet, "/oxp/health", nil))
		fmt.Println(w.Code)
		ready = true
	}
	// Output:
	// 503
	// 200
}
