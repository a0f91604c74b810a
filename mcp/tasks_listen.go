package mcp

import (
	"encoding/json"
	"net/http"
	"sync"

	"github.com/toolexec/toolexec"
	"github.com/toolexec/toolexec/internal/jsonwalk"
)

// metaSubscriptionKey is the _meta key that ties a notification to the
// subscriptions/listen request that opened its stream.
const metaSubscriptionKey = "io.modelcontextprotocol/subscriptionId"

// maxListenTasks bounds the tasks one subscriptions/listen stream watches:
// each costs a subscription to the store. The acknowledgement names those
// the server agreed to.
const maxListenTasks = 100

// listenTaskIDs reads subscriptions/listen's notifications.taskIds: the
// tasks whose status notifications the client asks for.
func listenTaskIDs(params []byte) ([]string, *wireError) {
	for it := jsonwalk.Members(params); it.Next(); {
		if !it.Is("notifications") || !isObject(it.Val) {
			continue
		}
		for n := jsonwalk.Members(it.Val); n.Next(); {
			if !n.Is("taskIds") || string(n.Val) == "null" {
				continue
			}
			var ids []string
			if json.Unmarshal(n.Val, &ids) != nil {
				return nil, newError(CodeInvalidParams, "Invalid params: notifications.taskIds must be an array of strings")
			}
			return ids, nil
		}
	}
	return nil, nil
}

// taskWatch follows the tasks a listen stream asked for: those of its
// caller's that exist, up to maxListenTasks. A change of any is signalled
// on signal; changed names them.
type taskWatch struct {
	h      *handler
	caller *http.Request
	ids    []string // the tasks watched, in the order asked
	stops  []func()
	signal chan struct{}

	mu      sync.Mutex
	changed map[string]bool
	sent    map[string]taskSent // what the stream last sent of each task
}

// taskSent is what a notification said of a task, to send the next only
// when something changed.
type taskSent struct {
	status  toolexec.TaskStatus
	message string
	updated int64
}

// watchTasks starts watching ids for the caller of a listen stream. A
// task that does not exist or is another's is left out, as is any past
// the bound.
func (h *handler) watchTasks(caller *http.Request, ids []string) *taskWatch {
	w := &taskWatch{h: h, caller: caller, signal: make(chan struct{}, 1), changed: map[string]bool{}, sent: map[string]taskSent{}}
	kit := h.x.SurfaceKit()
	seen := map[string]bool{}
	for _, id := range ids {
		if len(w.ids) == maxListenTasks || seen[id] {
			continue
		}
		seen[id] = true
		stop, err := kit.WatchTask(caller, id, func() { w.mark(id) })
		if err != nil {
			continue
		}
		w.ids = append(w.ids, id)
		w.stops = append(w.stops, stop)
		w.mark(id) // its state now, sent after the acknowledgement
	}
	return w
}

func (w *taskWatch) mark(id string) {
	w.mu.Lock()
	w.changed[id] = true
	w.mu.Unlock()
	select {
	case w.signal <- struct{}{}:
	default:
	}
}

func (w *taskWatch) stop() {
	for _, stop := range w.stops {
		stop()
	}
}

// notifications returns the notifications/tasks to send for the tasks
// that changed since the last call: one per task whose status, message or
// time of change differs from what was sent, carrying what tasks/get would
// answer, tied to the stream's subscription.
func (w *taskWatch) notifications(subscription json.RawMessage) [][]byte {
	w.mu.Lock()
	changed := w.changed
	w.changed = map[string]bool{}
	w.mu.Unlock()
	var out [][]byte
	for _, id := range w.ids {
		if !changed[id] {
			continue
		}
		t, err := w.h.x.SurfaceKit().Task(w.caller, id)
		if err != nil {
			continue // expired, or the store is down: nothing to say
		}
		now := taskSent{status: t.Status, message: t.StatusMessage, updated: t.UpdatedAt.UnixMilli()}
		if w.sent[id] == now {
			continue
		}
		d, err := w.h.detail(t)
		if err != nil {
			continue
		}
		w.sent[id] = now
		d.Meta = map[string]any{metaSubscriptionKey: subscription}
		data, err := encodeNotification("notifications/tasks", d)
		if err == nil {
			out = append(out, data)
		}
	}
	return out
}
