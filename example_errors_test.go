package toolexec_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log"
	"time"

	"github.com/toolexec/toolexec"
)

// doorbell rings a doorbell by its id. Its failure says more than a
// message: what a developer should know, whether a retry may help and
// when, and what would help a model choose better arguments.
func doorbell(_ string, args map[string]any) ([]toolexec.Content, bool, string, error) {
	if args["id"] != "doorbell42" && args["id"] != "doorbell84" {
		return nil, false, "", &toolexec.ToolError{
			Message:                 "Doorbell ID not found",
			DeveloperMessage:        "no doorbell with id doorbell1",
			CanRetry:                true,
			RetryAfter:              500 * time.Millisecond,
			AdditionalPromptContent: "ids: doorbell42, doorbell84",
		}
	}
	return []toolexec.Content{toolexec.Text("ding")}, false, "", nil
}

// A handler's *ToolError fails the call as any error does, and the
// surfaces that can carry its other fields (OXP) send them.
func ExampleToolError() {
	reg := toolexec.NewRegistry()
	reg.MustAdd(toolexec.Tool{Name: "doorbell_ring"}, doorbell)
	x := toolexec.New(reg, reg, toolexec.WithAllowExecute(true))

	_, err := x.Call(context.Background(), toolexec.CallRequest{Name: "doorbell_ring", Arguments: json.RawMessage(`{"id":"doorbell1"}`)})
	var te *toolexec.ToolError
	if errors.As(err, &te) {
		fmt.Println(te.Message, "|", te.DeveloperMessage, "|", te.CanRetry, te.RetryAfter, "|", te.AdditionalPromptContent)
	}
	// Output:
	// Doorbell ID not found | no doorbell with id doorbell1 | true 500ms | ids: doorbell42, doorbell84
}

// report makes one call of weather_get and says how it went: the stage
// and code of a failed call, and whether the handler said a retry may
// help.
func report(ctx context.Context, x *toolexec.Executor, args json.RawMessage) {
	res, err := x.Call(ctx, toolexec.CallRequest{Name: "weather_get", Arguments: args})
	if e, ok := toolexec.AsError(err); ok {
		log.Printf("failed at %s (%s): %s", e.Stage, e.Code, e.Message)
		var te *toolexec.ToolError
		if errors.As(err, &te) && te.CanRetry {
			fmt.Println("the handler says: try again")
		}
		return
	}
	fmt.Println(res.Text())
}

// AsError finds the *Error of a failed call, which names the stage that
// failed and its code; errors.As finds a handler's *ToolError through it.
func ExampleAsError() {
	reg := toolexec.NewRegistry()
	reg.MustAdd(toolexec.Tool{Name: "weather_get"}, func(_ string, args map[string]any) ([]toolexec.Content, bool, string, error) {
		if args["city"] == "Bergen" {
			return nil, false, "", &toolexec.ToolError{Message: "The forecast for Bergen is being computed", CanRetry: true}
		}
		return []toolexec.Content{toolexec.Text("sunny")}, false, "", nil
	})
	x := toolexec.New(reg, reg, toolexec.WithAllowExecute(true))

	for _, city := range []string{"Oslo", "Bergen"} {
		report(context.Background(), x, json.RawMessage(`{"city":"`+city+`"}`))
	}
	// Output:
	// sunny
	// the handler says: try again
}
