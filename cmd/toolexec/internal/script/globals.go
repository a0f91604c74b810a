package script

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"strings"

	"github.com/dop251/goja"
	"golang.org/x/net/http/httpguts"
)

// prelude bounds the library functions that build a large string or
// array at once, before the script's own code runs: String.prototype's
// repeat, padStart and padEnd and Array.prototype.join throw a RangeError
// past MaxStringLength; the Array, ArrayBuffer and typed array
// constructors (and what calls them: Array.from, Array.of, a typed
// array's from, of, slice, map, filter) past MaxArrayLength. The
// constructors are wrapped in proxies that the prototypes' constructor
// properties point at, so `[].constructor === Array` holds and the
// unbounded originals are not reachable from the script.
var prelude = goja.MustCompile("prelude.js", `(function (maxStr, maxArr) {
  "use strict";
  var RE = RangeError, str = String, num = Number, trunc = Math.trunc;
  var def = function (o, k, f) { Object.defineProperty(o, k, {value: f, writable: true, configurable: true, enumerable: false}); };
  var tooLong = function () { return new RE("Invalid string length: a script's strings hold at most " + maxStr + " characters"); };
  var S = String.prototype, repeat = S.repeat, padStart = S.padStart, padEnd = S.padEnd;
  def(S, "repeat", function repeat_(count) {
    var n = trunc(num(count));
    if (this != null && n > 0 && str(this).length * n > maxStr) throw tooLong();
    return repeat.call(this, count);
  });
  var pad = function (orig) {
    return function (max, fill) {
      if (trunc(num(max)) > maxStr && this != null && str(this).length < trunc(num(max))) throw tooLong();
      return orig.call(this, max, fill);
    };
  };
  def(S, "padStart", pad(padStart));
  def(S, "padEnd", pad(padEnd));
  var A = Array.prototype, join = A.join;
  def(A, "join", function join_(sep) {
    var o = Object(this), n = trunc(num(o.length)) || 0;
    if (n > maxStr) throw tooLong();
    var s = sep === undefined ? 1 : str(sep).length, total = n > 0 ? (n - 1) * s : 0;
    if (total > maxStr) throw tooLong();
    for (var i = 0; i < n; i++) {
      var e = o[i];
      if (e != null) { total += str(e).length; if (total > maxStr) throw tooLong(); }
    }
    return join.call(o, sep);
  });
  var bound = function (C, isLength) {
    var check = function (args) {
      var a = args[0];
      if (isLength(args) && trunc(num(a)) > maxArr) throw new RE("Invalid length: a script's arrays and buffers hold at most " + maxArr + " elements");
      if (a !== null && typeof a === "object" && !(a instanceof ArrayBuffer) && "length" in a && trunc(num(a.length)) > maxArr) throw new RE("Invalid length: a script's arrays and buffers hold at most " + maxArr + " elements");
    };
    var isInstance = function (x) { return x instanceof C; };
    var P = new Proxy(C, {
      get: function (t, k, recv) { return k === Symbol.hasInstance ? isInstance : Reflect.get(t, k, recv); },
      apply: function (t, self, args) { check(args); return Reflect.apply(t, self, args); },
      construct: function (t, args, nt) { check(args); return Reflect.construct(t, args, nt === P ? t : nt); }
    });
    def(C.prototype, "constructor", P);
    return P;
  };
  var g = globalThis;
  g.Array = bound(Array, function (args) { return args.length === 1 && typeof args[0] === "number"; });
  g.ArrayBuffer = bound(ArrayBuffer, function (args) { return true; });
  ["Int8Array", "Uint8Array", "Uint8ClampedArray", "Int16Array", "Uint16Array", "Int32Array", "Uint32Array",
   "Float32Array", "Float64Array", "BigInt64Array", "BigUint64Array"].forEach(function (name) {
    if (typeof g[name] === "function") g[name] = bound(g[name], function (args) { return typeof args[0] === "number"; });
  });
})`, true)

// install sets the runtime's globals: console, fetch and the bounds of
// the prelude; and keeps JSON.parse as it is before the script runs.
func (in *instance) install() error {
	vm := in.vm
	console := vm.NewObject()
	for _, level := range []string{"log", "info", "warn", "error", "debug", "trace"} {
		if err := console.Set(level, in.console(level)); err != nil {
			return err
		}
	}
	if err := vm.Set("console", console); err != nil {
		return err
	}
	if err := vm.Set("fetch", in.fetch); err != nil {
		return err
	}
	f, err := vm.RunProgram(prelude)
	if err != nil {
		return err
	}
	bounds, ok := goja.AssertFunction(f)
	if !ok {
		return errors.New("script: the prelude is not a function")
	}
	if _, err := bounds(goja.Undefined(), vm.ToValue(MaxStringLength), vm.ToValue(MaxArrayLength)); err != nil {
		return err
	}
	parse, ok := goja.AssertFunction(vm.Get("JSON").ToObject(vm).Get("parse"))
	if !ok {
		return errors.New("script: JSON.parse is not a function")
	}
	in.parse = parse
	return nil
}

