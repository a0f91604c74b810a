package mcp

import (
	"encoding/json"
	"errors"
	"maps"
	"net/http"
	"time"

	"github.com/toolexec/toolexec"
	"github.com/toolexec/toolexec/internal/sametool"
	"github.com/toolexec/toolexec/internal/taskwire"
	"github.com/toolexec/toolexec/internal/toolenc"
)

// MCP 2025-11-25's experimental tasks, as that revision has them where they
// differ from the 2026-07-28 extension (tasks_2026_07_28.go): the server declares
// capabilities.tasks in initialize and each tool's execution.taskSupport
// in tools/list; the client asks for a task with tools/call's task
// parameter, and gets one whenever the tool allows it; it polls tasks/get,
// fetches the outcome with tasks/result (which waits for it), and cancels
// with tasks/cancel, which answers the cancelled task. tasks/list is not
// served (not declared): tasks are owned, and a list scoped to its caller
// would tell nothing the caller's own ids do not. A task of this revision
// cannot ask its client for input (its requests would travel on
// tasks/result's stream): RequestInput fails with
// toolexec.ErrInputUnsupported, as on REST.

// metaRelatedTask is the _meta key tying a message to its task (2025-11-25).
const metaRelatedTask = "io.modelcontextprotocol/related-task"

// legacyTasksCapability is initialize's capabilities.tasks at 2025-11-25:
// task-augmented tools/call and tasks/cancel.
type legacyTasksCapability struct {
	Cancel   struct{} `json:"cancel"`
	Requests struct {
		Tools struct {
			Call struct{} `json:"call"`
		} `json:"tools"`
	} `json:"requests"`
}

// newExecutionToolCache is newToolCache whose encodings add, for a tool
// that allows tasks, execution.taskSupport: tools/list at 2025-11-25.
func newExecutionToolCache(kit toolexec.SurfaceKit) *toolenc.Cache[toolexec.Tool] {
	c := newToolCache(kit)
	plain := c.Encode
	c.Encode = func(t *toolexec.Tool) ([]byte, error) {
		data, err := plain(t)
		if err != nil || !allowsTasks(t.Options.TaskSupport) || len(data) < 2 {
			return data, err
		}
		exec, _ := json.Marshal(map[string]any{"taskSupport": t.Options.TaskSupport})
		out := append(data[:len(data)-1:len(data)-1], `,"execution":`...)
		return append(append(out, exec...), '}'), nil
	}
	c.Clone = func(t *toolexec.Tool) toolexec.Tool {
		cl := sametool.Clone(t)
		cl.Options.TaskSupport = t.Options.TaskSupport
		return cl
	}
	c.Same = func(a, b *toolexec.Tool) bool {
		return a.Options.TaskSupport == b.Options.TaskSupport && sametool.Same(a, b)
	}
	return c
}

func allowsTasks(s toolexec.TaskSupport) bool {
	return s == toolexec.TaskSupportOptional || s == toolexec.TaskSupportRequired
}

// legacyTaskCall is how a 2025-11-25 tools/call that asks for a task
// (params.task) runs: always as a task, with no way to ask its client for
// input. A tool that does not allow tasks is -32601, as the revision says.
func (h *handler) legacyTaskCall(name string) (*toolexec.TaskCall, *wireError) {
	t, ok := h.x.Lookup(name, "")
	if !ok {
		return nil, nil // the pipeline answers an unknown tool
	}
	if !allowsTasks(t.Options.TaskSupport) {
		return nil, newError(CodeMethodNotFound, "Method not found: tool %s does not run as a task (its execution.taskSupport is forbidden)", name)
	}
	return &toolexec.TaskCall{Wait: -1, Always: true}, nil
}

// legacyTask is 2025-11-25's Task.
type legacyTask struct {
	TaskID        string `json:"taskId"`
	Status        string `json:"status"`
	StatusMessage string `json:"statusMessage,omitempty"`
	CreatedAt     string `json:"createdAt"`
	LastUpdatedAt string `json:"lastUpdatedAt"`
	TTL           int64  `json:"ttl"`
	PollInterval  int64  `json:"pollInterval"`
}

func newLegacyTask(t *toolexec.Task) legacyTask {
	return legacyTask{
		TaskID: t.ID, Status: string(t.Status), StatusMessage: t.StatusMessage,
		CreatedAt: taskwire.Time(t.CreatedAt), LastUpdatedAt: taskwire.Time(t.UpdatedAt),
		TTL: max(t.TTL().Milliseconds(), 1), PollInterval: max(t.PollInterval.Milliseconds(), 1),
	}
}

