package toolexec

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"
)

// TaskInputCodec is how the callers of a surface answer the input requests of a
// task: a task asks its questions by showing them in its InputRequests,
// encoded as the surface's callers read them, and reads the answers that
// arrive (SurfaceKit.UpdateTask) as the surface decodes them. A surface
// whose callers cannot answer passes none, and a task's RequestInput then
// fails with ErrInputUnsupported.
type TaskInputCodec interface {
	// InputSupported reports whether the caller that started the task
	// declared it answers requests of kind.
	InputSupported(kind InputKind) bool
	// EncodeInputRequest encodes one request as the caller reads it.
	EncodeInputRequest(req *InputRequest) (json.RawMessage, error)
	// DecodeInputResponse reads the caller's answer to a request of kind.
	DecodeInputResponse(kind InputKind, answer json.RawMessage) (InputResponse, error)
}

// TaskCall configures one call of SurfaceKit.CallTask.
type TaskCall struct {
	// Wait is how long the call runs before it becomes a task: 0 is the
	// Executor's (TaskSettings.Wait), a negative value makes it one as
	// soon as its handler starts.
	Wait time.Duration
	// Interceptors run for this call only, as SurfaceKit.Call's do.
	Interceptors []Interceptor
	// Input is how the task asks its caller for input; nil when the
	// surface has no way to.
	Input TaskInputCodec
	// Label is kept with the task, for the surface to read back
	// (Task.Label); at most MaxTaskLabelBytes.
	Label string
	// Always makes the call a task even when it ends before it could
	// become one, as long as its handler ran: it is then recorded as a task
	// that has ended. It is for protocols whose callers expect a task
	// whenever they ask for one (MCP 2025-11-25's task-augmented calls).
	Always bool
}

// MaxTaskLabelBytes bounds TaskCall.Label: a longer label is cut.
const MaxTaskLabelBytes = 256

// CallTask runs req as SurfaceKit.Call does, for a caller that can take a
// task: when the call's tool allows tasks (ToolOptions.TaskSupport) and
// the call runs longer than tc.Wait after its handler starts, it becomes a
// task, and CallTask returns it (durably created: any replica sharing the
// store finds it) while the call runs on, detached from ctx, until it ends
// or is cancelled (SurfaceKit.CancelTask). Otherwise it returns the call's
// result or failure as Call would, with a nil Task: a call refused before
// its handler starts (by the gate, the auth hook, a requirement), one that
// ends within tc.Wait, one whose tool does not allow tasks, or one the
// store could not record (logged at warning level: the caller then simply
// waits for it). With a shared store (WithStore), a call that may become a
// task is refused before its handler runs while the store does not answer
// (CodeUnavailable, with RetryAfter, wrapping ErrTasksUnavailable), so
// that its caller is not held for the whole run; the store is checked
// once before each such call.
//
// Until the call becomes a task, its progress, log messages and input
// requests go to req.Peer, as for any call; a call never becomes a task
// while it waits for an answer from req.Peer, and one whose input request
// failed with ErrInputRequired ends as an ordinary call. Once it is a
// task, its progress and log messages become the task's status message
// and its input requests the task's InputRequests (see tc.Input). If ctx
// ends before that, the call is cancelled, as an ordinary call would be.
func (k SurfaceKit) CallTask(ctx context.Context, req CallRequest, tc TaskCall) (*CallToolResult, *Task, error) {
	x := k.x
	run := &taskRun{x: x, s: x.tasks, tc: tc, started: make(chan struct{}), done: make(chan struct{}),
		decided: make(chan struct{}), now: make(chan struct{}, 1),
		notify: make(chan struct{}, 1), flush: make(chan struct{}, 1)}
	if run.wait = tc.Wait; run.wait == 0 {
		run.wait = x.tasks.settings.Wait
	}
	req.interceptors = append(append([]Interceptor(nil), tc.Interceptors...), run.intercept)
	req.task = run
	run.inner = req.Peer
	req.Peer = (*taskPeer)(run)
	cctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	run.cancel = cancel
	go run.call(cctx, req)

	select {
	case <-run.done:
		return run.answerEnded(ctx)
	case <-run.started:
	case <-ctx.Done():
		return run.abandon()
	}
	if !run.allowed {
		return run.await(ctx)
	}
	timer := time.NewTimer(max(run.wait, 0))
	defer timer.Stop()
	for {
		select {
		case <-run.done:
			return run.answerEnded(ctx)
		case <-ctx.Done():
			return run.abandon()
		case <-timer.C:
		case <-run.now:
		}
		task, retry := run.escalate(ctx)
		if task != nil {
			return nil, task, nil
		}
		if !retry {
			return run.await(ctx)
		}
		timer.Reset(escalateRetry)
	}
}