// state is the running call's state, or that of the top-level code.
func (in *instance) state() *callState {
	if in.call != nil {
		return in.call
	}
	if in.initCall == nil {
		in.initCall = &callState{}
	}
	return in.initCall
}

// console is console.LEVEL: the arguments, strings as they are and other
// values as JSON, joined by spaces, logged at debug level with the tool
// and the script, at most MaxConsoleLines lines of MaxConsoleBytes a call.
func (in *instance) console(level string) func(goja.FunctionCall) goja.Value {
	return func(call goja.FunctionCall) goja.Value {
		log := in.r.o.Logger
		st := in.state()
		ctx := st.ctx
		if ctx == nil {
			ctx = context.Background()
		}
		if !log.Enabled(ctx, slog.LevelDebug) {
			return goja.Undefined()
		}
		st.console++
		if st.console > MaxConsoleLines {
			if !st.dropNote {
				st.dropNote = true
				log.DebugContext(ctx, "script console: further lines of this call are dropped", "tool", in.r.o.Tool, "script", in.r.prog.Name, "max", MaxConsoleLines)
			}
			return goja.Undefined()
		}
		var b strings.Builder
		for i, a := range call.Arguments {
			if i > 0 {
				b.WriteByte(' ')
			}
			if b.Len() > MaxConsoleBytes {
				break
			}
			b.WriteString(consoleText(a, MaxConsoleBytes-b.Len()))
		}
		log.DebugContext(ctx, "script console", "tool", in.r.o.Tool, "script", in.r.prog.Name, "level", level, "message", clip(b.String(), MaxConsoleBytes))
		return goja.Undefined()
	}
}

// consoleText is how console writes v: a string as it is, an Error as its
// name and message, anything else as its JSON, else its text.
func consoleText(v goja.Value, max int) string {
	if goja.IsString(v) {
		return clip(v.String(), max)
	}
	if o, ok := v.(*goja.Object); ok && o.ClassName() == "Error" {
		return valueMessage(v)
	}
	if b, err := encodeValue(v, max); err == nil && b != nil {
		return string(b)
	}
	if v == nil || goja.IsUndefined(v) {
		return "undefined"
	}
	s := "[value]"
	func() {
		defer func() { _ = recover() }()
		s = v.String()
	}()
	return clip(s, max)
}

// fetch is the global fetch(url, init): a subset of the standard one.
// init may give method, headers (an object, or a list of [name, value]
// pairs) and body (a string). It returns a Promise, settled before fetch
// returns, of {status, statusText, ok, url, headers: {get, has}, text(),
// json()}. A request refused by the allow-list, one that fails, one past
// the limits (MaxFetches, MaxFetchBodyBytes, MaxFetchResponseBytes) is a
// rejected Promise (TypeError or RangeError) whose message names no
// address.
func (in *instance) fetch(call goja.FunctionCall) goja.Value {
	vm := in.vm
	p, resolve, reject := vm.NewPromise()
	v, err := in.doFetch(call)
	if err != nil {
		_ = reject(err)
	} else {
		_ = resolve(v)
	}
	return vm.ToValue(p)
}

// jsError is an error object of the runtime: ctor is its constructor's
// global name.
func (in *instance) jsError(ctor, format string, args ...any) *goja.Object {
	c := in.vm.Get(ctor)
	o, err := in.vm.New(c, in.vm.ToValue(fmt.Sprintf(format, args...)))
	if err != nil {
		return in.vm.NewTypeError(fmt.Sprintf(format, args...))
	}
	return o
}

