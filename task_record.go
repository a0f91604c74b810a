package toolexec

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"strings"
	"sync/atomic"
	"time"
)

// A task lives in the store as one record under taskKey(id), a JSON
// document every replica reads and changes with CompareAndSwap, so that
// concurrent changes (the runner's progress, a caller's answers or
// cancellation) never overwrite one another. Beside it, while the task
// runs, the replica running it holds a lease under leaseKey(id), a key it
// renews every third of the Executor's lease TTL: a record that says the
// task runs while its lease has run out belongs to a replica that stopped,
// and the first replica to read it marks it failed. Every change is
// announced on the task's channel (taskChannel), where the runner hears of
// answers and cancellation and listen streams of status changes; since
// messages may be lost, the runner also reads the record on its own now
// and then.
//
// A shared store may lose what it holds (a Redis restarted without
// persistence). The replica running a task keeps its record in memory and
// writes it again when it finds it gone, so a running task outlives the
// loss. Meanwhile a poll that finds no record must not say "not found":
// the store's epoch (taskEpochKey) says when the store last lost its data,
// and for a lease TTL after that, a record not found is "unavailable, ask
// again" (ErrTasksUnavailable), the time its runner takes to write it
// again.

func taskKey(id string) string     { return "task:" + id }
func leaseKey(id string) string    { return "task-lease:" + id }
func taskChannel(id string) string { return "task:" + id }

// taskRecord is a task as the store keeps it. Times are Unix milliseconds.
type taskRecord struct {
	ID       string                     `json:"id"`
	Tool     string                     `json:"tool"`
	Version  string                     `json:"v,omitempty"`
	Label    string                     `json:"l,omitempty"`
	Owner    string                     `json:"owner,omitempty"`
	Holder   string                     `json:"h,omitempty"` // whose share of the tasks kept it counts in, when not Owner's (holderOf)
	Status   TaskStatus                 `json:"status"`
	Message  string                     `json:"msg,omitempty"`
	Progress float64                    `json:"p,omitempty"`
	Total    float64                    `json:"pt,omitempty"`
	Created  int64                      `json:"c"`
	Updated  int64                      `json:"u"`
	Expires  int64                      `json:"e"`
	PollMs   int64                      `json:"poll"`
	Inputs   []recordInput              `json:"in,omitempty"`
	Answers  map[string]json.RawMessage `json:"ans,omitempty"`
	Result   json.RawMessage            `json:"res,omitempty"`
	Err      *recordError               `json:"err,omitempty"`
}

// holderOf is a record's Holder: share (taskShare), left out when it is
// owner, as it is for a caller with an identity.
func holderOf(owner, share string) string {
	if share == owner {
		return ""
	}
	return share
}

// recordInput is one question the task waits for an answer to.
type recordInput struct {
	Key     string          `json:"k"`
	Request json.RawMessage `json:"r"`
}

// recordError is an *Error as a record keeps it: what the surfaces render,
// including what a handler's *ToolError said beyond its message.
type recordError struct {
	Stage      Stage               `json:"s"`
	Code       Code                `json:"c"`
	Message    string              `json:"m"`
	Failures   []ValidationFailure `json:"f,omitempty"`
	Omitted    int                 `json:"o,omitempty"`
	RetryAfter int64               `json:"ra,omitempty"` // milliseconds
	Tool       *recordToolError    `json:"t,omitempty"`
}

type recordToolError struct {
	DeveloperMessage        string `json:"dm,omitempty"`
	CanRetry                bool   `json:"cr,omitempty"`
	RetryAfter              int64  `json:"ra,omitempty"` // milliseconds
	AdditionalPromptContent string `json:"ap,omitempty"`
}

func toRecordError(e *Error) *recordError {
	re := &recordError{Stage: e.Stage, Code: e.Code, Message: e.Message, Failures: e.Failures, Omitted: e.Omitted,
		RetryAfter: e.RetryAfter.Milliseconds()}
	var te *ToolError
	if errors.As(e.Err, &te) {
		re.Tool = &recordToolError{DeveloperMessage: te.DeveloperMessage, CanRetry: te.CanRetry,
			RetryAfter: te.RetryAfter.Milliseconds(), AdditionalPromptContent: te.AdditionalPromptContent}
	}
	return re
}

func (re *recordError) toError() *Error {
	e := &Error{Stage: re.Stage, Code: re.Code, Message: re.Message, Failures: re.Failures, Omitted: re.Omitted,
		RetryAfter: time.Duration(re.RetryAfter) * time.Millisecond}
	if t := re.Tool; t != nil {
		e.Err = &ToolError{Message: re.Message, DeveloperMessage: t.DeveloperMessage, CanRetry: t.CanRetry,
			RetryAfter: time.Duration(t.RetryAfter) * time.Millisecond, AdditionalPromptContent: t.AdditionalPromptContent}
	}
	return e
}