// escalateRetry is how soon a call that could not become a task for the
// moment (it waits for an answer from its caller) tries again.
const escalateRetry = 20 * time.Millisecond

// The states of a taskRun.
const (
	runPending  = iota // may still become a task
	runTask            // became a task
	runOrdinary        // will end as an ordinary call
)

// taskRun is one call of CallTask: the call running on its own goroutine,
// and, once it became a task, the task's runner.
type taskRun struct {
	x     *Executor
	s     *taskStore
	tc    TaskCall
	wait  time.Duration
	inner Peer // the surface's Peer, until the call becomes a task

	started chan struct{} // closed when the handler is about to run (intercept)
	decided chan struct{} // closed when the call became a task, or will end as an ordinary call
	now     chan struct{} // the handler asks to become a task at once (BecomeTask)
	allowed bool          // the call's tool allows tasks; set before started closes
	tool    string        // set before started closes
	version string        // set before started closes
	owner   string        // set before started closes
	share   string        // whose share of tasks it counts in (taskShare); set before started closes

	done     chan struct{} // closed when the call has ended
	res      *CallToolResult
	err      error
	cancel   context.CancelFunc // cancels the call
	notify   chan struct{}      // the task's channel said something
	flush    chan struct{}      // progress to write
	stopSubs func()

	mu       sync.Mutex
	last     *taskRecord // the record as this runner last wrote or read it, to write again should the store lose it
	restored bool        // the record was written again (logged once)
	state    int
	ended    bool // the call returned
	inInput  int  // input requests to the surface's Peer in flight
	mustEnd  bool // one failed with ErrInputRequired: the call ends now
	id       string
	progress Progress // the last reported
	message  string   // the status message to write
	dirty    bool     // progress or message not written yet
	flushing bool     // a flush is scheduled
	keys     map[string]bool
	waiters  map[string]chan json.RawMessage
}

// intercept is the last of the call's own interceptors: past it the
// handler runs (inside the built-in interceptors), so the call may become
// a task.
func (run *taskRun) intercept(next CallFunc) CallFunc {
	return func(ctx context.Context, call *Call) (*CallToolResult, error) {
		run.allowed = call.Tool.Options.TaskSupport.allowsTasks()
		run.tool, run.version = call.Tool.Name, call.Tool.Version
		run.owner = taskOwner(ctx, call.Request)
		if run.allowed {
			// The call counts against its caller's share of tasks until it
			// ends (the task's end, wherever that runs): when its handler
			// returns, or when its timeout ends it, even if the handler
			// then runs on, as the call is over and its task, if any, has
			// ended.
			run.share = run.x.taskShare(ctx, call.Request)
			if !run.s.quota.take(run.share) {
				run.allowed = false // answered as the ordinary call it now is
				close(run.started)
				return nil, run.x.tooManyTasks(&call.Tool)
			}
			defer run.s.quota.give(run.share)
			if run.s.shared {
				if err := run.s.check(ctx); err != nil {
					run.allowed = false
					close(run.started)
					return nil, &Error{Stage: StageIntercept, Code: CodeUnavailable, RetryAfter: time.Second, Err: err,
						Message: "Tasks cannot be created just now: the service's shared store does not answer. Try again shortly."}
				}
			}
		}
		close(run.started)
		return next(ctx, call)
	}
}