func (in *instance) doFetch(call goja.FunctionCall) (goja.Value, *goja.Object) {
	st := in.call
	if st == nil {
		return nil, in.jsError("TypeError", "fetch is only available while the script answers a call, not in its top-level code")
	}
	f := in.r.o.Fetcher
	if f == nil {
		return nil, in.jsError("TypeError", "fetch is off for this tool: list the hosts it may reach in its allowedHosts")
	}
	st.fetches++
	if st.fetches > MaxFetches {
		return nil, in.jsError("RangeError", "fetch: a call may send at most %d requests", MaxFetches)
	}
	rawURL := call.Argument(0)
	if goja.IsUndefined(rawURL) || goja.IsNull(rawURL) {
		return nil, in.jsError("TypeError", "fetch needs a URL")
	}
	method, body := http.MethodGet, ""
	header := http.Header{}
	if o, ok := call.Argument(1).(*goja.Object); ok {
		if m := o.Get("method"); m != nil && !goja.IsUndefined(m) {
			method = strings.ToUpper(m.String())
		}
		if b := o.Get("body"); b != nil && !goja.IsUndefined(b) && !goja.IsNull(b) {
			if !goja.IsString(b) {
				return nil, in.jsError("TypeError", "fetch: body must be a string (JSON.stringify an object)")
			}
			body = b.String()
			if len(body) > MaxFetchBodyBytes {
				return nil, in.jsError("RangeError", "fetch: a request body holds at most %d bytes", MaxFetchBodyBytes)
			}
		}
		if h, ok := o.Get("headers").(*goja.Object); ok {
			if err := in.headers(h, header); err != nil {
				return nil, err
			}
		}
	}
	if !httpguts.ValidHeaderFieldName(method) {
		return nil, in.jsError("TypeError", "fetch: %q is not a method", clip(method, 64))
	}
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequestWithContext(st.ctx, method, rawURL.String(), rd)
	if err != nil || (req.URL.Scheme != "http" && req.URL.Scheme != "https") || req.URL.Host == "" {
		return nil, in.jsError("TypeError", "fetch: the URL is not an absolute http or https URL")
	}
	req.Header = header
	resp, err := f.Do(req)
	if err != nil {
		if st.ctx.Err() != nil {
			return nil, in.jsError("Error", "fetch: the call ended")
		}
		msg, log := "the request failed", "request failed"
		if in.r.o.FetchFailure != nil {
			msg, log = in.r.o.FetchFailure(err)
		}
		// The cause without the URL, whose query may hold a key.
		cause := err
		var ue *url.Error
		if errors.As(err, &ue) {
			cause = ue.Err
		}
		in.r.o.Logger.Warn("script fetch: "+log, "tool", in.r.o.Tool, "script", in.r.prog.Name, "error", cause.Error())
		return nil, in.jsError("TypeError", "fetch failed: %s", msg)
	}
	defer func() { _ = resp.Body.Close() }() // read up to its cap; closing only frees the connection
	data, err := io.ReadAll(io.LimitReader(resp.Body, MaxFetchResponseBytes+1))
	if err != nil {
		return nil, in.jsError("TypeError", "fetch failed: the response could not be read")
	}
	if len(data) > MaxFetchResponseBytes {
		return nil, in.jsError("RangeError", "fetch: the response is larger than %d bytes", MaxFetchResponseBytes)
	}
	return in.response(resp, strings.ToValidUTF8(string(data), "\uFFFD")), nil
}

// headers copies a fetch's headers (an object, or a list of pairs) into h.
func (in *instance) headers(o *goja.Object, h http.Header) *goja.Object {
	add := func(k, v string) *goja.Object {
		if !httpguts.ValidHeaderFieldName(k) || !httpguts.ValidHeaderFieldValue(v) {
			return in.jsError("TypeError", "fetch: header %q is not a valid header", clip(k, 64))
		}
		h.Add(k, v)
		return nil
	}
	if o.ClassName() == "Array" {
		n := o.Get("length").ToInteger()
		for i := int64(0); i < n && i < 1000; i++ {
			pair, ok := o.Get(fmt.Sprint(i)).(*goja.Object)
			if !ok {
				return in.jsError("TypeError", "fetch: headers must be an object or a list of [name, value] pairs")
			}
			if err := add(pair.Get("0").String(), pair.Get("1").String()); err != nil {
				return err
			}
		}
		return nil
	}
	for _, k := range o.Keys() {
		if err := add(k, o.Get(k).String()); err != nil {
			return err
		}
	}
	return nil
}

// response is the Response object of a fetch.
func (in *instance) response(resp *http.Response, body string) goja.Value {
	vm := in.vm
	o := vm.NewObject()
	_ = o.Set("status", resp.StatusCode)
	_ = o.Set("statusText", strings.TrimSpace(strings.TrimPrefix(resp.Status, fmt.Sprint(resp.StatusCode))))
	_ = o.Set("ok", resp.StatusCode >= 200 && resp.StatusCode < 300)
	_ = o.Set("url", resp.Request.URL.String())
	_ = o.Set("redirected", resp.Request.Response != nil)
	h := vm.NewObject()
	header := resp.Header
	_ = h.Set("get", func(name string) goja.Value {
		if vs := header.Values(name); len(vs) > 0 {
			return vm.ToValue(strings.Join(vs, ", "))
		}
		return goja.Null()
	})
	_ = h.Set("has", func(name string) bool { return len(header.Values(name)) > 0 })
	_ = o.Set("headers", h)
	settle := func(f func() (goja.Value, error)) goja.Value {
		p, resolve, reject := vm.NewPromise()
		v, err := f()
		if err != nil {
			var ex *goja.Exception
			if errors.As(err, &ex) {
				_ = reject(ex.Value())
			} else {
				_ = reject(in.jsError("TypeError", "%s", err.Error()))
			}
		} else {
			_ = resolve(v)
		}
		return vm.ToValue(p)
	}
	_ = o.Set("text", func() goja.Value {
		return settle(func() (goja.Value, error) { return vm.ToValue(body), nil })
	})
	_ = o.Set("json", func() goja.Value {
		return settle(func() (goja.Value, error) { return in.parse(goja.Undefined(), vm.ToValue(body)) })
	})
	return o
}