// legacyCreateTaskResult encodes 2025-11-25's CreateTaskResult: {task}.
func (h *handler) legacyCreateTaskResult(r *http.Request, id json.RawMessage, t *toolexec.Task) []byte {
	return h.encodeResult(r, id, struct {
		Task legacyTask `json:"task"`
	}{newLegacyTask(t)})
}

// serveLegacyTask answers tasks/get, tasks/result and tasks/cancel at
// 2025-11-25: the taskId, the auth hook, then the method.
func (h *handler) serveLegacyTask(ex *exchange, m *message) outcome {
	id, werr := paramString(m.params, "taskId")
	if werr == nil && id == "" {
		werr = newError(CodeInvalidParams, "Invalid params: taskId is required")
	}
	if werr != nil {
		return outcome{data: encodeError(m.id, werr)}
	}
	kit := h.x.SurfaceKit()
	caller, err := kit.Authenticate(ex.r)
	if err != nil {
		return refusedOutcome(m.id, asError(err))
	}
	var t *toolexec.Task
	switch m.method {
	case "tasks/get":
		t, err = kit.Task(caller, id)
	case "tasks/cancel":
		if t, err = kit.Task(caller, id); err == nil && !t.Status.Terminal() {
			t, err = kit.CancelTask(caller, id)
		}
		if err == nil && t.Status != toolexec.TaskStatusCanceled {
			return outcome{data: encodeError(m.id, newError(CodeInvalidParams,
				"Invalid params: task %s has ended (%s) and cannot be cancelled", id, t.Status))}
		}
	default: // "tasks/result"
		return h.legacyTaskResult(ex, m, caller, id)
	}
	if err != nil {
		return h.taskFailed(ex, m, err)
	}
	return outcome{data: h.encodeResult(ex.r, m.id, newLegacyTask(t))}
}

// legacyTaskResult answers tasks/result: once the task has ended, what its
// tools/call would have answered, tied to the task by its _meta; it waits
// until then, or until the client goes away.
func (h *handler) legacyTaskResult(ex *exchange, m *message, caller *http.Request, id string) outcome {
	kit := h.x.SurfaceKit()
	changed := make(chan struct{}, 1)
	stop, err := kit.WatchTask(caller, id, func() {
		select {
		case changed <- struct{}{}:
		default:
		}
	})
	if err != nil {
		return h.taskFailed(ex, m, err)
	}
	defer stop()
	for {
		poll := time.Second
		t, err := kit.Task(caller, id)
		switch {
		case errors.Is(err, toolexec.ErrTasksUnavailable):
			// The store does not answer just now: the request waits on,
			// as it waits for the task.
		case err != nil:
			return h.taskFailed(ex, m, err)
		case t.Status.Terminal():
			return h.legacyOutcome(ex, m, t)
		default:
			poll = t.PollInterval
		}
		timer := time.NewTimer(poll) // messages may be lost: read now and then anyway
		select {
		case <-changed:
		case <-timer.C:
		case <-ex.r.Context().Done():
			timer.Stop()
			return outcome{data: encodeError(m.id, newError(CodeInternalError, "Internal error: the request ended before the task"))}
		}
		timer.Stop()
	}
}

// legacyOutcome is tasks/result's answer for an ended task t.
func (h *handler) legacyOutcome(ex *exchange, m *message, t *toolexec.Task) outcome {
	related := map[string]any{metaRelatedTask: map[string]string{"taskId": t.ID}}
	switch t.Status {
	case toolexec.TaskStatusCompleted:
		res := t.Result
		if res == nil {
			e := t.Err
			if e == nil {
				e = &toolexec.Error{Stage: toolexec.StageExecute, Code: toolexec.CodeInternal, Message: "Internal error"}
			}
			res = h.errorResult(t.Tool, e)
		}
		tied := *res
		tied.Meta = maps.Clone(res.Meta)
		if tied.Meta == nil {
			tied.Meta = map[string]any{}
		}
		maps.Copy(tied.Meta, related)
		return outcome{data: h.encodeToolResult(ex.r, m.id, &tied, false)}
	case toolexec.TaskStatusFailed:
		msg := "Internal error"
		if t.Err != nil {
			msg = t.Err.Message
		}
		e := newError(CodeInternalError, "%s", msg)
		e.Data = related
		return outcome{data: encodeError(m.id, e)}
	default: // cancelled
		e := newError(CodeInternalError, "The task was cancelled")
		e.Data = related
		return outcome{data: encodeError(m.id, e)}
	}
}