// call runs the call, then, when it became a task, ends the task with its
// outcome.
func (run *taskRun) call(ctx context.Context, req CallRequest) {
	res, err := run.x.Call(ctx, req)
	run.mu.Lock()
	run.res, run.err, run.ended = res, err, true
	run.setState(runOrdinary) // a call that ended as it was never becomes a task
	run.mu.Unlock()
	close(run.done)
}

// answerEnded answers a call that ended before it became a task: its outcome,
// or, with TaskCall.Always and a handler that ran, a task that has ended
// with it.
func (run *taskRun) answerEnded(ctx context.Context) (*CallToolResult, *Task, error) {
	started := false
	select {
	case <-run.started:
		started = run.allowed
	default:
	}
	if !run.tc.Always || !started {
		return run.res, nil, run.err
	}
	status, msg, result, rerr := run.outcome()
	run.mu.Lock()
	progress := run.progress
	run.mu.Unlock()
	now := time.Now()
	s := run.s
	rec := &taskRecord{ID: newTaskID(), Tool: run.tool, Version: run.version, Label: cutLabel(run.tc.Label), Owner: run.owner,
		Holder: holderOf(run.owner, run.share), Status: status, Message: msg, Result: result, Err: rerr, Progress: progress.Progress, Total: progress.Total,
		Created: now.UnixMilli(), Updated: now.UnixMilli(), Expires: now.Add(s.settings.TTL).UnixMilli(),
		PollMs: s.settings.PollInterval.Milliseconds()}
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), storeOpTimeout)
	defer cancel()
	data, err := json.Marshal(rec)
	if err == nil {
		_, err = s.records.Add(sctx, taskKey(rec.ID), data, s.settings.TTL)
	}
	if err != nil {
		run.x.logger.WarnContext(ctx, "toolexec: an ended call could not be recorded as a task; it is answered as an ordinary call",
			"tool", run.tool, "error", err)
		return run.res, nil, run.err
	}
	t, err := rec.snapshot()
	if err != nil {
		return run.res, nil, run.err
	}
	return nil, t, nil
}

// abandon cancels a call whose caller went away before it became a task,
// and returns its outcome once it has ended.
func (run *taskRun) abandon() (*CallToolResult, *Task, error) {
	run.mu.Lock()
	run.setState(runOrdinary)
	task := run.state == runTask
	run.mu.Unlock()
	if !task {
		run.cancel()
	}
	<-run.done
	return run.res, nil, run.err
}

// await waits for a call that will not become a task.
func (run *taskRun) await(ctx context.Context) (*CallToolResult, *Task, error) {
	run.mu.Lock()
	run.setState(runOrdinary)
	run.mu.Unlock()
	select {
	case <-run.done:
		return run.answerEnded(ctx)
	case <-ctx.Done():
		return run.abandon()
	}
}

// escalate makes the call a task, unless it has ended, or is asking its
// caller for input (retry: try again soon), or the store cannot record the
// task (the call then goes on as an ordinary one).
func (run *taskRun) escalate(ctx context.Context) (task *Task, retry bool) {
	run.mu.Lock()
	defer run.mu.Unlock()
	if run.ended || run.state != runPending || run.mustEnd {
		run.setState(runOrdinary)
		return nil, false
	}
	if run.inInput > 0 {
		return nil, true
	}
	s := run.s
	now := time.Now()
	rec := &taskRecord{
		ID: newTaskID(), Tool: run.tool, Version: run.version, Label: cutLabel(run.tc.Label), Owner: run.owner,
		Holder: holderOf(run.owner, run.share), Status: TaskStatusWorking, Message: run.message,
		Progress: run.progress.Progress, Total: run.progress.Total,
		Created: now.UnixMilli(), Updated: now.UnixMilli(), Expires: now.Add(s.settings.TTL).UnixMilli(),
		PollMs: s.settings.PollInterval.Milliseconds(),
	}
	if err := run.create(ctx, rec); err != nil {
		run.setState(runOrdinary)
		run.x.logger.WarnContext(ctx, "toolexec: the call could not become a task; it goes on as an ordinary call",
			"tool", run.tool, "error", err)
		return nil, false
	}
	run.id, run.dirty, run.last = rec.ID, false, rec
	run.setState(runTask)
	go run.supervise()
	t, _ := rec.snapshot() // holds no result: cannot fail
	return t, false
}

