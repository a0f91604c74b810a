package toolexec_test

import (
	"context"
	"errors"
	"fmt"

	"github.com/toolexec/toolexec"
)

// A tool reports progress, logs, and asks its caller for input, all through
// its context. The surface decides what reaches the caller: over MCP the
// progress and log messages stream to the client and the question goes to
// the user; called in-process (or over REST or OXP) progress and logs are
// dropped and the question fails with ErrInputUnsupported.
func ExampleElicit() {
	reg := toolexec.NewRegistry()
	reg.MustAdd(toolexec.Tool{Name: "deploy", Description: "Deploys after the user confirms"},
		func(ctx context.Context, _ string, _ map[string]any) ([]toolexec.Content, bool, string, error) {
			_ = toolexec.ReportProgress(ctx, toolexec.Progress{Progress: 1, Total: 2, Message: "built"})
			_ = toolexec.Log(ctx, toolexec.LogMessage{Level: toolexec.LogInfo, Data: "asking for confirmation"})
			res, err := toolexec.Elicit(ctx, "confirm", toolexec.ElicitRequest{
				Message:         "Deploy to production?",
				RequestedSchema: map[string]any{"type": "object", "properties": map[string]any{"ok": map[string]any{"type": "boolean"}}},
			})
			if err != nil {
				return nil, false, "", err
			}
			if res.Action != "accept" || res.Content["ok"] != true {
				return []toolexec.Content{toolexec.Text("not deployed")}, false, "", nil
			}
			return []toolexec.Content{toolexec.Text("deployed")}, false, "", nil
		})
	x := toolexec.New(reg, reg, toolexec.WithAllowExecute(true))

	_, err := x.Call(context.Background(), toolexec.CallRequest{Name: "deploy"})
	fmt.Println(errors.Is(err, toolexec.ErrInputUnsupported))
	fmt.Println(err)
	// Output:
	// true
	// toolexec: execute: toolexec: this tool needs input from its caller, and this caller cannot be asked for it
}