func unixMilli(ms int64) time.Time { return time.UnixMilli(ms).UTC() }

// snapshot is the Task r describes.
func (r *taskRecord) snapshot() (*Task, error) {
	t := &Task{
		ID: r.ID, Tool: r.Tool, Version: r.Version, Label: r.Label, Status: r.Status, StatusMessage: r.Message,
		Progress:  Progress{Progress: r.Progress, Total: r.Total},
		CreatedAt: unixMilli(r.Created), UpdatedAt: unixMilli(r.Updated), ExpiresAt: unixMilli(r.Expires),
		PollInterval: time.Duration(r.PollMs) * time.Millisecond,
	}
	if r.Status == TaskStatusWorking {
		t.Progress.Message = r.Message
	}
	for _, in := range r.Inputs {
		t.InputRequests = append(t.InputRequests, TaskPendingInput(in))
	}
	if r.Err != nil {
		t.Err = r.Err.toError()
	}
	if len(r.Result) > 0 {
		res, err := decodeStoredResult(r.Result)
		if err != nil {
			return nil, fmt.Errorf("toolexec: task %s: stored result: %w", r.ID, err)
		}
		t.Result = res
	}
	return t, nil
}

// decodeStoredResult reads a result a task keeps, keeping its structured
// content as the exact JSON the handler produced.
func decodeStoredResult(data []byte) (*CallToolResult, error) {
	var w struct {
		Content           json.RawMessage `json:"content"`
		StructuredContent json.RawMessage `json:"structuredContent"`
		IsError           bool            `json:"isError"`
		Meta              map[string]any  `json:"_meta"`
	}
	if err := json.Unmarshal(data, &w); err != nil {
		return nil, err
	}
	content, err := unmarshalContents(w.Content)
	if err != nil {
		return nil, err
	}
	res := &CallToolResult{Content: content, IsError: w.IsError, Meta: w.Meta}
	if len(w.StructuredContent) > 0 && string(w.StructuredContent) != "null" {
		res.StructuredContent = w.StructuredContent
	}
	return res, nil
}

// newTaskID returns a fresh task id: 128 bits from crypto/rand.
func newTaskID() string {
	var b [16]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails (Go 1.24+)
	return hex.EncodeToString(b[:])
}