// cutLabel is l within MaxTaskLabelBytes, cut at a rune boundary.
func cutLabel(l string) string {
	if len(l) <= MaxTaskLabelBytes {
		return l
	}
	return strings.ToValidUTF8(l[:MaxTaskLabelBytes], "") // a rune cut in two is dropped
}

// setState moves a pending call to st, once; run.mu is held.
func (run *taskRun) setState(st int) {
	if run.state != runPending {
		return
	}
	run.state = st
	close(run.decided)
}

// become asks the call to become a task at once, and reports whether it is
// one when that is decided.
func (run *taskRun) become() bool {
	select {
	case run.now <- struct{}{}:
	default:
	}
	<-run.decided
	return run.isTask()
}

// create records a new task durably: its lease first, then the
// subscription to its channel, then the record itself, so that a record
// anyone can read always has a live runner listening.
func (run *taskRun) create(ctx context.Context, rec *taskRecord) error {
	s := run.s
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), storeOpTimeout)
	defer cancel()
	data, err := json.Marshal(rec)
	if err != nil {
		return err
	}
	if err := s.leases.Set(ctx, leaseKey(rec.ID), []byte{'1'}, s.leaseTTL); err != nil {
		return err
	}
	stop, err := s.bus.Subscribe(ctx, taskChannel(rec.ID), func([]byte) {
		select {
		case run.notify <- struct{}{}:
		default:
		}
	})
	if err != nil {
		_ = s.leases.Delete(ctx, leaseKey(rec.ID))
		return err
	}
	ok, err := s.records.Add(ctx, taskKey(rec.ID), data, s.settings.TTL)
	if err == nil && !ok {
		err = errors.New("toolexec: task id already in use")
	}
	if err != nil {
		stop()
		_ = s.leases.Delete(ctx, leaseKey(rec.ID))
		return err
	}
	run.stopSubs = stop
	return nil
}

// heartbeat is how often a task's runner renews its lease and reads its
// record: a third of the lease TTL, or of the task TTL when that is
// shorter, so that neither runs out while the runner lives.
func (run *taskRun) heartbeat() time.Duration {
	return max(min(run.s.leaseTTL, run.s.settings.TTL)/3, time.Millisecond)
}

// progressFlush is how long a task's progress waits to be written, so
// that a handler reporting progress often costs the store one write per
// period.
const progressFlush = 200 * time.Millisecond

// storeRetry is how soon a task's runner tries the store again after it
// failed to answer, when that is sooner than its heartbeat: a store that
// comes back (restarted, and empty) gets the task's lease and record again
// within about this.
const storeRetry = time.Second

// supervise is the runner of a task: until the call ends it renews the
// lease, writes progress, delivers answers and hears of cancellation; then
// it writes the outcome.
func (run *taskRun) supervise() {
	hb := run.heartbeat()
	tick := time.NewTimer(hb)
	defer tick.Stop()
	for {
		select {
		case <-run.done:
			run.finish()
			return
		case <-run.notify:
			run.sync(false)
		case <-run.flush:
			run.sync(true)
		case <-tick.C:
			ok := run.beat()
			if !run.sync(true) || !ok {
				tick.Reset(min(hb, storeRetry))
			} else {
				run.s.runnersReach(true)
				tick.Reset(hb)
			}
		}
	}
}

// storeCtx is a context for one store operation of the runner.
func storeCtx() (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.Background(), storeOpTimeout)
}

// beat renews the runner's lease, and reports whether the store answered.
func (run *taskRun) beat() bool {
	ctx, cancel := storeCtx()
	defer cancel()
	if err := run.s.leases.Set(ctx, leaseKey(run.id), []byte{'1'}, run.s.leaseTTL); err != nil {
		run.failed("toolexec: a task's lease could not be renewed", err)
		return false
	}
	return true
}

