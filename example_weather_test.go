package toolexec_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/toolexec/toolexec"
)

type WeatherIn struct {
	City  string  `json:"city" jsonschema:"the city to forecast"`
	Days  int     `json:"days,omitempty" jsonschema:"how many days, 1 by default"`
	Units *string `json:"units"`
}

type WeatherOut struct {
	City   string    `json:"city"`
	TempsC []float64 `json:"tempsC"`
}

// todayC is today's temperature forecast, in degrees Celsius, in a city
// the weather tool knows.
func todayC(city string) (float64, bool) {
	switch city {
	case "Oslo":
		return 4, true
	case "Lisbon":
		return 17, true
	case "Rome":
		return 15, true
	}
	return 0, false
}

// forecast forecasts days days of a city's temperatures.
func forecast(ctx context.Context, city string, days int) (WeatherOut, error) {
	if err := ctx.Err(); err != nil {
		return WeatherOut{}, err
	}
	out := WeatherOut{City: city}
	t, _ := todayC(city)
	for d := range days {
		out.TempsC = append(out.TempsC, t+float64(d))
	}
	return out, nil
}

// weather is a typed handler that says more than a message when it cannot
// help.
func weather(ctx context.Context, in WeatherIn) (WeatherOut, error) {
	if _, ok := todayC(in.City); !ok {
		return WeatherOut{}, &toolexec.ToolError{
			Message:                 "Unknown city: " + in.City,
			DeveloperMessage:        "geocoder returned no match",
			CanRetry:                true,
			AdditionalPromptContent: "Known cities: Oslo, Lisbon, Rome",
		}
	}
	return forecast(ctx, in.City, max(in.Days, 1))
}

// A typed tool: the input schema comes from WeatherIn, the output schema
// from WeatherOut, and the handler gets a decoded WeatherIn.
func ExampleAddTool_weather() {
	reg := toolexec.NewRegistry()
	err := toolexec.AddTool(reg, toolexec.Tool{Name: "weather", Description: "Forecast"},
		func(ctx context.Context, in WeatherIn) (WeatherOut, error) {
			return forecast(ctx, in.City, max(in.Days, 1))
		})

	x := toolexec.New(reg, reg, toolexec.WithAllowExecute(true))
	if err != nil {
		panic(err)
	}
	res, err := x.Call(context.Background(), toolexec.CallRequest{Name: "weather", Arguments: json.RawMessage(`{"city":"Oslo","days":2,"units":null}`)})
	if err != nil {
		panic(err)
	}
	fmt.Println(res.Text())
	// Output:
	// {"city":"Oslo","tempsC":[4,5]}
}

// A schema given with the tool is kept: here it adds bounds the Go type
// cannot express.
func ExampleAddTool_ownSchema() {
	reg := toolexec.NewRegistry()
	toolexec.AddTool(reg, toolexec.Tool{
		Name:        "weather",
		InputSchema: json.RawMessage(`{"type":"object","properties":{"city":{"type":"string","minLength":1},"days":{"type":"integer","minimum":1,"maximum":14}},"required":["city"]}`),
	}, weather)
	x := toolexec.New(reg, reg, toolexec.WithAllowExecute(true))

	_, err := x.Call(context.Background(), toolexec.CallRequest{Name: "weather", Arguments: json.RawMessage(`{"city":"Rome","days":30}`)})
	e, _ := toolexec.AsError(err)
	fmt.Println(e.Stage, e.Failures[0].Path, e.Failures[0].Keyword)
	// Output:
	// validate /days maximum
}

// A handler that only produces content returns it directly.
func ExampleMustAddTool() {
	reg := toolexec.NewRegistry()
	toolexec.MustAddTool(reg, toolexec.Tool{Name: "echo"},
		func(ctx context.Context, in struct {
			Text string `json:"text"`
		}) ([]toolexec.Content, error) {
			return []toolexec.Content{toolexec.Text(in.Text)}, nil
		})
	x := toolexec.New(reg, reg, toolexec.WithAllowExecute(true))

	res, err := x.Call(context.Background(), toolexec.CallRequest{Name: "echo", Arguments: json.RawMessage(`{"text":"hello"}`)})
	if err != nil {
		panic(err)
	}
	fmt.Println(res.Text())
	// Output:
	// hello
}

// A typed handler's *ToolError reaches the caller of Executor.Call through
// the call's *Error.
func ExampleToolError_typed() {
	reg := toolexec.NewRegistry()
	toolexec.MustAddTool(reg, toolexec.Tool{Name: "weather"}, weather)
	x := toolexec.New(reg, reg, toolexec.WithAllowExecute(true))

	_, err := x.Call(context.Background(), toolexec.CallRequest{Name: "weather", Arguments: json.RawMessage(`{"city":"Atlantis"}`)})
	var te *toolexec.ToolError
	if errors.As(err, &te) {
		fmt.Println(te.Message, "|", te.AdditionalPromptContent)
	}
	// Output:
	// Unknown city: Atlantis | Known cities: Oslo, Lisbon, Rome
}

// A call whose arguments break the schema ends at validation: an *Error
// listing each failure, and the handler never runs.
func ExampleAsError_validation() {
	ctx := context.Background()
	reg := toolexec.NewRegistry()
	toolexec.MustAddTool(reg, toolexec.Tool{
		Name:        "weather",
		InputSchema: json.RawMessage(`{"type":"object","properties":{"city":{"type":"string"},"days":{"type":"integer"}},"required":["city","days"]}`),
	}, weather)
	x := toolexec.New(reg, reg, toolexec.WithAllowExecute(true))

	_, err := x.Call(ctx, toolexec.CallRequest{Name: "weather", Arguments: json.RawMessage(`{"city": 42}`)})
	e, _ := toolexec.AsError(err)
	// e.Stage == toolexec.StageValidate, e.Code == toolexec.CodeInvalidArguments
	// e.Failures: one toolexec.ValidationFailure per problem
	fmt.Println(e.Stage == toolexec.StageValidate, e.Code == toolexec.CodeInvalidArguments, len(e.Failures))
	fmt.Println(e.Message)

	res, err := x.Validate(ctx, "weather", "", json.RawMessage(`{"city": 42}`))
	// err != nil only for an unknown tool (an *Error with CodeNotFound)
	// res.Valid == false, res.Errors[0].Path == "/city"
	if err != nil {
		panic(err)
	}
	fmt.Println(res.Valid, res.Errors[0].Path)
	// Output:
	// true true 2
	// Invalid arguments: /city: got number, want string; /days: missing property 'days'
	// false /city
}
