package script

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"reflect"
	"runtime"
	"sort"
	"time"
	"unicode/utf8"

	"github.com/dop251/goja"
)

// The bounds of what a script can make the server do and hold. goja has
// no heap limit: these bound the results, the strings and arrays built by
// the library functions that build them at once, the call stack, console
// and fetch; what a script builds step by step (a string doubled in a
// loop, an object grown key by key) is bounded only by the call's
// timeout and the process's memory (GOMEMLIMIT).
const (
	// DefaultMaxResultBytes caps the JSON of what a script returns, when
	// Options.MaxResultBytes is 0.
	DefaultMaxResultBytes = 1 << 20
	// MaxStringLength caps, in UTF-16 code units, a string built at once
	// by String.prototype.repeat, padStart, padEnd and
	// Array.prototype.join: past it they throw a RangeError.
	MaxStringLength = 8 << 20
	// MaxArrayLength caps the length given to the Array, ArrayBuffer and
	// typed array constructors: past it they throw a RangeError.
	MaxArrayLength = 8 << 20
	// MaxCallDepth caps the depth of calls: deeper, a call fails with
	// "maximum call stack size exceeded".
	MaxCallDepth = 1000
	// MaxJSONDepth caps the nesting of a returned value.
	MaxJSONDepth = 200
	// MaxMessageBytes caps a thrown error's message as a caller sees it.
	MaxMessageBytes = 1024
	// MaxConsoleLines caps the console lines one call logs; MaxConsoleBytes
	// caps each.
	MaxConsoleLines = 100
	MaxConsoleBytes = 4096
	// MaxFetches caps the requests one call's fetch sends;
	// MaxFetchBodyBytes caps a request's body and MaxFetchResponseBytes a
	// response's.
	MaxFetches            = 32
	MaxFetchBodyBytes     = 1 << 20
	MaxFetchResponseBytes = 1 << 20
	// InitTimeout bounds the run of a script's top-level code, once per
	// runtime.
	InitTimeout = time.Second
)

// Fetcher sends a script's fetch requests (httptool.Fetcher).
type Fetcher interface {
	Do(*http.Request) (*http.Response, error)
}

// Options configure a Runner.
type Options struct {
	// Tool is the tool's name: the payload's tool, and what logs name.
	Tool string
	// Logger receives console output (at debug level), thrown errors'
	// stacks (debug) and fetch refusals (warn); nil discards them.
	Logger *slog.Logger
	// Fetcher, when set, is what fetch sends its requests with; nil
	// makes fetch fail ("fetch is off").
	Fetcher Fetcher
	// FetchFailure describes a failed fetch for the script (a message
	// naming no address) and for the log; nil says "the request failed".
	FetchFailure func(error) (message, log string)
	// MaxResultBytes caps the JSON of a returned value (0:
	// DefaultMaxResultBytes).
	MaxResultBytes int
	// Idle is how many runtimes are kept between calls (0: twice
	// GOMAXPROCS, and at least 4).
	Idle int
}

// Runner runs one Program for one tool: each call on a runtime of its
// pool, created (the program's top-level code run once) when none is
// idle, and kept for later calls unless the call was interrupted. It is
// safe for concurrent use; a runtime runs one call at a time.
type Runner struct {
	prog *Program
	o    Options
	idle chan *instance
}

// Runner returns a Runner of p with o.
func (p *Program) Runner(o Options) *Runner {
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.MaxResultBytes <= 0 {
		o.MaxResultBytes = DefaultMaxResultBytes
	}
	if o.Idle <= 0 {
		o.Idle = max(4, 2*runtime.GOMAXPROCS(0))
	}
	return &Runner{prog: p, o: o, idle: make(chan *instance, o.Idle)}
}

// Program returns the program r runs.
func (r *Runner) Program() *Program { return r.prog }

// Error is a call's failure as the caller may read it: what the script
// threw (its message, or the thrown value as text), or what was wrong
// with what it returned. Its text never holds a stack trace or a path of
// the server.
type Error struct {
	Message string
}