// failed logs a failure of the runner's store operation what: an outage
// once for all the runners of the process (they keep their tasks and try
// again), anything else each time.
func (run *taskRun) failed(what string, err error) {
	if errors.Is(err, ErrTasksUnavailable) {
		if run.s.runnersReach(false) {
			run.x.logger.Warn("toolexec: the shared store does not answer the replica's running tasks; they run on, and are written when it answers",
				"error", err)
		}
		return
	}
	run.x.logger.Warn(what, "task", run.id, "error", err)
}

// remember keeps r as the record this runner last read or wrote.
func (run *taskRun) remember(r *taskRecord) {
	if r == nil {
		return
	}
	run.mu.Lock()
	run.last = r
	run.mu.Unlock()
}

// sync reads the task's record: it cancels the call of a task that was
// cancelled, failed or dropped meanwhile, writes again the record a shared
// store lost (restarted without persistence), and hands answers to the
// input requests waiting for them. With write, it also writes the progress
// not yet written, and renews a record past half its TTL. It reports
// whether the store answered.
func (run *taskRun) sync(write bool) bool {
	ctx, cancel := storeCtx()
	defer cancel()
	r, _, err := run.s.load(ctx, run.id)
	if err != nil {
		run.failed("toolexec: a task's record could not be read", err)
		return false
	}
	if r == nil && run.s.shared {
		if err := run.restore(ctx, nil); err != nil {
			run.failed("toolexec: a task's record could not be written again", err)
			return false
		}
		return true
	}
	if r == nil || r.Status.Terminal() {
		run.cancel() // cancelled, failed by another replica, or dropped
		return true
	}
	run.remember(r)
	delivered := run.deliver(r.Answers)
	run.mu.Lock()
	dirty, msg, p := run.dirty && write, run.message, run.progress
	if write {
		run.dirty, run.flushing = false, false
	}
	run.mu.Unlock()
	renew := write && time.Until(unixMilli(r.Expires)) < run.s.settings.TTL/2
	if len(delivered) == 0 && !dirty && !renew {
		return true
	}
	r, err = run.s.update(ctx, run.id, func(r *taskRecord) bool {
		if r.Status.Terminal() {
			return false
		}
		for _, k := range delivered {
			delete(r.Answers, k)
		}
		if dirty {
			r.Message, r.Progress, r.Total = msg, p.Progress, p.Total
		}
		return true
	})
	if err != nil {
		run.failed("toolexec: a task's record could not be written", err)
		return false
	}
	run.remember(r)
	return true
}

// restore writes the task's record again, from what this runner last
// knew of it (with the progress reported since), changed by end when the
// call has ended, after the shared store lost it: its lease first, then
// the record, so that no replica takes the task for one whose runner
// stopped. A record found back meanwhile is left as it is
// (errTaskConflict: read it again).
func (run *taskRun) restore(ctx context.Context, end func(r *taskRecord)) error {
	run.mu.Lock()
	r := *run.last
	r.Message, r.Progress, r.Total = run.message, run.progress.Progress, run.progress.Total
	logged := run.restored
	run.restored = true
	run.mu.Unlock()
	if end != nil {
		end(&r)
	}
	now := time.Now()
	r.Updated, r.Expires = now.UnixMilli(), now.Add(run.s.settings.TTL).UnixMilli()
	data, err := json.Marshal(&r)
	if err != nil {
		return err
	}
	if err := run.s.leases.Set(ctx, leaseKey(run.id), []byte{'1'}, run.s.leaseTTL); err != nil {
		return unavailable(err)
	}
	added, err := run.s.records.Add(ctx, taskKey(run.id), data, run.s.settings.TTL)
	if err != nil {
		return unavailable(err)
	}
	if !added {
		return errTaskConflict
	}
	run.remember(&r)
	run.s.noteLoss(ctx)
	run.s.announce(ctx, run.id)
	if !logged {
		run.x.logger.Warn("toolexec: a task's record was gone from the shared store (restarted without persistence?); the replica running the task wrote it again",
			"task", run.id, "status", r.Status)
	}
	return nil
}

