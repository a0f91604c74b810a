package toolexec_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http/httptest"
	"strings"

	"github.com/toolexec/toolexec"
)

// Executor.Validate checks arguments against a tool's input schema without
// running anything, in-process.
func ExampleExecutor_Validate() {
	reg := toolexec.NewRegistry()
	reg.MustAdd(toolexec.Tool{
		Name:        "book",
		InputSchema: json.RawMessage(`{"type":"object","properties":{"seats":{"type":"integer","minimum":1}},"required":["room","seats"]}`),
	}, func(string, map[string]any) ([]toolexec.Content, bool, string, error) {
		panic("validation never runs the handler")
	})
	x := toolexec.New(reg, reg) // execution disabled: validation still answers

	res, err := x.Validate(context.Background(), "book", "", json.RawMessage(`{"seats": 0}`))
	if err != nil {
		panic(err)
	}
	fmt.Println("valid:", res.Valid)
	for _, f := range res.Errors {
		fmt.Printf("%s [%s] %s\n", f.Path, f.Keyword, f.Message)
	}
	// Output:
	// valid: false
	// /room [required] missing property 'room'
	// /seats [minimum] minimum: got 0, want 1
}

// POST /tools/{name}/validate answers 200 with {"valid": ...} for any JSON
// body, and 400 for a body that is not JSON.
func ExampleNewHandler_validate() {
	reg := toolexec.NewRegistry()
	reg.MustAdd(toolexec.Tool{
		Name:        "book",
		InputSchema: json.RawMessage(`{"type":"object","properties":{"room":{"type":"string"}},"required":["room"]}`),
	}, func(string, map[string]any) ([]toolexec.Content, bool, string, error) { return nil, false, "", nil })
	srv := httptest.NewServer(toolexec.NewHandler(toolexec.New(reg, reg)))
	defer srv.Close()

	for _, body := range []string{`{"room": "A1"}`, `{"room": 7}`, `{"room":`} {
		resp, err := srv.Client().Post(srv.URL+"/tools/book/validate", "application/json", strings.NewReader(body))
		if err != nil {
			panic(err)
		}
		out, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		fmt.Print(resp.StatusCode, " ", string(out))
	}
	// Output:
	// 200 {"valid":true}
	// 200 {"valid":false,"errors":[{"path":"/room","message":"got number, want string","keyword":"type"}]}
	// 400 {"valid":false,"errors":[{"path":"","message":"Invalid JSON: unexpected EOF","keyword":"format"}]}
}

// Calls are validated by default; a failed validation is an *Error of the
// validate stage listing each failure, and the handler never runs.
// WithValidation(false) (or ToolOptions.SkipValidation for one tool) turns
// it off.
func ExampleWithValidation() {
	reg := toolexec.NewRegistry()
	reg.MustAdd(toolexec.Tool{
		Name:        "book",
		InputSchema: json.RawMessage(`{"type":"object","required":["room"]}`),
	}, func(string, map[string]any) ([]toolexec.Content, bool, string, error) {
		return []toolexec.Content{toolexec.Text("booked")}, false, "", nil
	})
	ctx := context.Background()

	strict := toolexec.New(reg, reg, toolexec.WithAllowExecute(true))
	_, err := strict.Call(ctx, toolexec.CallRequest{Name: "book", Arguments: json.RawMessage(`{}`)})
	e, _ := toolexec.AsError(err)
	fmt.Println(e.Stage, e.Code, e.Failures[0].Path, e.Failures[0].Keyword)

	lenient := toolexec.New(reg, reg, toolexec.WithAllowExecute(true), toolexec.WithValidation(false))
	res, _ := lenient.Call(ctx, toolexec.CallRequest{Name: "book", Arguments: json.RawMessage(`{}`)})
	fmt.Println(res.Text())
	// Output:
	// validate invalid_arguments /room required
	// booked
}
