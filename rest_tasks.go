package toolexec

import (
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"time"

	"github.com/toolexec/toolexec/internal/httpjson"
	"github.com/toolexec/toolexec/internal/taskwire"
)

// The REST surface runs a call as a task when its caller asks with
// RFC 7240's Prefer: respond-async and the tool allows tasks
// (ToolOptions.TaskSupport): a call still running after the wait (the
// Executor's, or the caller's Prefer: wait=N) is answered 202 Accepted with
// Location: tasks/{id} (relative to the mount point), which the caller
// polls with GET and cancels with DELETE. Task routes live under /tasks,
// beside /tools, so no tool name can clash with them.

// tasksRetryAfter is the Retry-After of a task request answered 503
// because the shared store does not answer.
const tasksRetryAfter = time.Second

// maxPreferWait bounds the wait a caller may ask for with Prefer: wait=N.
const maxPreferWait = time.Minute

// preferAsync reads the Prefer headers (RFC 7240): whether they ask for
// respond-async, and the wait=N they ask for, at most maxPreferWait (-1:
// none).
func preferAsync(r *http.Request) (async bool, wait time.Duration) {
	async, wait = taskwire.Prefer(r.Header)
	return async, min(wait, maxPreferWait)
}

// callAsync is POST /tools/{name}/call with Prefer: respond-async: the call
// as an ordinary one when it ends within the wait (or its tool does not
// allow tasks), else 202 with the task.
func (h *restHandler) callAsync(w http.ResponseWriter, r *http.Request, name string, wait time.Duration) {
	tc := TaskCall{}
	if wait == 0 {
		tc.Wait = -1 // at once
	} else if wait > 0 {
		tc.Wait = wait
	}
	res, task, err := h.x.SurfaceKit().CallTask(r.Context(), CallRequest{Name: name, bodyWriter: w, Request: r, Surface: SurfaceREST}, tc)
	switch {
	case task != nil:
		hdr := w.Header()
		hdr.Set("Location", taskLocation(r, task.ID))
		hdr.Set("Preference-Applied", "respond-async")
		hdr.Set("Retry-After", httpjson.RetryAfter(task.PollInterval))
		h.writeTask(w, http.StatusAccepted, task)
	case err != nil:
		h.writeCallError(w, err)
	default:
		status := http.StatusOK
		if res.IsError {
			status = http.StatusInternalServerError
		}
		h.writeResult(w, status, res)
	}
}

// taskLocation is the URL of task id's status, relative to the call's
// own URL: as many "../" as the call's path has segments below the mount
// point, then tasks/{id}.
func taskLocation(r *http.Request, id string) string {
	up := strings.Count(strings.TrimPrefix(routePath(r), "/"), "/")
	return strings.Repeat("../", up) + "tasks/" + id
}

// tasks serves /tasks/{id}: GET (and HEAD) reads the task, DELETE cancels
// it. Every request runs the auth hook, and a task that is not the
// caller's is not found.
func (h *restHandler) tasks(w http.ResponseWriter, r *http.Request, id string) {
	switch r.Method {
	case http.MethodGet, http.MethodHead, http.MethodDelete:
	default:
		methodNotAllowed(w, "GET, HEAD, DELETE")
		return
	}
	kit := h.x.SurfaceKit()
	caller, err := kit.Authenticate(r)
	if err != nil {
		h.writeCallError(w, err)
		return
	}
	var task *Task
	if r.Method == http.MethodDelete {
		task, err = kit.CancelTask(caller, id)
	} else {
		task, err = kit.Task(caller, id)
	}
	switch {
	case errors.Is(err, ErrTaskNotFound):
		writeError(w, http.StatusNotFound, "Task not found")
		return
	case errors.Is(err, ErrTasksUnavailable):
		// Not known now (the shared store does not answer, or is getting
		// its tasks back after losing them): ask again, never "not found".
		w.Header().Set("Retry-After", httpjson.RetryAfter(tasksRetryAfter))
		writeError(w, http.StatusServiceUnavailable, "Service unavailable: the task cannot be read just now; try again shortly")
		return
	case err != nil:
		h.x.logger.ErrorContext(r.Context(), "toolexec: a task could not be read or changed", "error", err)
		writeError(w, http.StatusInternalServerError, "Internal server error")
		return
	}
	if !task.Status.Terminal() {
		w.Header().Set("Retry-After", httpjson.RetryAfter(task.PollInterval))
	}
	h.writeTask(w, http.StatusOK, task)
}

// restTask is a task as the REST surface shows it.
type restTask struct {
	TaskID         string           `json:"taskId"`
	Tool           string           `json:"tool"`
	Status         TaskStatus       `json:"status"`
	StatusMessage  string           `json:"statusMessage,omitempty"`
	Progress       *restProgress    `json:"progress,omitempty"`
	CreatedAt      string           `json:"createdAt"`
	LastUpdatedAt  string           `json:"lastUpdatedAt"`
	TTLMs          int64            `json:"ttlMs"`
	PollIntervalMs int64            `json:"pollIntervalMs"`
	ResultStatus   int              `json:"resultStatus,omitempty"`
	Result         *json.RawMessage `json:"result,omitempty"`
}

type restProgress struct {
	Progress float64 `json:"progress"`
	Total    float64 `json:"total,omitempty"`
}

// writeTask writes task; an ended one carries the status and the
// CallToolResult POST .../call would have answered.
func (h *restHandler) writeTask(w http.ResponseWriter, status int, t *Task) {
	body := restTask{
		TaskID: t.ID, Tool: t.Tool, Status: t.Status, StatusMessage: t.StatusMessage,
		CreatedAt: taskwire.Time(t.CreatedAt), LastUpdatedAt: taskwire.Time(t.UpdatedAt),
		TTLMs: t.TTL().Milliseconds(), PollIntervalMs: t.PollInterval.Milliseconds(),
	}
	if t.Progress.Progress != 0 || t.Progress.Total != 0 {
		body.Progress = &restProgress{Progress: t.Progress.Progress, Total: t.Progress.Total}
	}
	if t.Status == TaskStatusCompleted || t.Status == TaskStatusFailed {
		code, res := http.StatusOK, t.Result
		if res == nil {
			code, res = restOutcome(t.Err)
		} else if res.IsError {
			code = http.StatusInternalServerError
		}
		data, err := res.MarshalJSON()
		if err != nil {
			code = http.StatusInternalServerError
			data, _ = ErrorResult(encodingFailedMessage).MarshalJSON()
		}
		raw := json.RawMessage(data)
		body.ResultStatus, body.Result = code, &raw
	}
	httpjson.Write(w, status, body)
}

// restOutcome is the status and isError result POST .../call answers for
// e, a failure of a call's handler or of the interceptors around it (the
// only failures a task can end in).
func restOutcome(e *Error) (int, *CallToolResult) {
	if e == nil {
		e = &Error{Stage: StageExecute, Code: CodeInternal, Message: "Internal error"}
	}
	switch e.Code {
	case CodeInvalidArguments:
		return http.StatusUnprocessableEntity, e.Result()
	case CodeUnavailable:
		return http.StatusServiceUnavailable, e.Result()
	case CodeRateLimited:
		return http.StatusTooManyRequests, e.Result()
	}
	return http.StatusInternalServerError, e.Result()
}