// validTaskID reports whether id has the form newTaskID gives, so that
// nothing else is ever looked up in the store.
func validTaskID(id string) bool {
	if len(id) != 32 {
		return false
	}
	for i := 0; i < len(id); i++ {
		c := id[i]
		if (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}

// taskStore is where an Executor keeps its tasks: records and leases in
// KVs, messages on a PubSub. Without a shared store both KVs are bounded
// maps of the process's own (taskMemory) and the bus is the process's.
type taskStore struct {
	records, leases KV
	bus             PubSub
	settings        TaskSettings
	leaseTTL        time.Duration
	quota           *taskQuota // MaxTasksPerCaller, counted in this process
	log             *slog.Logger
	// shared says the records live in a store other processes share (and
	// that may lose them: see taskEpochKey); false for the process's own
	// maps, whose bounds drop tasks on purpose.
	shared bool
	// epoch is the id of the store's epoch this process last read (nil
	// for none yet), and down says the store failed the last check before
	// a call that may become a task (logged once per outage).
	epoch atomic.Pointer[string]
	down  atomic.Bool
	// failedAt is when (Unix milliseconds) a read of a task last found
	// the store unreachable: it may come back without its data.
	failedAt atomic.Int64
	// runnersDown says the runners of this process's tasks last found the
	// store unreachable (logged once per outage).
	runnersDown atomic.Bool
}

// newTaskStore builds where the Executor keeps its tasks: the shared store
// when there is one, else bounded maps of the process's own.
func (x *Executor) newTaskStore() *taskStore {
	s := &taskStore{settings: x.taskSettings.withDefaults(), leaseTTL: x.leaseTTL, log: x.logger}
	if k, ok := x.store.(taskKeeper); ok {
		// An in-process store shared by Executors: their tasks in maps of
		// its own, out of reach of the cache's evictions.
		s.records, s.leases = k.taskMemories(s.settings)
		s.bus = x.store
		s.quota = s.records.(*taskMemory).quota
		return s
	}
	if x.store != nil {
		s.records, s.leases, s.bus = x.store, x.store, x.store
		s.shared = true
		s.quota = newTaskQuota(s.settings.MaxTasksPerCaller)
		return s
	}
	records, leases := newTaskMemories(s.settings)
	s.records, s.leases, s.quota = records, leases, records.quota
	s.bus = x.local
	return s
}

// newTaskMemories returns the bounded maps that keep tasks' records and
// leases in the process, sized by settings.
func newTaskMemories(settings TaskSettings) (records, leases *taskMemory) {
	records = newTaskMemory(settings.MaxMemoryTasks, settings.MaxMemoryBytes)
	records.share, records.quota = recordShare, newTaskQuota(settings.MaxTasksPerCaller)
	// A lease is a short key and a byte: the records bound them. Every
	// lease is a running task's, and is never dropped to make room (a
	// task whose lease is gone is taken for one whose runner stopped, and
	// failed): a new task that finds the leases full goes on as an
	// ordinary call, as one that finds the records full does.
	leases = newTaskMemory(settings.MaxMemoryTasks, settings.MaxMemoryTasks*(taskEntryOverhead+64))
	leases.share = leaseShare
	return records, leases
}

// taskKeeper is an in-process store (MemoryStore) that keeps the tasks of
// the Executors sharing it in bounded maps of its own, rather than in its
// KV, where a busy cache would evict the records of running tasks.
type taskKeeper interface {
	taskMemories(settings TaskSettings) (records, leases KV)
}

// errTaskConflict is update's error when the record kept changing under it.
var errTaskConflict = errors.New("toolexec: the task kept changing; try again")

// maxUpdateAttempts bounds how often update retries a change that lost a
// race with another.
const maxUpdateAttempts = 32

// unavailable wraps err, a failure of the store, as ErrTasksUnavailable.
func unavailable(err error) error {
	if err == nil || errors.Is(err, ErrTasksUnavailable) {
		return err
	}
	return fmt.Errorf("%w: %w", ErrTasksUnavailable, err)
}

// load reads the record of id; nil when there is none.
func (s *taskStore) load(ctx context.Context, id string) (*taskRecord, []byte, error) {
	raw, ok, err := s.records.Get(ctx, taskKey(id))
	if err != nil || !ok {
		return nil, nil, unavailable(err)
	}
	r := new(taskRecord)
	if err := json.Unmarshal(raw, r); err != nil {
		return nil, nil, fmt.Errorf("toolexec: task %s: unreadable record: %w", id, err)
	}
	return r, raw, nil
}

// update changes the record of id with change, which reports whether it
// changed anything, until its CompareAndSwap wins; a record changed is
// kept for the TTL from now, and the change announced on the task's
// channel. It returns the record as it is after (nil when there is none;
// change is then not called).
func (s *taskStore) update(ctx context.Context, id string, change func(r *taskRecord) bool) (*taskRecord, error) {
	for range maxUpdateAttempts {
		r, raw, err := s.load(ctx, id)
		if err != nil || r == nil {
			return nil, err
		}
		if !change(r) {
			return r, nil
		}
		now := time.Now()
		r.Updated = now.UnixMilli()
		r.Expires = now.Add(s.settings.TTL).UnixMilli()
		next, err := json.Marshal(r)
		if err != nil {
			return nil, err
		}
		ok, err := s.records.CompareAndSwap(ctx, taskKey(id), raw, next, s.settings.TTL)
		if err != nil {
			return nil, unavailable(err)
		}
		if ok {
			s.announce(ctx, id)
			return r, nil
		}
	}
	return nil, errTaskConflict
}

// announce tells the task's listeners it changed. A message lost is made
// up for by the readers' own reads, so a failure is not an error.
func (s *taskStore) announce(ctx context.Context, id string) {
	_ = s.bus.Publish(ctx, taskChannel(id), nil)
}

// errRunnerGone is the failure of a task whose replica stopped running it.
var errRunnerGone = &Error{Stage: StageExecute, Code: CodeInternal, Message: "the replica running this task stopped"}

// alive reads the record of id, and marks a task whose runner's lease has
// run out as failed, before returning it.
func (s *taskStore) alive(ctx context.Context, id string) (*taskRecord, error) {
	r, _, err := s.load(ctx, id)
	if err != nil || r == nil || r.Status.Terminal() {
		return r, err
	}
	_, held, err := s.leases.Get(ctx, leaseKey(id))
	if err != nil || held {
		return r, unavailable(err)
	}
	return s.update(ctx, id, func(r *taskRecord) bool {
		if r.Status.Terminal() {
			return false
		}
		r.Status, r.Message, r.Inputs, r.Answers = TaskStatusFailed, errRunnerGone.Message, nil, nil
		r.Err = toRecordError(errRunnerGone)
		return true
	})
}

// taskEpochKey holds the shared store's epoch: "ID LOSS", a random id and
// when (Unix milliseconds) a replica last found that the store had lost
// its data, 0 for never. A store without it has lost it (a replica that
// had read an epoch finds none), or is new.
const taskEpochKey = "task-epoch"

// errRecovering is the failure of a read that found no record while the
// store may still be getting its running tasks back.
var errRecovering = errors.New("the shared store lost its data lately; the replica running the task may not have written it again yet")

// recovering reads the store's epoch, and reports whether the store lost
// its data less than a lease TTL ago: the runners of its tasks write them
// again within that (a third of it, once they read the store again). A
// store without an epoch gets one; when this process had read one before,
// the store has just lost its data, and the new epoch says so.
func (s *taskStore) recovering(ctx context.Context) (bool, error) {
	lost, err := s.readEpoch(ctx)
	if err != nil {
		return false, err
	}
	// Back from an outage this process saw: perhaps without its data.
	failed := s.failedAt.Load()
	return lost || failed != 0 && time.Since(time.UnixMilli(failed)) < s.leaseTTL, nil
}

// readEpoch reads the store's epoch (see recovering), and reports whether
// it says the store lost its data less than a lease TTL ago.
func (s *taskStore) readEpoch(ctx context.Context) (bool, error) {
	for range 2 {
		raw, ok, err := s.records.Get(ctx, taskEpochKey)
		if err != nil {
			return false, unavailable(err)
		}
		seen := s.epoch.Load()
		if ok {
			id, loss := parseEpoch(raw)
			if seen == nil || *seen != id {
				s.epoch.Store(&id)
			}
			return loss > 0 && time.Since(time.UnixMilli(loss)) < s.leaseTTL, nil
		}
		loss := int64(0)
		if seen != nil {
			loss = time.Now().UnixMilli()
		}
		id := newTaskID()
		added, err := s.records.Add(ctx, taskEpochKey, []byte(id+" "+strconv.FormatInt(loss, 10)), 0)
		if err != nil {
			return false, unavailable(err)
		}
		if added {
			s.epoch.Store(&id)
			if loss > 0 {
				s.log.WarnContext(ctx, "toolexec: the shared store lost its tasks (was it restarted without persistence?); the replicas running tasks write them again")
			}
			return loss > 0, nil
		}
		// Another replica wrote one first: read it.
	}
	return false, nil
}

// noteLoss records in the store's epoch that the store lost its data now,
// unless it says so already: the runner of a task found its record gone.
func (s *taskStore) noteLoss(ctx context.Context) {
	raw, ok, err := s.records.Get(ctx, taskEpochKey)
	if err != nil {
		return
	}
	if ok {
		if _, loss := parseEpoch(raw); loss > 0 && time.Since(time.UnixMilli(loss)) < s.leaseTTL {
			return
		}
	}
	id := newTaskID()
	if s.records.Set(ctx, taskEpochKey, []byte(id+" "+strconv.FormatInt(time.Now().UnixMilli(), 10)), 0) == nil {
		s.epoch.Store(&id)
	}
}

// parseEpoch reads an epoch's id and time of loss.
func parseEpoch(raw []byte) (id string, loss int64) {
	id, ms, _ := strings.Cut(string(raw), " ")
	loss, _ = strconv.ParseInt(ms, 10, 64)
	return id, loss
}

// check asks the shared store, before a call that may become a task runs,
// whether it answers (reading its epoch): a task it could not record would
// hold its caller for the whole call. A change either way is logged once.
func (s *taskStore) check(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, storeOpTimeout)
	defer cancel()
	if _, err := s.readEpoch(ctx); err != nil {
		if s.down.CompareAndSwap(false, true) {
			s.log.WarnContext(ctx, "toolexec: the shared store does not answer; calls that may become tasks are refused until it does", "error", err)
		}
		return err
	}
	if s.down.CompareAndSwap(true, false) {
		s.log.InfoContext(ctx, "toolexec: the shared store answers again; calls may become tasks again")
	}
	return nil
}

// noteFailure notes that err, if it is one, says the store did not answer.
func (s *taskStore) noteFailure(err error) {
	if s.shared && errors.Is(err, ErrTasksUnavailable) {
		s.failedAt.Store(time.Now().UnixMilli())
	}
}

// runnersReach notes whether the runners of this process's tasks reach
// the store, and reports whether that changed; the return to it is logged
// here, the loss by the runner that found it.
func (s *taskStore) runnersReach(ok bool) bool {
	if !s.runnersDown.CompareAndSwap(ok, !ok) {
		return false
	}
	if ok {
		s.log.Info("toolexec: the shared store answers the replica's running tasks again")
	}
	return true
}

// answers reports whether the store answers a read now.
func (s *taskStore) answers() bool {
	ctx, cancel := context.WithTimeout(context.Background(), storeOpTimeout)
	defer cancel()
	_, _, err := s.records.Get(ctx, taskEpochKey)
	return err == nil
}
