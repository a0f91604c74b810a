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

// ConvertIn and ConvertOut are the Go types of a typed tool: the input
// schema is inferred from ConvertIn, the output schema from ConvertOut, and
// the jsonschema tags become property descriptions.
type ConvertIn struct {
	Celsius float64 `json:"celsius" jsonschema:"temperature in degrees Celsius"`
	Round   bool    `json:"round,omitempty" jsonschema:"round to a whole degree"`
}

type ConvertOut struct {
	Fahrenheit float64 `json:"fahrenheit"`
}

// A typed tool: the handler gets decoded arguments and returns a Go value,
// which becomes structuredContent plus a text block with the same JSON.
// Arguments that break the inferred schema never reach the handler.
func ExampleAddTool() {
	reg := toolexec.NewRegistry()
	err := toolexec.AddTool(reg, toolexec.Tool{Name: "convert", Description: "Celsius to Fahrenheit."},
		func(_ context.Context, in ConvertIn) (ConvertOut, error) {
			f := in.Celsius*9/5 + 32
			if in.Round {
				f = float64(int(f + 0.5))
			}
			return ConvertOut{Fahrenheit: f}, nil
		})
	if err != nil {
		panic(err)
	}
	tool, _ := reg.LookupTool("convert", "")
	fmt.Println(string(tool.InputSchema))
	fmt.Println(string(tool.OutputSchema))

	srv := httptest.NewServer(toolexec.NewHandler(toolexec.New(reg, reg, toolexec.WithAllowExecute(true))))
	defer srv.Close()
	for _, body := range []string{`{"celsius": 21.5}`, `{"celsius": "warm"}`} {
		resp, err := srv.Client().Post(srv.URL+"/tools/convert/call", "application/json", strings.NewReader(body))
		if err != nil {
			panic(err)
		}
		out, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		fmt.Print(resp.StatusCode, " ", string(out))
	}
	// Output:
	// {"type":"object","properties":{"celsius":{"type":"number","description":"temperature in degrees Celsius"},"round":{"type":"boolean","description":"round to a whole degree"}},"required":["celsius"],"additionalProperties":false}
	// {"type":"object","properties":{"fahrenheit":{"type":"number"}},"required":["fahrenheit"],"additionalProperties":false}
	// 200 {"content":[{"type":"text","text":"{\"fahrenheit\":70.7}"}],"structuredContent":{"fahrenheit":70.7},"isError":false}
	// 422 {"content":[{"type":"text","text":"/celsius: got string, want number"}],"structuredContent":{"errors":[{"path":"/celsius","message":"got string, want number","keyword":"type"}]},"isError":true}
}

// A typed handler that only needs content returns []Content (or one
// Content, or a whole *CallToolResult); no output schema is inferred.
func ExampleAddTool_content() {
	type echoIn struct {
		Text string `json:"text"`
	}
	reg := toolexec.NewRegistry()
	toolexec.MustAddTool(reg, toolexec.Tool{Name: "echo"}, func(_ context.Context, in echoIn) ([]toolexec.Content, error) {
		return []toolexec.Content{toolexec.Text(in.Text), toolexec.Text(strings.ToUpper(in.Text))}, nil
	})
	x := toolexec.New(reg, reg, toolexec.WithAllowExecute(true))
	res, err := x.Call(context.Background(), toolexec.CallRequest{Name: "echo", Arguments: json.RawMessage(`{"text": "hi"}`)})
	if err != nil {
		panic(err)
	}
	fmt.Println(res.Text())
	// Output:
	// hi
	// HI
}

// A handler error is a tool error; a *ToolError says more than a message,
// for the surfaces that can carry it.
func ExampleAddTool_toolError() {
	reg := toolexec.NewRegistry()
	toolexec.MustAddTool(reg, toolexec.Tool{Name: "lookup"}, func(_ context.Context, in struct {
		City string `json:"city"`
	}) (ConvertOut, error) {
		return ConvertOut{}, &toolexec.ToolError{
			Message:                 "Unknown city: " + in.City,
			DeveloperMessage:        "geocoder returned no match",
			AdditionalPromptContent: "Known cities: Oslo, Lisbon",
		}
	})
	x := toolexec.New(reg, reg, toolexec.WithAllowExecute(true))
	_, err := x.Call(context.Background(), toolexec.CallRequest{Name: "lookup", Arguments: json.RawMessage(`{"city": "Atlantis"}`)})
	e, _ := toolexec.AsError(err)
	fmt.Println(e.Stage, e.Code, e.Message)
	// Output:
	// execute tool_error Unknown city: Atlantis
}