// Error returns the message.
func (e *Error) Error() string { return e.Message }

func failf(format string, args ...any) *Error { return &Error{Message: fmt.Sprintf(format, args...)} }

// Warm creates one runtime and keeps it, so that a script whose top-level
// code fails is known before the first call. Its error is that of the
// top-level code, an *Error.
func (r *Runner) Warm() error {
	in, err := r.newInstance()
	if err != nil {
		return err
	}
	r.put(in)
	return nil
}

// CallInputs calls the script with {inputs, tool}: inputs as a plain
// object (its own copy) and the tool's name. It returns the JSON of the
// value returned (or fulfilled), at most Options.MaxResultBytes.
//
// It fails with an *Error when the script throws (or its Promise is
// rejected, or never settles), or returns undefined, a function, a
// circular value, a BigInt, or more than the cap; with ctx's error when
// ctx ends first: the script is interrupted at once (or when a library
// function it is in returns), and its runtime is dropped.
func (r *Runner) CallInputs(ctx context.Context, inputs map[string]any) (json.RawMessage, error) {
	return r.call(ctx, func(in *instance) (goja.Value, error) {
		return in.payload("inputs", toJS(in.vm, inputs)), nil
	})
}

// CallResults calls the script with {results, tool}: results parsed from
// JSON. It returns as CallInputs does.
func (r *Runner) CallResults(ctx context.Context, results json.RawMessage) (json.RawMessage, error) {
	return r.call(ctx, func(in *instance) (goja.Value, error) {
		v, err := fromJSON(in.vm, results)
		if err != nil {
			return nil, err
		}
		return in.payload("results", v), nil
	})
}

// instance is one runtime with the program's top-level code run.
type instance struct {
	vm    *goja.Runtime
	fn    goja.Callable
	parse goja.Callable // JSON.parse as the runtime started
	r     *Runner
	// call is the running call's state, nil between calls and while the
	// top-level code runs; initCall is the top-level code's.
	call, initCall *callState
}

// callState is what one call has used.
type callState struct {
	ctx      context.Context
	console  int
	fetches  int
	dropNote bool
}

func (in *instance) payload(key string, v goja.Value) goja.Value {
	o := in.vm.NewObject()
	_ = o.Set(key, v)
	_ = o.Set("tool", in.r.o.Tool)
	return o
}

func (r *Runner) get() (*instance, error) {
	select {
	case in := <-r.idle:
		return in, nil
	default:
		return r.newInstance()
	}
}

func (r *Runner) put(in *instance) {
	select {
	case r.idle <- in:
	default: // enough are idle
	}
}

// errInitTimeout interrupts top-level code that runs past InitTimeout.
var errInitTimeout = errors.New("the script's top-level code ran past its time")

// newInstance creates a runtime, installs the globals and runs the
// program's top-level code, at most InitTimeout.
func (r *Runner) newInstance() (*instance, error) {
	vm := goja.New()
	vm.SetMaxCallStackSize(MaxCallDepth)
	in := &instance{vm: vm, r: r}
	if err := in.install(); err != nil {
		return nil, err
	}
	fired := make(chan struct{})
	t := time.AfterFunc(InitTimeout, func() { vm.Interrupt(errInitTimeout); close(fired) })
	_, err := vm.RunProgram(r.prog.prog)
	if !t.Stop() {
		// The interrupt came as the code ended: the runtime must not
		// keep it for its first call.
		<-fired
		vm.ClearInterrupt()
	}
	if err != nil {
		r.logThrown("script: the top-level code failed", err)
		var ie *goja.InterruptedError
		if errors.As(err, &ie) {
			return nil, failf("the script's top-level code ran longer than %s", InitTimeout)
		}
		return nil, failf("the script's top-level code failed: %s", thrownMessage(err))
	}
	exports := vm.Get(GlobalName)
	var fnv goja.Value
	if exports != nil {
		if o, ok := exports.(*goja.Object); ok {
			fnv = o.Get(r.prog.Export)
		}
	}
	fn, ok := goja.AssertFunction(fnv)
	if !ok {
		what := "the default export"
		if r.prog.Export != "default" {
			what = "the export " + r.prog.Export
		}
		return nil, failf("%s of the script is not a function", what)
	}
	in.fn = fn
	return in, nil
}