// deliver hands the answers to the input requests waiting for them, and
// returns their keys.
func (run *taskRun) deliver(answers map[string]json.RawMessage) []string {
	if len(answers) == 0 {
		return nil
	}
	run.mu.Lock()
	defer run.mu.Unlock()
	var keys []string
	for k, a := range answers {
		if ch, ok := run.waiters[k]; ok {
			ch <- a // buffered, and each waiter receives once
			delete(run.waiters, k)
			keys = append(keys, k)
		}
	}
	return keys
}

// finish writes the outcome of the call that ended, unless the task ended
// otherwise meanwhile (it was cancelled, or a replica marked it failed),
// then gives up the lease and the subscription.
func (run *taskRun) finish() {
	defer run.stopSubs()
	status, msg, result, rerr := run.outcome()
	run.mu.Lock()
	progress := run.progress
	run.mu.Unlock()
	end := func(r *taskRecord) bool {
		if r.Status.Terminal() {
			return false
		}
		r.Status, r.Message, r.Inputs, r.Answers, r.Result, r.Err = status, msg, nil, nil, result, rerr
		if status == TaskStatusCompleted && rerr == nil {
			r.Progress, r.Total = progress.Progress, progress.Total
		}
		return true
	}
	write := func(ctx context.Context) error {
		r, err := run.s.update(ctx, run.id, end)
		if err == nil && r == nil && run.s.shared {
			// The store lost the record (restarted): write it again, ended.
			err = run.restore(ctx, func(r *taskRecord) { end(r) })
		}
		return err
	}
	// The outcome is kept until the store takes it, for as long as the
	// task would be kept: a store that does not answer now (restarting, a
	// partition) gets it when it answers again.
	start, wait, kept := time.Now(), 100*time.Millisecond, false
	for {
		ctx, cancel := storeCtx()
		err := write(ctx)
		cancel()
		if err == nil {
			if kept {
				run.x.logger.Info("toolexec: a task's outcome was stored once the shared store answered again", "task", run.id)
			}
			break
		}
		if result != nil && !errors.Is(err, errTaskConflict) && run.s.answers() {
			// The store answers, yet refused the outcome: a result too
			// large for it. Keep the failure instead.
			run.x.logger.Warn("toolexec: a task's result could not be stored", "task", run.id, "error", err)
			status, msg, result = TaskStatusFailed, errResultUnstored.Message, nil
			rerr = toRecordError(errResultUnstored)
			continue
		}
		if time.Since(start) > run.s.settings.TTL {
			run.x.logger.Error("toolexec: a task's outcome could not be stored", "task", run.id, "error", err)
			break
		}
		if !kept {
			kept = true
			run.x.logger.Warn("toolexec: a task's outcome cannot be stored now; this replica keeps it until the shared store answers",
				"task", run.id, "error", err)
		}
		time.Sleep(wait)
		wait = min(wait*2, storeRetry)
		run.beat() // the task is not taken for one whose runner stopped meanwhile
	}
	ctx, cancel := storeCtx()
	_ = run.s.leases.Delete(ctx, leaseKey(run.id))
	cancel()
}

var (
	errResultTooLarge = &Error{Stage: StageExecute, Code: CodeInternal, Message: "the task's result is too large to keep"}
	errResultUnstored = &Error{Stage: StageExecute, Code: CodeInternal, Message: "the task's result could not be stored"}
)

