package toolexec

import (
	"context"
	"net/http"
)

type contextKey int

const (
	requestKey contextKey = iota
	callKey
)

// RequestFromContext returns the HTTP request a call arrived with, as the
// auth hook passed it on (so identity the hook stored in the request's
// context is in ctx too). It returns nil for in-process calls made without
// a request.
func RequestFromContext(ctx context.Context) *http.Request {
	r, _ := ctx.Value(requestKey).(*http.Request)
	return r
}

// CallFromContext returns the call being executed: the resolved tool
// (with its version), the arguments and the surface. Handlers rarely need
// it; Registry uses it to find the handler of the resolved version. The
// returned Call must not be modified.
func CallFromContext(ctx context.Context) *Call {
	c, _ := ctx.Value(callKey).(*Call)
	return c
}

func withCall(ctx context.Context, c *Call) context.Context {
	if c.Request != nil {
		ctx = context.WithValue(ctx, requestKey, c.Request)
	}
	return context.WithValue(ctx, callKey, c)
}