// call runs one call on a runtime of the pool: payload builds the
// argument, in the runtime.
func (r *Runner) call(ctx context.Context, payload func(*instance) (goja.Value, error)) (out json.RawMessage, err error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	in, err := r.get()
	if err != nil {
		return nil, err
	}
	in.call = &callState{ctx: ctx}
	reuse := false
	defer func() {
		in.call = nil
		if reuse {
			r.put(in)
		}
	}()
	// The interrupt: at the call's deadline or cancellation the script
	// stops at its next instruction.
	stop := context.AfterFunc(ctx, func() { in.vm.Interrupt(ctx.Err()) })
	defer func() {
		if p := recover(); p != nil {
			// A panic that is not a JavaScript exception (goja's own):
			// the runtime is not trusted again.
			r.o.Logger.Error("script: the runtime failed", "tool", r.o.Tool, "script", r.prog.Name, "panic", fmt.Sprint(p))
			out, err, reuse = nil, failf("the script failed"), false
		}
		if !stop() {
			// The interrupt ran, or is running: the runtime may hold it.
			reuse = false
		}
	}()
	err = guarded(in.vm, func() error {
		arg, err := payload(in)
		if err != nil {
			return err
		}
		res, err := in.fn(goja.Undefined(), arg)
		if err == nil {
			res, err = settled(res)
		}
		if err == nil {
			out, err = in.encode(res)
		}
		return err
	})
	// A runtime is kept after a call that returned or threw, not after
	// one that was interrupted or overflowed its stack.
	reuse = err == nil || !uncatchable(err)
	if err != nil {
		return nil, r.failure(ctx, err)
	}
	return out, nil
}

// uncatchable reports whether err unwound the runtime past the script's
// own handlers: an interrupt or a stack overflow.
func uncatchable(err error) bool {
	var ie *goja.InterruptedError
	var so *goja.StackOverflowError
	return errors.As(err, &ie) || errors.As(err, &so)
}

// guarded runs f, which works with vm from Go, and returns what it
// returns, or the exception it threw, or the uncatchable error (an
// interrupt, a stack overflow) that unwound it.
func guarded(vm *goja.Runtime, f func() error) (err error) {
	defer func() {
		if p := recover(); p != nil {
			if e, ok := p.(error); ok && uncatchable(e) {
				err = e
				return
			}
			panic(p)
		}
	}()
	if ex := vm.Try(func() { err = f() }); ex != nil {
		return ex
	}
	return err
}

// settled is v, or the value of the Promise v; a rejected Promise is its
// reason as an error, a pending one an *Error (nothing can settle it once
// the call returned: a script has no timers, and fetch settles at once).
func settled(v goja.Value) (goja.Value, error) {
	o, ok := v.(*goja.Object)
	if !ok || o.ExportType() != promiseType {
		return v, nil // (Export would copy a whole object to find out)
	}
	p, ok := o.Export().(*goja.Promise)
	if !ok {
		return v, nil
	}
	switch p.State() {
	case goja.PromiseStateFulfilled:
		return p.Result(), nil
	case goja.PromiseStateRejected:
		return nil, &rejection{reason: p.Result()}
	}
	return nil, failf("the script's promise never settled (scripts have no timers: use await on fetch only)")
}

// promiseType is the type a Promise exports as.
var promiseType = reflect.TypeFor[*goja.Promise]()

// rejection is a rejected Promise's reason.
type rejection struct{ reason goja.Value }

func (r *rejection) Error() string { return valueMessage(r.reason) }