// outcome is what the task ends as: completed with the call's result, or
// with its failure reported as a tool error (the surfaces render it as
// their ordinary calls do), or failed, for a panic or an internal failure.
func (run *taskRun) outcome() (TaskStatus, string, json.RawMessage, *recordError) {
	if run.err != nil {
		e, ok := AsError(run.err)
		if !ok {
			e = &Error{Stage: StageIntercept, Code: CodeInternal, Message: run.err.Error(), Err: run.err}
		}
		status := TaskStatusCompleted
		if e.Code == CodePanic || e.Code == CodeInternal {
			status = TaskStatusFailed
		}
		return status, e.Message, nil, toRecordError(e)
	}
	data, err := run.res.MarshalJSON()
	if err != nil {
		e := &Error{Stage: StageExecute, Code: CodeInternal, Message: "The tool's result could not be encoded."}
		return TaskStatusFailed, e.Message, nil, toRecordError(e)
	}
	if len(data) > run.s.settings.MaxResultBytes {
		e := &Error{Stage: errResultTooLarge.Stage, Code: errResultTooLarge.Code,
			Message: fmt.Sprintf("%s (%d bytes; at most %d)", errResultTooLarge.Message, len(data), run.s.settings.MaxResultBytes)}
		return TaskStatusFailed, e.Message, nil, toRecordError(e)
	}
	return TaskStatusCompleted, "", data, nil
}

// BecomeTask makes the running call a task at once, rather than when it has
// run for TaskSettings.Wait, and reports whether the call is a task: false
// when it cannot become one (its tool does not allow tasks, its caller
// cannot take one, it runs in process, or the store could not record it),
// and the handler then goes on as in an ordinary call. A handler calls it
// before the work its caller should not wait for; a handler that needs
// its caller's input mid-way through such work calls it first, so that
// its input requests become the task's (MCP's tasks/update) instead of
// the call's.
func BecomeTask(ctx context.Context) bool {
	p, ok := PeerFromContext(ctx).(*taskPeer)
	if !ok {
		return false
	}
	run := p.run()
	select {
	case <-run.started:
	default:
		return false // not past the call's own interceptors yet: cannot be
	}
	if !run.allowed {
		return false
	}
	return run.become()
}

// taskPeer is the Peer of a call CallTask runs: the surface's own until the
// call becomes a task, the task's after.
type taskPeer taskRun

func (p *taskPeer) run() *taskRun { return (*taskRun)(p) }

// isTask reports whether the call became a task.
func (run *taskRun) isTask() bool {
	run.mu.Lock()
	defer run.mu.Unlock()
	return run.state == runTask
}

// Progress implements Peer.
func (p *taskPeer) Progress(ctx context.Context, pr Progress) error {
	run := p.run()
	run.mu.Lock()
	run.progress = pr
	if pr.Message != "" {
		run.message = pr.Message
	}
	task := run.state == runTask
	if task {
		run.markDirty()
	}
	run.mu.Unlock()
	if !task && run.inner != nil {
		return run.inner.Progress(ctx, pr)
	}
	return nil
}

// Log implements Peer: once the call is a task, a message at info level or
// above whose data is a string becomes the task's status message.
func (p *taskPeer) Log(ctx context.Context, m LogMessage) error {
	run := p.run()
	if !run.isTask() {
		if run.inner != nil {
			return run.inner.Log(ctx, m)
		}
		return nil
	}
	text, ok := m.Data.(string)
	if !ok || m.Level.Severity() < LogInfo.Severity() {
		return nil
	}
	run.mu.Lock()
	run.message = text
	run.markDirty()
	run.mu.Unlock()
	return nil
}

// markDirty schedules a write of the progress; run.mu is held.
func (run *taskRun) markDirty() {
	run.dirty = true
	if run.flushing {
		return
	}
	run.flushing = true
	time.AfterFunc(progressFlush, func() {
		select {
		case run.flush <- struct{}{}:
		default:
		}
	})
}

// InputSupported implements Peer.
func (p *taskPeer) InputSupported(kind InputKind) bool {
	run := p.run()
	if !run.isTask() {
		return run.inner != nil && run.inner.InputSupported(kind)
	}
	return run.tc.Input != nil && run.tc.Input.InputSupported(kind)
}

