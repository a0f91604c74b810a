package toolexectest_test

import (
	"context"
	"fmt"

	"github.com/toolexec/toolexec"
	"github.com/toolexec/toolexec/toolexectest"
)

// A test calls a tool in process with a Peer, and sees the progress it
// reports and the input it asks for, as an MCP client would.
func ExamplePeer() {
	reg := toolexec.NewRegistry()
	reg.MustAdd(toolexec.Tool{Name: "confirm"}, toolexec.ToolCallHandlerFunc(
		func(ctx context.Context, _ string, _ map[string]any) ([]toolexec.Content, bool, string, error) {
			_ = toolexec.ReportProgress(ctx, toolexec.Progress{Progress: 1, Message: "checking"})
			res, err := toolexec.Elicit(ctx, "ok", toolexec.ElicitRequest{Message: "Go ahead?",
				RequestedSchema: map[string]any{"type": "object", "properties": map[string]any{"yes": map[string]any{"type": "boolean"}}}})
			if err != nil {
				return nil, false, "", err
			}
			return []toolexec.Content{toolexec.Text(fmt.Sprint("confirmed: ", res.Content["yes"]))}, false, "", nil
		}))
	x := toolexec.New(reg, reg, toolexec.WithAllowExecute(true))

	p := &toolexectest.Peer{Answer: toolexectest.AcceptForm(map[string]any{"yes": true})}
	res, _ := x.Call(context.Background(), toolexec.CallRequest{Name: "confirm", Peer: p})
	fmt.Println(res.Text())
	fmt.Println(p.ProgressReports()[0].Message, "/", p.Asked()[0].Elicit.Message)
	// Output:
	// confirmed: true
	// checking / Go ahead?
}