// failure is the error of a failed call: ctx's error when it ended (the
// interrupt), else an *Error the caller may read; a thrown error's stack
// is logged at debug level.
func (r *Runner) failure(ctx context.Context, err error) error {
	var ie *goja.InterruptedError
	if errors.As(err, &ie) || ctx.Err() != nil {
		if cerr := ctx.Err(); cerr != nil {
			return cerr
		}
		return failf("the script was interrupted")
	}
	var so *goja.StackOverflowError
	if errors.As(err, &so) {
		return failf("RangeError: maximum call stack size exceeded")
	}
	var e *Error
	if errors.As(err, &e) {
		return e
	}
	r.logThrown("script: the call threw", err)
	return &Error{Message: thrownMessage(err)}
}

// logThrown logs a thrown error with its stack, at debug level: stacks
// are never sent to callers.
func (r *Runner) logThrown(msg string, err error) {
	stack := ""
	var ex *goja.Exception
	if errors.As(err, &ex) {
		stack = ex.String()
	} else if rj, ok := err.(*rejection); ok {
		if o, ok := rj.reason.(*goja.Object); ok {
			if s := o.Get("stack"); s != nil && !goja.IsUndefined(s) {
				stack = s.String()
			}
		}
	}
	r.o.Logger.Debug(msg, "tool", r.o.Tool, "script", r.prog.Name, "error", thrownMessage(err), "stack", stack)
}

// thrownMessage is what the caller reads of a thrown value: an Error's
// message (with its name when it is not plain Error), or the value as
// text, at most MaxMessageBytes.
func thrownMessage(err error) string {
	var ex *goja.Exception
	switch {
	case errors.As(err, &ex):
		return valueMessage(ex.Value())
	case err != nil:
		var rj *rejection
		if errors.As(err, &rj) {
			return valueMessage(rj.reason)
		}
		return clip(err.Error(), MaxMessageBytes)
	}
	return ""
}

// valueMessage is the message of a thrown value.
func valueMessage(v goja.Value) string {
	if v == nil || goja.IsUndefined(v) {
		return "the script threw undefined"
	}
	var msg string
	if o, ok := v.(*goja.Object); ok {
		if m := o.Get("message"); m != nil && !goja.IsUndefined(m) {
			msg = m.String()
			if n := o.Get("name"); n != nil && !goja.IsUndefined(n) && n.String() != "Error" && n.String() != "" {
				msg = n.String() + ": " + msg
			}
			return clip(msg, MaxMessageBytes)
		}
	}
	if s, err := encodeValue(v, MaxMessageBytes); err == nil && !goja.IsString(v) {
		return clip(string(s), MaxMessageBytes)
	}
	func() {
		defer func() {
			if recover() != nil {
				msg = "the script threw a value that has no text"
			}
		}()
		msg = v.String()
	}()
	return clip(msg, MaxMessageBytes)
}

// clip cuts s to at most n bytes, on a rune boundary, marking the cut.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	s = s[:n]
	for !utf8.ValidString(s) {
		s = s[:len(s)-1]
	}
	return s + "…"
}

// toJS converts a decoded JSON value (as encoding/json and the library
// decode arguments: maps, slices, strings, float64, json.Number, bools,
// nil) into a plain JavaScript value of vm, with object keys sorted.
func toJS(vm *goja.Runtime, v any) goja.Value {
	switch v := v.(type) {
	case nil:
		return goja.Null()
	case map[string]any:
		o := vm.NewObject()
		keys := make([]string, 0, len(v))
		for k := range v {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			_ = o.Set(k, toJS(vm, v[k]))
		}
		return o
	case []any:
		items := make([]any, len(v))
		for i, e := range v {
			items[i] = toJS(vm, e)
		}
		return vm.NewArray(items...)
	case json.Number:
		if f, err := v.Float64(); err == nil {
			return vm.ToValue(f)
		}
		return vm.ToValue(v.String())
	case string, bool, float64, int64, int:
		return vm.ToValue(v)
	}
	// Not a decoded JSON value: pass its JSON.
	b, err := json.Marshal(v)
	if err != nil {
		return goja.Null()
	}
	var d any
	if json.Unmarshal(b, &d) != nil {
		return goja.Null()
	}
	return toJS(vm, d)
}
