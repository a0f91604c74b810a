package main

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/toolexec/toolexec"
)

// maxCountdown caps the countdown tool's steps, so a demo call ends within
// maxCountdown*countdownStep.
const maxCountdown = 20

// countdownStep is the pause between two steps of the countdown.
const countdownStep = 500 * time.Millisecond

// addInteractiveTools registers the tools that talk to their caller while
// they run: countdown reports progress and log messages, greet asks the
// user for a name. Over MCP (and in the explorer page, which calls over
// MCP) progress shows as a bar and the question as a form; over REST the
// first simply answers at the end, and the second needs its name argument.
func addInteractiveTools(reg *toolexec.Registry) {
	reg.MustAdd(toolexec.Tool{
		Name:  "countdown",
		Title: "Countdown",
		Description: fmt.Sprintf("Counts down from the given number of steps (default 5, at most %d), one every %s, "+
			"reporting progress and a log message at each; it stops as soon as the call is cancelled.", maxCountdown, countdownStep),
		InputSchema: json.RawMessage(fmt.Sprintf(`{"type":"object","properties":{"steps":{"type":"integer","minimum":1,"maximum":%d,"default":5}}}`, maxCountdown)),
		Annotations: &toolexec.ToolAnnotations{ReadOnlyHint: toolexec.Bool(true), OpenWorldHint: toolexec.Bool(false)},
	}, toolexec.ToolCallHandlerFunc(countdown))

	reg.MustAdd(toolexec.Tool{
		Name:  "greet",
		Title: "Greet",
		Description: "Greets you by name. Without a name argument it asks for one: over MCP the client shows a form " +
			"(elicitation), and the call resumes with the answer.",
		InputSchema: json.RawMessage(`{"type":"object","properties":{"name":{"type":"string","description":"leave it out to be asked"}}}`),
		Annotations: &toolexec.ToolAnnotations{ReadOnlyHint: toolexec.Bool(true), OpenWorldHint: toolexec.Bool(false)},
	}, toolexec.ToolCallHandlerFunc(greet))
}

// countdown reports one progress step and one log message every
// countdownStep, and gives up as soon as ctx is done (the client closed
// the stream, or went away).
func countdown(ctx context.Context, _ string, args map[string]any) ([]toolexec.Content, bool, string, error) {
	steps := 5
	if v, ok := args["steps"].(float64); ok {
		steps = int(v)
	}
	if steps < 1 || steps > maxCountdown {
		return []toolexec.Content{toolexec.Text(fmt.Sprintf(`"steps" must be from 1 to %d`, maxCountdown))}, true, "", nil
	}
	t := time.NewTicker(countdownStep)
	defer t.Stop()
	for i := 1; i <= steps; i++ {
		select {
		case <-t.C:
		case <-ctx.Done():
			return nil, false, "", ctx.Err()
		}
		left := steps - i
		_ = toolexec.ReportProgress(ctx, toolexec.Progress{Progress: float64(i), Total: float64(steps), Message: fmt.Sprintf("%d to go", left)})
		//lint:ignore SA1019 the explorer shows log lines, which every MCP version still carries
		_ = toolexec.Logf(ctx, toolexec.LogInfo, "step %d of %d", i, steps)
	}
	return []toolexec.Content{toolexec.Text(fmt.Sprintf("counted down %d steps", steps))}, false, "", nil
}

// greetSchema is the form greet asks for: MCP elicitation takes a flat
// object of primitive properties.
const greetSchema = `{"type":"object","properties":{
	"name":{"type":"string","title":"Your name","minLength":1},
	"formal":{"type":"boolean","title":"Formal greeting","default":false}},
	"required":["name"]}`

// greet asks for a name when it has none. Over MCP 2026-07-28 the first
// round ends with the question (Elicit returns toolexec.ErrInputRequired,
// returned as is) and the retried call gets the answer; a caller that
// cannot be asked (REST) gets a tool error saying what to do.
func greet(ctx context.Context, _ string, args map[string]any) ([]toolexec.Content, bool, string, error) {
	if name, ok := args["name"].(string); ok && name != "" {
		return []toolexec.Content{toolexec.Text("Hello, " + name + "!")}, false, "", nil
	}
	if !toolexec.InputSupported(ctx, toolexec.InputKindElicitForm) {
		return []toolexec.Content{toolexec.Text(`no name given, and this caller cannot be asked for one: pass "name", or call over MCP`)}, true, "", nil
	}
	res, err := toolexec.Elicit(ctx, "name", toolexec.ElicitRequest{
		Message:         "What should the greeting call you?",
		RequestedSchema: json.RawMessage(greetSchema),
	})
	if err != nil {
		return nil, false, "", err
	}
	if res.Action != "accept" {
		return []toolexec.Content{toolexec.Text("No name, no greeting (you chose " + res.Action + ").")}, false, "", nil
	}
	name, _ := res.Content["name"].(string)
	if formal, _ := res.Content["formal"].(bool); formal {
		return []toolexec.Content{toolexec.Text("Good day to you, " + name + ".")}, false, "", nil
	}
	return []toolexec.Content{toolexec.Text("Hello, " + name + "!")}, false, "", nil
}
