package mcp

import (
	"encoding/json"
	"errors"
	"net/http"
	"time"

	"github.com/toolexec/toolexec"
	"github.com/toolexec/toolexec/internal/jsonwalk"
	"github.com/toolexec/toolexec/internal/taskwire"
)

// MCP 2026-07-28's tasks extension (io.modelcontextprotocol/tasks): a
// client that declares the extension in a request's clientCapabilities
// may be answered with a task (resultType "task") instead of the tool's
// result, when the tool allows tasks (toolexec.ToolOptions.TaskSupport)
// and its call runs longer than the Executor's task wait; it then polls
// tasks/get, answers the task's input requests with tasks/update, and
// cancels it with tasks/cancel, on any replica sharing the Executor's
// store. This file answers the extension's methods and writes its shapes;
// the tasks themselves live in the Executor (toolexec.SurfaceKit.CallTask).

// tasksRetryAfter is the Retry-After of a task request refused because
// the shared store does not answer.
const tasksRetryAfter = time.Second

// extTasks names the tasks extension.
const extTasks = "io.modelcontextprotocol/tasks"

// resultTask is the resultType of a CreateTaskResult.
const resultTask = "task"

// declaresExtension reports whether a ClientCapabilities object (as sent)
// declares the extension name with an object.
func declaresExtension(caps []byte, name string) bool {
	if !isObject(caps) {
		return false
	}
	for it := jsonwalk.Members(caps); it.Next(); {
		if !it.Is("extensions") || !isObject(it.Val) {
			continue
		}
		for e := jsonwalk.Members(it.Val); e.Next(); {
			if e.Is(name) {
				return isObject(e.Val)
			}
		}
	}
	return false
}

// missingTasksExtension is the -32021 error of a request that needs the
// tasks extension its client did not declare.
func missingTasksExtension(format string, args ...any) *wireError {
	e := newError(CodeMissingClientCapability, format, args...)
	e.Data = map[string]any{"requiredCapabilities": map[string]any{
		"extensions": map[string]any{extTasks: struct{}{}},
	}}
	return e
}

// taskRequired sets *out to the refusal of a tools/call whose tool runs
// only as a task, from a client that cannot take one: on 2026-07-28, -32021
// naming the extension (HTTP 400); on 2025 versions, -32601, as 2025-11-25
// answers a call of such a tool made without its task parameter.
func taskRequired(m *message, name string, modern bool, out *outcome) {
	if modern {
		out.data, out.status = encodeError(m.id, missingTasksExtension(
			"Missing required client capability: tool %s runs only as a task; declare the %s extension in clientCapabilities", name, extTasks)), http.StatusBadRequest
		return
	}
	out.data = encodeError(m.id, newError(CodeMethodNotFound, "Method not found: tool %s runs only as a task, which this request cannot create", name))
}

// taskCall is how a tools/call may run as a task: nil when its client
// cannot take one (on 2026-07-28, it did not declare the extension; on
// 2025-11-25, it sent no task parameter: see legacyTaskCall) or its tool
// does not allow tasks, so that the call runs as any other, at no cost.
func (h *handler) taskCall(ex *exchange, m *message, name string, meta *requestMeta, s *callStream) (*toolexec.TaskCall, *wireError) {
	if meta == nil {
		if ex.version == NewestInitializeVersion && !ex.batch && m.call.task {
			return h.legacyTaskCall(name)
		}
		return nil, nil
	}
	if !declaresExtension(meta.clientCapabilities, extTasks) {
		return nil, nil
	}
	t, ok := h.x.Lookup(name, "")
	if !ok || !allowsTasks(t.Options.TaskSupport) {
		return nil, nil
	}
	var caps clientCaps
	if s != nil {
		caps = s.meta.caps
	}
	return &toolexec.TaskCall{Input: taskInput{caps}}, nil
}

// taskInput asks a task's questions as MCP's input requests ({method,
// params}), and reads the answers tasks/update brings, as an
// input-required result's are read.
type taskInput struct{ caps clientCaps }

func (in taskInput) InputSupported(kind toolexec.InputKind) bool { return in.caps.supports(kind) }

