package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/toolexec/toolexec"
)

// addTaskTools registers the tools the conformance suite's tasks scenarios
// (MCP 2026-07-28's tasks extension) call, each an ordinary handler whose
// tool declares ToolOptions.TaskSupport: the library decides per call
// whether it becomes a task.
func addTaskTools(reg *toolexec.Registry) {
	obj := func(props string, required ...string) json.RawMessage {
		req, _ := json.Marshal(required)
		if len(required) == 0 {
			req = []byte("[]")
		}
		return json.RawMessage(fmt.Sprintf(`{"type":"object","properties":{%s},"required":%s}`, props, req))
	}
	text := func(s string) []toolexec.Content { return []toolexec.Content{toolexec.Text(s)} }
	sleep := func(ctx context.Context, d time.Duration) error {
		select {
		case <-time.After(d):
			return nil
		case <-ctx.Done():
			return ctx.Err()
		}
	}

	// greet never runs as a task.
	reg.MustAdd(toolexec.Tool{Name: "greet", Description: "Greets someone by name (never a task).",
		InputSchema: obj(`"name":{"type":"string"}`, "name")},
		func(_ context.Context, _ string, args map[string]any) ([]toolexec.Content, bool, string, error) {
			return text(fmt.Sprintf("Hello, %v!", args["name"])), false, "", nil
		})

	// slow_compute sleeps for `seconds`, then answers; cancelled, it stops.
	reg.MustAdd(toolexec.Tool{Name: "slow_compute", Description: "Sleeps for the given seconds, then answers (a task when it runs long).",
		InputSchema: obj(`"seconds":{"type":"number","minimum":0},"label":{"type":"string"}`, "seconds"),
		Options:     toolexec.ToolOptions{TaskSupport: toolexec.TaskSupportOptional}},
		func(ctx context.Context, _ string, args map[string]any) ([]toolexec.Content, bool, string, error) {
			secs, _ := args["seconds"].(float64)
			total := time.Duration(secs * float64(time.Second))
			for done := time.Duration(0); done < total; done += 100 * time.Millisecond {
				_ = toolexec.ReportProgress(ctx, toolexec.Progress{Progress: done.Seconds(), Total: total.Seconds(),
					Message: fmt.Sprintf("computing: %.1fs of %.1fs", done.Seconds(), total.Seconds())})
				if err := sleep(ctx, min(100*time.Millisecond, total-done)); err != nil {
					return nil, false, "", err
				}
			}
			return text(fmt.Sprintf("Computed %v in %gs", args["label"], secs)), false, "", nil
		})

	// failing_job runs only as a task, and fails as a tool after a second.
	reg.MustAdd(toolexec.Tool{Name: "failing_job", Description: "Fails with a tool error after a second (runs only as a task).",
		InputSchema: obj(""),
		Options:     toolexec.ToolOptions{TaskSupport: toolexec.TaskSupportRequired}},
		func(ctx context.Context, _ string, _ map[string]any) ([]toolexec.Content, bool, string, error) {
			if err := sleep(ctx, time.Second); err != nil {
				return nil, false, "", err
			}
			return nil, false, "", errors.New("the job failed: its input was rejected")
		})

	// protocol_error_job panics once it is a task: an internal failure.
	reg.MustAdd(toolexec.Tool{Name: "protocol_error_job", Description: "Panics once it runs as a task (an internal failure).",
		InputSchema: obj(""),
		Options:     toolexec.ToolOptions{TaskSupport: toolexec.TaskSupportOptional}},
		func(ctx context.Context, _ string, _ map[string]any) ([]toolexec.Content, bool, string, error) {
			toolexec.BecomeTask(ctx)
			panic("protocol_error_job: an internal failure, on purpose")
		})

	elicitConfirm := func(ctx context.Context, key, message string) (bool, error) {
		res, err := toolexec.Elicit(ctx, key, toolexec.ElicitRequest{Message: message,
			RequestedSchema: json.RawMessage(`{"type":"object","properties":{"confirm":{"type":"boolean"}},"required":["confirm"]}`)})
		if err != nil {
			return false, err
		}
		ok, _ := res.Content["confirm"].(bool)
		return res.Action == "accept" && ok, nil
	}

	// confirm_delete becomes a task, then asks its caller to confirm.
	reg.MustAdd(toolexec.Tool{Name: "confirm_delete", Description: "Asks for confirmation before deleting a file (a task that waits for input).",
		InputSchema: obj(`"filename":{"type":"string"}`, "filename"),
		Options:     toolexec.ToolOptions{TaskSupport: toolexec.TaskSupportOptional}},
		func(ctx context.Context, _ string, args map[string]any) ([]toolexec.Content, bool, string, error) {
			toolexec.BecomeTask(ctx)
			ok, err := elicitConfirm(ctx, "confirm", fmt.Sprintf("Delete %v?", args["filename"]))
			if err != nil {
				return nil, false, "", err
			}
			if !ok {
				return text(fmt.Sprintf("Kept %v", args["filename"])), false, "", nil
			}
			return text(fmt.Sprintf("Deleted %v", args["filename"])), false, "", nil
		})

	// multi_input becomes a task, then asks two questions at once.
	reg.MustAdd(toolexec.Tool{Name: "multi_input", Description: "Asks two questions at once (a task that waits for both answers).",
		InputSchema: obj(""),
		Options:     toolexec.ToolOptions{TaskSupport: toolexec.TaskSupportOptional}},
		func(ctx context.Context, _ string, _ map[string]any) ([]toolexec.Content, bool, string, error) {
			toolexec.BecomeTask(ctx)
			var wg sync.WaitGroup
			answers, errs := make([]bool, 2), make([]error, 2)
			for i, key := range []string{"first", "second"} {
				wg.Add(1)
				go func() {
					defer wg.Done()
					answers[i], errs[i] = elicitConfirm(ctx, key, fmt.Sprintf("Confirm the %s step?", key))
				}()
			}
			wg.Wait()
			if err := errors.Join(errs...); err != nil {
				return nil, false, "", err
			}
			return text(fmt.Sprintf("first=%v second=%v", answers[0], answers[1])), false, "", nil
		})

	// test_tool_with_task asks for a name (an input-required result, before
	// any task), then becomes a task that greets that name.
	reg.MustAdd(toolexec.Tool{Name: "test_tool_with_task", Description: "Asks for a name, then greets it as a task.",
		InputSchema: obj(""),
		Options:     toolexec.ToolOptions{TaskSupport: toolexec.TaskSupportRequired}},
		func(ctx context.Context, _ string, _ map[string]any) ([]toolexec.Content, bool, string, error) {
			res, err := toolexec.Elicit(ctx, "user_name", toolexec.ElicitRequest{Message: "What is your name?",
				RequestedSchema: json.RawMessage(`{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}`)})
			if err != nil {
				return nil, false, "", err
			}
			name, _ := res.Content["name"].(string)
			toolexec.BecomeTask(ctx)
			if err := sleep(ctx, 200*time.Millisecond); err != nil {
				return nil, false, "", err
			}
			return text(fmt.Sprintf("Hello, %s! (greeted by a task)", name)), false, "", nil
		})
}
