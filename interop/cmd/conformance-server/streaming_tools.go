//lint:file-ignore SA1019 the conformance suite still tests logging, sampling and roots

package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/toolexec/toolexec"
)

// addStreamingTools registers the tools the conformance suite's streaming
// and input scenarios call, each written as the suite's scenario describes
// it, with toolexec's handler API only: toolexec.ReportProgress, Log,
// Elicit, Sample, ListRoots and RequestInput. The same tool serves every
// protocol version: on 2025 versions its input requests travel on the
// call's SSE stream; on 2026-07-28 they become an input-required result and
// the tool runs again with the answers.
//
// The tool set is changed through broadcast, so that every replica sharing
// a store (-redis) changes it alike, as one server would (see
// toggleDynamicTool).
func addStreamingTools(reg *toolexec.Registry, broadcast func(ctx context.Context) error) {
	noArgs := json.RawMessage(`{"type":"object","properties":{}}`)
	stringArg := func(name, desc string) json.RawMessage {
		return json.RawMessage(fmt.Sprintf(`{"type":"object","properties":{%q:{"type":"string","description":%q}},"required":[%q]}`, name, desc, name))
	}
	add := func(name, desc string, schema json.RawMessage, h func(ctx context.Context, args map[string]any) (string, error)) {
		reg.MustAdd(toolexec.Tool{Name: name, Description: desc, InputSchema: schema},
			func(ctx context.Context, _ string, args map[string]any) ([]toolexec.Content, bool, string, error) {
				text, err := h(ctx, args)
				if err != nil {
					return nil, false, "", err
				}
				return []toolexec.Content{toolexec.Text(text)}, false, "", nil
			})
	}
	pause := func(ctx context.Context) error {
		select {
		case <-time.After(50 * time.Millisecond):
			return nil
		case <-ctx.Done():
			return ctx.Err()
		}
	}

	// tools-call-with-logging (2025): three info messages, 50ms apart.
	logging := func(ctx context.Context, _ map[string]any) (string, error) {
		for i, msg := range []string{"Tool execution started", "Tool processing data", "Tool execution completed"} {
			if i > 0 {
				if err := pause(ctx); err != nil {
					return "", err
				}
			}
			_ = toolexec.Log(ctx, toolexec.LogMessage{Level: toolexec.LogInfo, Data: msg})
		}
		return "Tool with logging executed successfully", nil
	}
	add("test_tool_with_logging", "Sends three log messages while it runs", noArgs, logging)
	// server-stateless (2026-07-28): logs only when the request names a level.
	add("test_logging_tool", "Sends log messages while it runs", noArgs, logging)

	// tools-call-with-progress: 0, 50 and 100 of 100, 50ms apart.
	add("test_tool_with_progress", "Reports progress while it runs", noArgs, func(ctx context.Context, _ map[string]any) (string, error) {
		for i, p := range []float64{0, 50, 100} {
			if i > 0 {
				if err := pause(ctx); err != nil {
					return "", err
				}
			}
			_ = toolexec.ReportProgress(ctx, toolexec.Progress{Progress: p, Total: 100})
		}
		return "Tool with progress executed successfully", nil
	})

	// tools-call-sampling.
	add("test_sampling", "Asks the client's model to answer a prompt", stringArg("prompt", "The prompt to send to the LLM"),
		func(ctx context.Context, args map[string]any) (string, error) {
			prompt, _ := args["prompt"].(string)
			res, err := toolexec.Sample(ctx, "sampling", toolexec.CreateMessageRequest{
				Messages:  []toolexec.SamplingMessage{{Role: "user", Content: toolexec.Text(prompt)}},
				MaxTokens: 100,
			})
			if err != nil {
				return "", err
			}
			return "LLM response: " + res.Text(), nil
		})

	// tools-call-elicitation.
	add("test_elicitation", "Asks the user for a username and an email", stringArg("message", "The message to show the user"),
		func(ctx context.Context, args map[string]any) (string, error) {
			msg, _ := args["message"].(string)
			res, err := toolexec.Elicit(ctx, "elicitation", toolexec.ElicitRequest{Message: msg, RequestedSchema: json.RawMessage(
				`{"type":"object","properties":{"username":{"type":"string","description":"User's response"},"email":{"type":"string","description":"User's email address"}},"required":["username","email"]}`)})
			if err != nil {
				return "", err
			}
			return fmt.Sprintf("User response: action=%s, content=%s", res.Action, jsonText(res.Content)), nil
		})

	// elicitation-sep1034-defaults.
	add("test_elicitation_sep1034_defaults", "Asks for a form whose fields have defaults", noArgs, func(ctx context.Context, _ map[string]any) (string, error) {
		res, err := toolexec.Elicit(ctx, "defaults", toolexec.ElicitRequest{Message: "Please review and update the form fields with defaults",
			RequestedSchema: json.RawMessage(`{"type":"object","properties":{
				"name":{"type":"string","description":"User name","default":"John Doe"},
				"age":{"type":"integer","description":"User age","default":30},
				"score":{"type":"number","description":"User score","default":95.5},
				"status":{"type":"string","description":"User status","enum":["active","inactive","pending"],"default":"active"},
				"verified":{"type":"boolean","description":"Verification status","default":true}}}`)})
		if err != nil {
			return "", err
		}
		return fmt.Sprintf("Elicitation completed: action=%s, content=%s", res.Action, jsonText(res.Content)), nil
	})

	// elicitation-sep1330-enums.
	add("test_elicitation_sep1330_enums", "Asks for a form with every kind of enum", noArgs, func(ctx context.Context, _ map[string]any) (string, error) {
		res, err := toolexec.Elicit(ctx, "enums", toolexec.ElicitRequest{Message: "Please select options from the enum fields",
			RequestedSchema: json.RawMessage(`{"type":"object","properties":{
				"untitledSingle":{"type":"string","description":"Select one option","enum":["option1","option2","option3"]},
				"titledSingle":{"type":"string","description":"Select one option with titles","oneOf":[{"const":"value1","title":"First Option"},{"const":"value2","title":"Second Option"},{"const":"value3","title":"Third Option"}]},
				"legacyEnum":{"type":"string","description":"Select one option (legacy)","enum":["opt1","opt2","opt3"],"enumNames":["Option One","Option Two","Option Three"]},
				"untitledMulti":{"type":"array","description":"Select multiple options","items":{"type":"string","enum":["option1","option2","option3"]}},
				"titledMulti":{"type":"array","description":"Select multiple options with titles","items":{"anyOf":[{"const":"value1","title":"First Choice"},{"const":"value2","title":"Second Choice"},{"const":"value3","title":"Third Choice"}]}}}}`)})
		if err != nil {
			return "", err
		}
		return fmt.Sprintf("Elicitation completed: action=%s, content=%s", res.Action, jsonText(res.Content)), nil
	})

	// The input-required-result-* scenarios (2026-07-28).
	askName := func(key, message string) toolexec.InputRequest {
		return toolexec.InputRequest{Key: key, Elicit: &toolexec.ElicitRequest{Message: message, RequestedSchema: json.RawMessage(
			`{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}`)}}
	}
	helloName := func(ctx context.Context, _ map[string]any) (string, error) {
		res, err := toolexec.RequestInput(ctx, askName("user_name", "What is your name?"))
		if err != nil {
			return "", err
		}
		return fmt.Sprintf("Hello, %v!", res[0].Elicit.Content["name"]), nil
	}
	add("test_input_required_result_elicitation", "Asks the user's name, then greets them", noArgs, helloName)
	add("test_input_required_result_tampered_state", "Asks the user's name; refuses a tampered requestState", noArgs, helloName)
	add("test_streaming_elicitation", "Asks the user's name", noArgs, helloName)

	add("test_input_required_result_sampling", "Asks the client's model a question", noArgs, func(ctx context.Context, _ map[string]any) (string, error) {
		res, err := toolexec.Sample(ctx, "capital_question", toolexec.CreateMessageRequest{
			Messages:  []toolexec.SamplingMessage{{Role: "user", Content: toolexec.Text("What is the capital of France?")}},
			MaxTokens: 100,
		})
		if err != nil {
			return "", err
		}
		return "Sampling response: " + res.Text(), nil
	})

	add("test_input_required_result_list_roots", "Lists the client's roots", noArgs, func(ctx context.Context, _ map[string]any) (string, error) {
		roots, err := toolexec.ListRoots(ctx, "client_roots")
		if err != nil {
			return "", err
		}
		uris := make([]string, len(roots))
		for i, r := range roots {
			uris[i] = r.URI
		}
		return fmt.Sprintf("Client roots (%d): %s", len(roots), strings.Join(uris, ", ")), nil
	})

	add("test_input_required_result_request_state", "Asks for a confirmation, checking the request state", noArgs, func(ctx context.Context, _ map[string]any) (string, error) {
		res, err := toolexec.Elicit(ctx, "confirm", toolexec.ElicitRequest{Message: "Please confirm", RequestedSchema: json.RawMessage(
			`{"type":"object","properties":{"ok":{"type":"boolean"}},"required":["ok"]}`)})
		if err != nil {
			return "", err
		}
		// The surface verified the signed requestState before the tool ran again.
		return fmt.Sprintf("state-ok: confirmed=%v", res.Content["ok"]), nil
	})

	add("test_input_required_result_multi_round", "Asks two questions, one round each", noArgs, func(ctx context.Context, _ map[string]any) (string, error) {
		first, err := toolexec.RequestInput(ctx, askName("step1", "Step 1: What is your name?"))
		if err != nil {
			return "", err
		}
		second, err := toolexec.Elicit(ctx, "step2", toolexec.ElicitRequest{Message: "Step 2: What is your favorite color?", RequestedSchema: json.RawMessage(
			`{"type":"object","properties":{"color":{"type":"string"}},"required":["color"]}`)})
		if err != nil {
			return "", err
		}
		return fmt.Sprintf("Completed: name=%v, color=%v", first[0].Elicit.Content["name"], second.Content["color"]), nil
	})

	add("test_input_required_result_multiple_inputs", "Asks for a name, a greeting and the roots at once", noArgs, func(ctx context.Context, _ map[string]any) (string, error) {
		res, err := toolexec.RequestInput(ctx,
			askName("user_name", "What is your name?"),
			toolexec.InputRequest{Key: "greeting", Sample: &toolexec.CreateMessageRequest{
				Messages: []toolexec.SamplingMessage{{Role: "user", Content: toolexec.Text("Generate a greeting")}}, MaxTokens: 50}},
			toolexec.InputRequest{Key: "client_roots", ListRoots: &toolexec.ListRootsRequest{}},
		)
		if err != nil {
			return "", err
		}
		return fmt.Sprintf("Completed: name=%v, greeting=%s, roots=%d", res[0].Elicit.Content["name"], res[1].Sample.Text(), len(res[2].Roots.Roots)), nil
	})

	// input-required-result-capability-check: asks only what the client declared.
	add("test_input_required_result_capabilities", "Asks only for the input the client declared it supports", noArgs, func(ctx context.Context, _ map[string]any) (string, error) {
		var reqs []toolexec.InputRequest
		if toolexec.InputSupported(ctx, toolexec.InputKindElicitForm) {
			reqs = append(reqs, askName("user_name", "What is your name?"))
		}
		if toolexec.InputSupported(ctx, toolexec.InputKindSampling) {
			reqs = append(reqs, toolexec.InputRequest{Key: "greeting", Sample: &toolexec.CreateMessageRequest{
				Messages: []toolexec.SamplingMessage{{Role: "user", Content: toolexec.Text("Generate a greeting")}}, MaxTokens: 50}})
		}
		if len(reqs) == 0 {
			return "", errors.New("the client declared neither elicitation nor sampling")
		}
		if _, err := toolexec.RequestInput(ctx, reqs...); err != nil {
			return "", err
		}
		return fmt.Sprintf("Completed with %d input(s)", len(reqs)), nil
	})

	// server-stateless (2026-07-28): needs sampling, which the probe does not
	// declare, so the call is refused with -32021.
	add("test_missing_capability", "Needs the sampling capability", noArgs, func(ctx context.Context, _ map[string]any) (string, error) {
		res, err := toolexec.Sample(ctx, "needs_sampling", toolexec.CreateMessageRequest{
			Messages:  []toolexec.SamplingMessage{{Role: "user", Content: toolexec.Text("Say hello")}},
			MaxTokens: 10,
		})
		if err != nil {
			return "", err
		}
		return "Sampling response: " + res.Text(), nil
	})

	// server-stateless (2026-07-28): changes the tool set, so that
	// subscriptions/listen streams carry notifications/tools/list_changed.
	add("test_trigger_tool_change", "Adds and removes a tool, changing the tool list", noArgs, func(ctx context.Context, _ map[string]any) (string, error) {
		if err := broadcast(ctx); err != nil {
			return "", err
		}
		return "Tool list changed", nil
	})
}

// toggleDynamicTool adds test_dynamic_tool to reg, or removes it when
// there.
func toggleDynamicTool(reg *toolexec.Registry) {
	const name = "test_dynamic_tool"
	if !reg.Remove(name, "") {
		_ = reg.Add(toolexec.Tool{Name: name, Description: "Appears and disappears", InputSchema: json.RawMessage(`{"type":"object","properties":{}}`)},
			func(string, map[string]any) ([]toolexec.Content, bool, string, error) {
				return []toolexec.Content{toolexec.Text("dynamic")}, false, "", nil
			})
	}
}

// jsonText writes v as JSON, for a tool's text answer.
func jsonText(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}
