package toolexec

import (
	"context"
	"fmt"
	"net/http"
	"sync"

	"github.com/toolexec/toolexec/internal/caller"
)

// DefaultMaxTasksPerCaller is how many of one caller's calls may be tasks,
// or calls that may still become one, at once in one process, unless
// TaskSettings.MaxTasksPerCaller says otherwise.
const DefaultMaxTasksPerCaller = 100

// taskQuota counts, per caller, the calls that are tasks or may become one
// (a call of a tool that allows tasks, from a caller that can take one),
// from when the call is admitted until it ends, so that no caller holds
// more than its share of the tasks a process keeps. Calls that have not
// yet become tasks count too: a burst of calls that all become tasks at
// once is refused as it arrives, not once the tasks exist.
type taskQuota struct {
	max int
	mu  sync.Mutex
	n   map[string]int
}

func newTaskQuota(max int) *taskQuota { return &taskQuota{max: max, n: make(map[string]int)} }

// take counts one more call of key's; false (and nothing counted) when key
// holds its maximum.
func (q *taskQuota) take(key string) bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.n[key] >= q.max {
		return false
	}
	q.n[key]++
	return true
}

// give counts one call of key's less.
func (q *taskQuota) give(key string) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.n[key] <= 1 {
		delete(q.n, key)
		return
	}
	q.n[key]--
}

// taskShare names whose share of the process's tasks a call counts in,
// for MaxTasksPerCaller and for the bounds of the tasks kept in the
// process: the identity the auth hook established (ctx), else the network
// the request r came from (see WithIPv6CallerPrefix), as rate limits count
// callers. Credentials without an identity do not name a share: a caller
// could send new ones with each call (any, without a hook; those the hook
// does not read, with one) to take a fresh share each time. It is a
// digest; for a caller with an identity, its task owner (taskOwner).
func (x *Executor) taskShare(ctx context.Context, r *http.Request) string {
	id, _ := IdentityFromContext(ctx)
	addr := ""
	if r != nil {
		addr = caller.Address(r.RemoteAddr, x.ipv6Bits)
	}
	return caller.Share(id, addr)
}

// tooManyTasks is the refusal of a call that would take its caller past
// its share of tasks.
func (x *Executor) tooManyTasks(t *Tool) *Error {
	s := x.tasks.settings
	return &Error{Stage: StageLimit, Code: CodeRateLimited, RetryAfter: s.PollInterval,
		Message: fmt.Sprintf("Too many tasks: this caller already has %d tasks of this server running or starting; "+
			"wait for one to end, or cancel one, before calling %s again.", s.MaxTasksPerCaller, t.Name)}
}