func (in taskInput) EncodeInputRequest(req *toolexec.InputRequest) (json.RawMessage, error) {
	method, params := inputWire(req)
	return json.Marshal(inputRequestW{Method: method, Params: params})
}

func (in taskInput) DecodeInputResponse(kind toolexec.InputKind, answer json.RawMessage) (toolexec.InputResponse, error) {
	return decodeAnswer(kind, answer)
}

// taskNameOf is the Mcp-Name a request of the tasks extension carries:
// params.taskId of tasks/get, tasks/update and tasks/cancel; "" for any
// other request.
func taskNameOf(method string, params []byte) string {
	if method != "tasks/get" && method != "tasks/update" && method != "tasks/cancel" {
		return ""
	}
	id, _ := paramString(params, "taskId")
	return id
}

// taskWire is MCP's Task: the members every shape of a task carries.
type taskWire struct {
	TaskID         string `json:"taskId"`
	Status         string `json:"status"`
	StatusMessage  string `json:"statusMessage,omitempty"`
	CreatedAt      string `json:"createdAt"`
	LastUpdatedAt  string `json:"lastUpdatedAt"`
	TTLMs          int64  `json:"ttlMs"`
	PollIntervalMs int64  `json:"pollIntervalMs"`
}

func newTaskWire(t *toolexec.Task) taskWire {
	return taskWire{
		TaskID: t.ID, Status: string(t.Status), StatusMessage: t.StatusMessage,
		CreatedAt: taskwire.Time(t.CreatedAt), LastUpdatedAt: taskwire.Time(t.UpdatedAt),
		TTLMs: max(t.TTL().Milliseconds(), 1), PollIntervalMs: max(t.PollInterval.Milliseconds(), 1),
	}
}

// createTaskResult encodes the response to a tools/call that became task
// t: a CreateTaskResult, which carries the task and nothing of its outcome.
func (h *handler) createTaskResult(r *http.Request, id json.RawMessage, t *toolexec.Task) []byte {
	return h.encodeResult(r, id, struct {
		ResultType string `json:"resultType"`
		taskWire
		Meta map[string]any `json:"_meta"`
	}{resultTask, newTaskWire(t), h.serverMeta()})
}

// detailedTask is tasks/get's answer (and a notifications/tasks' params):
// the task with what its status carries.
type detailedTask struct {
	ResultType string `json:"resultType,omitempty"`
	taskWire
	InputRequests map[string]json.RawMessage `json:"inputRequests,omitempty"`
	Result        json.RawMessage            `json:"result,omitempty"`
	Error         *wireError                 `json:"error,omitempty"`
	Meta          map[string]any             `json:"_meta,omitempty"`
}

// detail builds the DetailedTask of t: the outstanding input requests of a
// task that waits for them, the tool's result (as tools/call would have
// answered it) of a completed one, the JSON-RPC error of a failed one.
func (h *handler) detail(t *toolexec.Task) (detailedTask, error) {
	d := detailedTask{taskWire: newTaskWire(t)}
	switch t.Status {
	case toolexec.TaskStatusInputRequired:
		d.InputRequests = make(map[string]json.RawMessage, len(t.InputRequests))
		for _, in := range t.InputRequests {
			d.InputRequests[in.Key] = in.Request
		}
	case toolexec.TaskStatusCompleted:
		res := t.Result
		if res == nil {
			e := t.Err
			if e == nil {
				e = &toolexec.Error{Stage: toolexec.StageExecute, Code: toolexec.CodeInternal, Message: "Internal error"}
			}
			res = h.errorResult(t.Tool, e)
		}
		data, err := h.modernToolResponse(nil, res)
		if err != nil {
			return d, err
		}
		// The response's result member: what tools/call would have
		// answered.
		for it := jsonwalk.Members(data); it.Next(); {
			if it.Is("result") {
				d.Result = append(json.RawMessage(nil), it.Val...)
			}
		}
	case toolexec.TaskStatusFailed:
		msg := "Internal error"
		if t.Err != nil {
			msg = t.Err.Message
		}
		d.Error = newError(CodeInternalError, "%s", msg)
	}
	return d, nil
}

