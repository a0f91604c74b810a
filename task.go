package toolexec

import (
	"encoding/json"
	"errors"
	"time"
)

// TaskSupport says whether a tool's calls may run as tasks: long-running
// calls the caller polls for their outcome instead of holding its request
// open (MCP's tasks extension, REST's Prefer: respond-async, OXP's
// asynchronous calls; see docs/tasks.md). The values are those of MCP's
// execution.taskSupport hint.
type TaskSupport string

// The task support a tool declares in ToolOptions.TaskSupport.
const (
	// TaskSupportForbidden: the tool's calls never run as tasks; every call holds
	// its request until it ends. It is the default ("" means the same).
	TaskSupportForbidden TaskSupport = "forbidden"
	// TaskSupportOptional: a call whose caller can take a task (it declared MCP's
	// tasks extension, or sent Prefer: respond-async) becomes one when it
	// runs longer than TaskSettings.Wait; other callers wait for the
	// outcome as for any tool.
	TaskSupportOptional TaskSupport = "optional"
	// TaskSupportRequired: the tool runs only for callers that can take a task; a
	// call from any other caller is refused, after the auth hook, with
	// CodeTaskRequired (the surfaces say what the caller must send).
	// Calls made in process (Executor.Call) run as any other.
	TaskSupportRequired TaskSupport = "required"
)

// allowsTasks reports whether s lets a call become a task.
func (s TaskSupport) allowsTasks() bool { return s == TaskSupportOptional || s == TaskSupportRequired }

// TaskStatus is where a task is in its life: working, then possibly
// waiting for its caller's input, and at last one of the three terminal
// statuses, which never change.
type TaskStatus string

// The statuses of a task, named as MCP's tasks extension names them.
const (
	TaskStatusWorking       TaskStatus = "working"        // the call is running
	TaskStatusInputRequired TaskStatus = "input_required" // the call waits for answers to Task.InputRequests
	TaskStatusCompleted     TaskStatus = "completed"      // the call ended: Task.Result, or Task.Err for a failure reported as a tool error
	TaskStatusFailed        TaskStatus = "failed"         // the call ended in an internal failure (Task.Err): a panic, or the replica running it stopped
	TaskStatusCanceled      TaskStatus = "cancelled"      // the caller cancelled the task
)

// Terminal reports whether s is one of the statuses a task ends in.
func (s TaskStatus) Terminal() bool {
	return s == TaskStatusCompleted || s == TaskStatusFailed || s == TaskStatusCanceled
}

// Defaults of TaskSettings.
const (
	// DefaultTaskWait is how long a call that may become a task runs
	// before it does: one that ends sooner is answered as an ordinary call.
	DefaultTaskWait = 250 * time.Millisecond
	// DefaultTaskTTL is how long a task is kept after it last changed:
	// its result stays readable for this long after the call ends.
	DefaultTaskTTL = time.Hour
	// DefaultTaskPollInterval is how often the surfaces suggest callers
	// poll a task.
	DefaultTaskPollInterval = time.Second
	// DefaultMaxTaskResultBytes bounds the encoded result a task keeps.
	DefaultMaxTaskResultBytes = 512 << 10
	// DefaultMaxMemoryTasks and DefaultMaxMemoryTaskBytes bound the tasks
	// an Executor without a shared store (WithStore) keeps in its process.
	DefaultMaxMemoryTasks     = 10000
	DefaultMaxMemoryTaskBytes = 64 << 20
)

// TaskSettings configure how calls run as tasks (WithTasks). A zero field
// takes its default.
type TaskSettings struct {
	// Wait is how long a call that may become a task (TaskSupportOptional or
	// TaskSupportRequired, from a caller that can take one) runs before it
	// becomes one; a call that ends within it, or that is refused before
	// its handler starts, is answered as an ordinary call (MCP's
	// immediate-result shortcut). Negative: the call becomes a task as soon
	// as its handler starts. Zero is DefaultTaskWait. REST callers may ask
	// for a shorter or longer wait (Prefer: wait=N, up to a minute).
	Wait time.Duration
	// TTL is how long a task is kept after it last changed; a running task
	// is kept for as long as it runs. Zero is DefaultTaskTTL.
	TTL time.Duration
	// PollInterval is how often callers are told to poll. Zero is
	// DefaultTaskPollInterval.
	PollInterval time.Duration
	// MaxResultBytes bounds the encoded result (or failure) a task keeps;
	// a task whose result is larger fails, saying so. Zero is
	// DefaultMaxTaskResultBytes. A shared store may bound its values too
	// (the Redis store: 1 MiB by default), so keep it below that.
	MaxResultBytes int
	// MaxMemoryTasks and MaxMemoryBytes bound the tasks kept in the
	// process when the Executor has no store, or a MemoryStore (whose
	// Executors keep their tasks together, within the bounds of the first
	// to run one): past either bound, the least recently used finished
	// task of the caller holding the most is dropped, so that one caller's
	// flood drops its own tasks first. A running task is never dropped: a
	// call that would become a task while every task kept is running goes
	// on as an ordinary call. Zero is DefaultMaxMemoryTasks and
	// DefaultMaxMemoryTaskBytes.
	MaxMemoryTasks int
	MaxMemoryBytes int
	// MaxTasksPerCaller bounds how many of one caller's calls may be
	// tasks, or calls that may still become one, at once in this process:
	// counted per Executor, or per MemoryStore for the Executors sharing
	// one (each of several Executors sharing another store counts apart).
	// A caller is counted as rate limits count it: by the identity the
	// auth hook established (ContextWithIdentity), else by the address it came
	// from (see WithIPv6CallerPrefix), never by its credentials alone,
	// which it could change with each call; the bounds above count their
	// shares the same way. A call past it is refused before its
	// handler runs, as a rate limit refuses (CodeRateLimited: REST and OXP
	// answer 429 with Retry-After, MCP an isError result). Zero is
	// DefaultMaxTasksPerCaller.
	MaxTasksPerCaller int
}

