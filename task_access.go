package toolexec

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"

	"github.com/toolexec/toolexec/internal/caller"
)

// A task belongs to the caller that created it: the identity the auth
// hook established (ContextWithIdentity), or, when it established none, the
// credentials the request carried. Only a request from the same owner
// reads, updates or cancels it, and only while the auth hook admits it to
// a call of the task's tool; to anyone else it does not exist. The
// surfaces run the auth hook on those requests (SurfaceKit.Authenticate)
// and pass the request it returns.

// taskOwner is a digest of whom a task belongs to: the identity in ctx,
// else the credential headers of r (nil: none); "" for an anonymous caller
// without any, whose tasks any anonymous caller holding the id may use.
func taskOwner(ctx context.Context, r *http.Request) string {
	id, _ := IdentityFromContext(ctx)
	var h http.Header
	if r != nil {
		h = r.Header
	}
	return caller.Digest(id, h)
}

// ownRecord reads the task id for the caller of r: ErrTaskNotFound when
// there is no such task, or it is another's. A task whose runner stopped
// is marked failed first. A shared store that cannot be read, or that lost
// its data so lately that the task's runner may not have written it again
// (see taskEpochKey), is ErrTasksUnavailable.
func (k SurfaceKit) ownRecord(r *http.Request, id string) (*taskRecord, error) {
	if !validTaskID(id) {
		return nil, ErrTaskNotFound
	}
	s := k.x.tasks
	rec, err := s.alive(r.Context(), id)
	if err != nil {
		s.noteFailure(err)
		return nil, err
	}
	switch {
	case rec == nil && s.shared:
		recovering, err := s.recovering(r.Context())
		if err != nil {
			return nil, err
		}
		if recovering {
			return nil, fmt.Errorf("%w: %w", ErrTasksUnavailable, errRecovering)
		}
	case s.shared && s.epoch.Load() == nil:
		// The store's epoch, read once, so that this process tells a
		// store that lost its data from a new one.
		_, _ = s.recovering(r.Context())
	}
	if rec == nil || rec.Owner != taskOwner(r.Context(), r) || !k.mayCall(r, rec) {
		return nil, ErrTaskNotFound
	}
	return rec, nil
}

// mayCall reports whether the caller of r may use a task of rec's tool:
// whether the auth hook, run as for a call of that tool, admits it. Owning
// a task is not enough, since the owner's credentials may have changed
// since (a token of the same subject without the tool's scope): reading a
// task's result, answering or cancelling it needs what calling its tool
// needs. A task whose tool is no longer served is refused too, as nothing
// says what calling it would need. Without a hook every owner may.
func (k SurfaceKit) mayCall(r *http.Request, rec *taskRecord) bool {
	hook := k.x.authHook
	if hook == nil {
		return true
	}
	t, ok := k.x.Lookup(rec.Tool, rec.Version)
	if !ok {
		return false
	}
	probe := &Call{Tool: t, Request: r}
	passed, reason, _ := authenticate(hook, k.x.maxBodyBytes, r.WithContext(withCall(r.Context(), probe)))
	if passed == nil {
		k.x.logger.WarnContext(r.Context(), "toolexec: task refused by auth hook; answered as not found",
			"tool", rec.Tool, "reason", reason)
		return false
	}
	return true
}

// Task returns the task id as it is now, for the caller of r: the request
// as the auth hook passed it on (see Authenticate), whose identity or
// credentials must be those of the task's owner. It returns
// ErrTaskNotFound for a task that does not exist, expired, belongs to
// another caller, or whose tool the auth hook would not let this caller
// call (see mayCall); an error wrapping ErrTasksUnavailable when the shared
// store cannot be read, or lost its data so lately that the replica
// running the task may not have written it again yet (ask again in a
// moment); any other error is internal. A task whose runner's replica
// stopped is marked failed ("the replica running this task stopped")
// before it is returned. UpdateTask, CancelTask and WatchTask fail alike.
func (k SurfaceKit) Task(r *http.Request, id string) (*Task, error) {
	rec, err := k.ownRecord(r, id)
	if err != nil {
		return nil, err
	}
	return rec.snapshot()
}

// UpdateTask hands answers to the task id's input requests (its
// InputRequests), keyed as they are, for the caller of r (see Task). An
// answer whose key the task does not wait for (never asked, answered
// already, or withdrawn) is ignored, as is every answer to a task that has
// ended; a task answered in full is working again. The answers reach the
// replica running the task, which decodes them (TaskInputCodec).
func (k SurfaceKit) UpdateTask(r *http.Request, id string, answers map[string]json.RawMessage) error {
	rec, err := k.ownRecord(r, id)
	if err != nil || rec.Status.Terminal() || len(answers) == 0 {
		return err
	}
	_, err = k.x.tasks.update(r.Context(), id, func(rec *taskRecord) bool {
		if rec.Status.Terminal() {
			return false
		}
		changed := false
		kept := rec.Inputs[:0:0]
		for _, in := range rec.Inputs {
			a, ok := answers[in.Key]
			if !ok {
				kept = append(kept, in)
				continue
			}
			if rec.Answers == nil {
				rec.Answers = make(map[string]json.RawMessage)
			}
			rec.Answers[in.Key] = a
			changed = true
		}
		rec.Inputs = kept
		if changed && len(kept) == 0 && rec.Status == TaskStatusInputRequired {
			rec.Status = TaskStatusWorking
		}
		return changed
	})
	return err
}

// CancelTask cancels the task id for the caller of r (see Task) and returns
// it as it is then. A task that has not ended is cancelled at once: its
// status is TaskStatusCanceled from then on, whatever its call does, and the
// call's context is cancelled on the replica running it, soon after. A
// task that has ended is left as it is.
func (k SurfaceKit) CancelTask(r *http.Request, id string) (*Task, error) {
	rec, err := k.ownRecord(r, id)
	if err != nil {
		return nil, err
	}
	if !rec.Status.Terminal() {
		rec, err = k.x.tasks.update(r.Context(), id, func(rec *taskRecord) bool {
			if rec.Status.Terminal() {
				return false
			}
			rec.Status, rec.Message, rec.Inputs, rec.Answers = TaskStatusCanceled, "The task was cancelled.", nil, nil
			return true
		})
		if err != nil {
			return nil, err
		}
		if rec == nil {
			return nil, ErrTaskNotFound
		}
	}
	return rec.snapshot()
}

// WatchTask calls notify each time the task id may have changed, from when
// it returns until stop is called, for the caller of r (see Task); the
// watcher then reads it (Task). notify must return quickly. Changes may be
// coalesced, and are missed while the store cannot be reached.
func (k SurfaceKit) WatchTask(r *http.Request, id string, notify func()) (stop func(), err error) {
	if _, err := k.ownRecord(r, id); err != nil {
		return nil, err
	}
	stop, err = k.x.tasks.bus.Subscribe(r.Context(), taskChannel(id), func([]byte) { notify() })
	return stop, unavailable(err)
}
