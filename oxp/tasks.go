package oxp

import (
	"errors"
	"net/http"
	"time"

	"github.com/go-chi/chi/v5"

	"github.com/toolexec/toolexec"
	"github.com/toolexec/toolexec/internal/httpjson"
	"github.com/toolexec/toolexec/internal/taskwire"
)

// OXP 1.0 answers every call with 200 and its outcome. A caller that asks
// otherwise with HTTP's own Prefer: respond-async (RFC 7240) may be
// answered 202 Accepted instead, for a tool that allows tasks
// (toolexec.ToolOptions.TaskSupport) whose call is still running after
// the Executor's task wait: the body says where the call is, Location
// points at GET /tasks/{task_id}, which answers 202 with the same while the
// call runs and, once it has ended, exactly the CallToolResponse POST
// /tools/call would have answered (200). DELETE /tasks/{task_id} cancels
// it. A caller that does not ask is answered as OXP says, always.

// pendingResponse is the body of a 202: a call that runs on as a task.
type pendingResponse struct {
	CallID         string `json:"call_id"`
	TaskID         string `json:"task_id"`
	Status         string `json:"status"`
	StatusMessage  string `json:"status_message,omitempty"`
	CreatedAt      string `json:"created_at"`
	UpdatedAt      string `json:"updated_at"`
	TTLMS          int64  `json:"ttl_ms"`
	PollIntervalMS int64  `json:"poll_interval_ms"`
}

// wantsAsync reports whether r's Prefer headers ask for respond-async.
func wantsAsync(r *http.Request) bool {
	async, _ := taskwire.Prefer(r.Header)
	return async
}

// callAsync runs an admitted call for a caller that asked for
// respond-async: answered as any call when it ends within the wait, else
// 202 with where it runs on.
func (h *handler) callAsync(w http.ResponseWriter, r *http.Request, c *pendingCall, req toolexec.CallRequest, ics []toolexec.Interceptor) {
	start := time.Now()
	res, task, err := h.x.SurfaceKit().CallTask(r.Context(), req, toolexec.TaskCall{Interceptors: ics, Label: c.cc.CallID})
	if task == nil {
		h.finish(w, r, c, milliseconds(time.Since(start)), res, err)
		return
	}
	w.Header().Set("Location", "../tasks/"+task.ID)
	w.Header().Set("Preference-Applied", "respond-async")
	writePending(w, task)
}

// writePending answers 202 with where the call of task runs on.
func writePending(w http.ResponseWriter, t *toolexec.Task) {
	w.Header().Set("Retry-After", httpjson.RetryAfter(t.PollInterval))
	httpjson.Write(w, http.StatusAccepted, pendingResponse{
		CallID: t.Label, TaskID: t.ID, Status: string(t.Status), StatusMessage: t.StatusMessage,
		CreatedAt: taskwire.Time(t.CreatedAt), UpdatedAt: taskwire.Time(t.UpdatedAt),
		TTLMS: t.TTL().Milliseconds(), PollIntervalMS: t.PollInterval.Milliseconds(),
	})
}

// task serves GET (and HEAD) and DELETE /tasks/{task_id}: the auth hook
// runs, a task that is not the caller's is not found (404), a running one
// answers 202 as the call did, an ended one its CallToolResponse.
func (h *handler) task(w http.ResponseWriter, r *http.Request) {
	id := chi.URLParam(r, "id")
	kit := h.x.SurfaceKit()
	caller, err := kit.Authenticate(r)
	if err != nil {
		h.refuseFailure(w, &form{}, err)
		return
	}
	var t *toolexec.Task
	if r.Method == http.MethodDelete {
		t, err = kit.CancelTask(caller, id)
	} else {
		t, err = kit.Task(caller, id)
	}
	switch {
	case errors.Is(err, toolexec.ErrTaskNotFound):
		httpjson.Write(w, http.StatusNotFound, serverError{Message: "Task not found",
			DeveloperMessage: "no task " + id + " of this caller's: it never existed, has expired, or is another caller's"})
		return
	case errors.Is(err, toolexec.ErrTasksUnavailable):
		// Not known now: never "not found", which the caller would take
		// as final.
		w.Header().Set("Retry-After", "1")
		httpjson.Write(w, http.StatusServiceUnavailable, serverError{Message: "The task cannot be read just now; try again shortly",
			DeveloperMessage: "the service's shared store does not answer, or is getting its running tasks back after losing them"})
		return
	case err != nil:
		kit.Logger().ErrorContext(r.Context(), "oxp: a task could not be read or changed", "error", err)
		writeInternalError(w)
		return
	}
	if !t.Status.Terminal() {
		writePending(w, t)
		return
	}
	h.answerTask(w, r, t)
}

// answerTask writes the CallToolResponse of an ended task: what POST
// /tools/call would have answered, its duration the task's whole life.
func (h *handler) answerTask(w http.ResponseWriter, r *http.Request, t *toolexec.Task) {
	c := pendingCall{cc: &CallContext{CallID: t.Label}}
	if found, ok := h.x.Lookup(t.Tool, t.Version); ok {
		c.outputSchema = found.OutputSchema
	}
	duration := milliseconds(t.UpdatedAt.Sub(t.CreatedAt))
	switch {
	case t.Status == toolexec.TaskStatusCanceled:
		h.answer(w, &c.form, t.Label, duration, nil, &callError{Message: "The call was cancelled", CanRetry: true})
	case t.Result != nil:
		h.finish(w, r, &c, duration, t.Result, nil)
	default:
		e := t.Err
		if e == nil {
			e = &toolexec.Error{Stage: toolexec.StageExecute, Code: toolexec.CodeInternal, Message: "Internal error"}
		}
		h.answer(w, &c.form, t.Label, duration, nil, callErrorOf(e))
	}
}