// WithTasks configures how calls run as tasks (see TaskSettings and
// docs/tasks.md). Without it, tools that declare ToolOptions.TaskSupport
// run as tasks with the defaults.
func WithTasks(s TaskSettings) Option {
	return func(x *Executor) { x.taskSettings = s }
}

// withDefaults fills in the zero fields of s.
func (s TaskSettings) withDefaults() TaskSettings {
	if s.Wait == 0 {
		s.Wait = DefaultTaskWait
	}
	if s.TTL <= 0 {
		s.TTL = DefaultTaskTTL
	}
	if s.PollInterval <= 0 {
		s.PollInterval = DefaultTaskPollInterval
	}
	if s.MaxResultBytes <= 0 {
		s.MaxResultBytes = DefaultMaxTaskResultBytes
	}
	if s.MaxMemoryTasks <= 0 {
		s.MaxMemoryTasks = DefaultMaxMemoryTasks
	}
	if s.MaxMemoryBytes <= 0 {
		s.MaxMemoryBytes = DefaultMaxMemoryTaskBytes
	}
	if s.MaxTasksPerCaller <= 0 {
		s.MaxTasksPerCaller = DefaultMaxTasksPerCaller
	}
	return s
}

// Task is what a surface shows of one task: a snapshot, read from the
// Executor's store (see SurfaceKit.Task).
type Task struct {
	// ID identifies the task: 128 random bits, hex-encoded. It is a
	// handle, not a secret: only the task's owner may use it.
	ID string
	// Tool and Version name the tool version the task runs.
	Tool, Version string
	// Label is what the surface that created the task keeps with it
	// (TaskCall.Label): the OXP surface keeps the call's call_id.
	Label string
	// Status is where the task is; StatusMessage says more, in words fit
	// for the caller ("" when there is nothing to say): the last progress
	// message of a working task, why a task failed or was cancelled.
	Status        TaskStatus
	StatusMessage string
	// Progress is the last progress the handler reported (ReportProgress);
	// zero when it reported none.
	Progress Progress
	// CreatedAt and UpdatedAt are when the task was created and last
	// changed; ExpiresAt is when it will be dropped unless it changes
	// again (a running task is kept alive as it runs).
	CreatedAt, UpdatedAt, ExpiresAt time.Time
	// PollInterval is how often the caller is told to poll.
	PollInterval time.Duration
	// InputRequests are the questions the task waits for answers to
	// (TaskStatusInputRequired), in the order asked, each in the form the
	// surface that created the task gave it (TaskInputCodec).
	InputRequests []TaskPendingInput
	// Result is the call's result, when it completed with one.
	Result *CallToolResult
	// Err is the call's failure: reported as a tool error when the task
	// completed (a timeout, a handler's error), or the internal failure a
	// failed task ended in.
	Err *Error
}

// TTL is how long the task lives from its creation, as far as is known
// now: it grows while the task runs.
func (t *Task) TTL() time.Duration { return t.ExpiresAt.Sub(t.CreatedAt) }

// TaskPendingInput is one question a task waits for an answer to: its key,
// under which the caller answers (SurfaceKit.UpdateTask), and the request
// as the surface encoded it (TaskInputCodec.EncodeInputRequest).
type TaskPendingInput struct {
	Key     string
	Request json.RawMessage
}

// CodeTaskRequired is the Error code of a call refused because its tool
// runs only as a task (TaskSupportRequired) and its caller cannot take one.
const CodeTaskRequired Code = "task_required"

// taskRequired is the refusal of a call of t, a tool that runs only as a
// task, from a caller that cannot take one.
func taskRequired(t *Tool) *Error {
	return &Error{Stage: StageGate, Code: CodeTaskRequired,
		Message: "Tool " + t.Name + " runs only as a task, and this call cannot become one."}
}

// ErrTaskNotFound is what the task methods of SurfaceKit return for a task
// that does not exist, has expired, or belongs to another caller: the three
// are not told apart, so nobody learns whether another's task exists.
var ErrTaskNotFound = errors.New("toolexec: task not found")

// ErrTasksUnavailable is wrapped by the errors of the task methods of
// SurfaceKit, and of CallTask's refusal (CodeUnavailable), when the
// Executor's shared store cannot be reached, or lost its data so lately
// (a Redis restarted without persistence) that the replica running the
// task may not have written it again yet. The answer is not known: the
// caller should ask again in a moment (the surfaces answer 503 with
// Retry-After, or MCP's -32000), and must not take it for a task that
// does not exist.
var ErrTasksUnavailable = errors.New("toolexec: tasks cannot be read or created just now")