// serveTask answers tasks/get, tasks/update and tasks/cancel (2026-07-28;
// admitModern checked the headers common to every request and read meta):
// the params' taskId, the Mcp-Name header that must carry it, the client's
// declaration of the extension, the auth hook, then the method. A task
// that does not exist, expired, or is another caller's is -32602 alike.
func (h *handler) serveTask(ex *exchange, m *message, meta *requestMeta) outcome {
	id, werr := paramString(m.params, "taskId")
	if werr == nil && id == "" {
		werr = newError(CodeInvalidParams, "Invalid params: taskId is required")
	}
	if werr != nil {
		return failWith(m.id, http.StatusBadRequest, werr)
	}
	if werr := checkNameHeader(ex.r, id); werr != nil {
		return failWith(m.id, http.StatusBadRequest, werr)
	}
	if !declaresExtension(meta.clientCapabilities, extTasks) {
		return failWith(m.id, http.StatusBadRequest, missingTasksExtension(
			"Missing required client capability: %s needs the %s extension in clientCapabilities", m.method, extTasks))
	}
	var answers map[string]json.RawMessage
	if m.method == "tasks/update" {
		if answers, werr = inputResponsesParam(m.params); werr != nil {
			return failWith(m.id, http.StatusBadRequest, werr)
		}
	}
	kit := h.x.SurfaceKit()
	caller, err := kit.Authenticate(ex.r)
	if err != nil {
		return refusedOutcome(m.id, asError(err))
	}
	switch m.method {
	case "tasks/get":
		t, err := kit.Task(caller, id)
		if err != nil {
			return h.taskFailed(ex, m, err)
		}
		d, err := h.detail(t)
		if err != nil {
			return h.taskFailed(ex, m, err)
		}
		d.ResultType, d.Meta = resultComplete, h.serverMeta()
		return outcome{data: h.encodeResult(ex.r, m.id, d)}
	case "tasks/update":
		err = kit.UpdateTask(caller, id, answers)
	default: // "tasks/cancel"
		_, err = kit.CancelTask(caller, id)
	}
	if err != nil {
		return h.taskFailed(ex, m, err)
	}
	return outcome{data: h.encodeResult(ex.r, m.id, struct {
		ResultType string         `json:"resultType"`
		Meta       map[string]any `json:"_meta"`
	}{resultComplete, h.serverMeta()})}
}

// taskFailed is the answer to a task method that failed with err: -32602
// for a task not found; for a task that cannot be read just now (the
// shared store does not answer, or is getting its tasks back), a refusal
// to retry: HTTP 503 with Retry-After, -32000; else an internal error
// (logged).
func (h *handler) taskFailed(ex *exchange, m *message, err error) outcome {
	if errors.Is(err, toolexec.ErrTaskNotFound) {
		return outcome{data: encodeError(m.id, newError(CodeInvalidParams, "Failed to retrieve task: Task not found"))}
	}
	if errors.Is(err, toolexec.ErrTasksUnavailable) {
		out := failWith(m.id, http.StatusServiceUnavailable, newError(CodeRequestRejected,
			"Service unavailable: the task cannot be read just now; retry shortly"))
		out.retryAfter = tasksRetryAfter
		return out
	}
	h.x.SurfaceKit().Logger().ErrorContext(ex.r.Context(), "mcp: a task could not be read or changed", "method", m.method, "error", err)
	return outcome{data: encodeError(m.id, newError(CodeInternalError, "Internal error: the task could not be read or changed"))}
}

// inputResponsesParam reads tasks/update's inputResponses: an object whose
// members are the answers, each kept as sent.
func inputResponsesParam(params []byte) (map[string]json.RawMessage, *wireError) {
	var raw []byte
	for it := jsonwalk.Members(params); it.Next(); {
		if it.Is("inputResponses") {
			raw = it.Val
		}
	}
	if raw == nil || string(raw) == "null" {
		return nil, nil
	}
	if !isObject(raw) {
		return nil, newError(CodeInvalidParams, "Invalid params: inputResponses must be an object")
	}
	out := make(map[string]json.RawMessage)
	for it := jsonwalk.Members(raw); it.Next(); {
		var key string
		if json.Unmarshal(it.Key, &key) != nil {
			continue
		}
		out[key] = append(json.RawMessage(nil), it.Val...)
	}
	return out, nil
}