// RequestInput implements Peer.
func (p *taskPeer) RequestInput(ctx context.Context, reqs []InputRequest) ([]InputResponse, error) {
	run := p.run()
	run.mu.Lock()
	if run.state != runTask {
		run.inInput++
		run.mu.Unlock()
		var out []InputResponse
		err := ErrInputUnsupported
		if run.inner != nil {
			out, err = run.inner.RequestInput(ctx, reqs)
		}
		run.mu.Lock()
		run.inInput--
		if errors.Is(err, ErrInputRequired) {
			run.mustEnd = true
		}
		run.mu.Unlock()
		return out, err
	}
	run.mu.Unlock()
	return run.ask(ctx, reqs)
}

// ask asks the task's caller every request of reqs, through the task's
// InputRequests, and waits for the answers.
func (run *taskRun) ask(ctx context.Context, reqs []InputRequest) ([]InputResponse, error) {
	in := run.tc.Input
	if in == nil {
		return nil, ErrInputUnsupported
	}
	for i := range reqs {
		if !in.InputSupported(reqs[i].Kind()) {
			return nil, ErrInputUnsupported
		}
	}
	inputs := make([]recordInput, len(reqs))
	for i := range reqs {
		raw, err := in.EncodeInputRequest(&reqs[i])
		if err != nil {
			return nil, fmt.Errorf("toolexec: input request %q cannot be encoded: %w", reqs[i].Key, err)
		}
		inputs[i].Request = raw
	}
	chans := make([]chan json.RawMessage, len(reqs))
	run.mu.Lock()
	if run.keys == nil {
		run.keys, run.waiters = map[string]bool{}, map[string]chan json.RawMessage{}
	}
	for i := range reqs {
		// A key names one request over the task's whole life.
		key := reqs[i].Key
		for n := 2; run.keys[key]; n++ {
			key = fmt.Sprintf("%s-%d", reqs[i].Key, n)
		}
		run.keys[key] = true
		inputs[i].Key = key
		chans[i] = make(chan json.RawMessage, 1)
		run.waiters[key] = chans[i]
	}
	run.mu.Unlock()
	forget := func() {
		run.mu.Lock()
		for _, in := range inputs {
			delete(run.waiters, in.Key)
		}
		run.mu.Unlock()
	}
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), storeOpTimeout)
	r, err := run.s.update(sctx, run.id, func(r *taskRecord) bool {
		if r.Status.Terminal() {
			return false
		}
		r.Inputs = append(r.Inputs, inputs...)
		r.Status = TaskStatusInputRequired
		return true
	})
	cancel()
	run.remember(r)
	if err == nil && (r == nil || r.Status.Terminal()) {
		err = context.Canceled
	}
	if err != nil {
		forget()
		return nil, err
	}
	out := make([]InputResponse, len(reqs))
	for i := range reqs {
		select {
		case raw := <-chans[i]:
			resp, err := in.DecodeInputResponse(reqs[i].Kind(), raw)
			if err != nil {
				forget()
				run.withdraw(inputs)
				return nil, err
			}
			out[i] = resp
		case <-ctx.Done():
			forget()
			run.withdraw(inputs)
			return nil, ctx.Err()
		}
	}
	return out, nil
}

// withdraw takes back the questions of inputs that were not answered.
func (run *taskRun) withdraw(inputs []recordInput) {
	ctx, cancel := storeCtx()
	defer cancel()
	r, _ := run.s.update(ctx, run.id, func(r *taskRecord) bool {
		if r.Status.Terminal() {
			return false
		}
		changed := false
		kept := r.Inputs[:0:0]
		for _, in := range r.Inputs {
			mine := false
			for _, w := range inputs {
				mine = mine || w.Key == in.Key
			}
			if mine {
				changed = true
			} else {
				kept = append(kept, in)
			}
		}
		for _, w := range inputs {
			if _, ok := r.Answers[w.Key]; ok {
				delete(r.Answers, w.Key)
				changed = true
			}
		}
		r.Inputs = kept
		if len(kept) == 0 && r.Status == TaskStatusInputRequired {
			r.Status = TaskStatusWorking
		}
		return changed
	})
	run.remember(r)
}
