package toolexec

import (
	"context"
	"fmt"
	"net/http"
	"reflect"
)

type contextKey int

const callKey contextKey = 0

// RequestFromContext returns the HTTP request a call arrived with, as the
// auth hook passed it on (so identity the hook stored in the request's
// context is in ctx too). It returns nil for in-process calls made without
// a request, including a call a handler makes with the ctx it was given:
// set CallRequest.Request to hand the outer request on. Values stored in
// the context itself, such as the identity an auth hook added, stay
// visible either way.
func RequestFromContext(ctx context.Context) *http.Request {
	if c := CallFromContext(ctx); c != nil {
		return c.Request
	}
	return nil
}

// CallFromContext returns the call being executed: the resolved tool
// (with its version), the arguments and the surface. Handlers rarely need
// it; Registry uses it to find the handler of the resolved version. The
// returned Call must not be modified.
func CallFromContext(ctx context.Context) *Call {
	c, _ := ctx.Value(callKey).(*Call)
	return c
}

// withCall stores c, and with it the request, in one context value.
func withCall(ctx context.Context, c *Call) context.Context {
	return context.WithValue(ctx, callKey, c)
}

// callContext is the context a call runs in: ctx with the call stored as
// withCall would store it, in the one allocation that holds the Call
// itself. Its Context is set once, before it is handed on, and never
// changed.
type callContext struct {
	context.Context
	call Call
}

// Value returns the call for callKey and asks the parent for any other
// key, as the context withCall returns does.
func (c *callContext) Value(key any) any {
	if key == any(callKey) {
		return &c.call
	}
	return c.Context.Value(key)
}

// String names the context as the one withCall returns names itself, so
// that printing it shows neither the call nor its arguments.
func (c *callContext) String() string {
	parent := reflect.TypeOf(c.Context).String()
	if s, ok := c.Context.(fmt.Stringer); ok {
		parent = s.String()
	}
	return parent + ".WithValue(toolexec.contextKey, *toolexec.Call)"
}
