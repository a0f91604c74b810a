package mcp

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"runtime/debug"

	"github.com/toolexec/toolexec"
)

// call runs req through the pipeline. The pipeline recovers a panicking
// handler itself; a panic anywhere else on the way (an interceptor, an auth
// hook's next) is recovered here and reported like one, with its message
// and without its stack, so a call never ends in a dropped connection. The
// error is always an *toolexec.Error.
func (h *handler) call(ctx context.Context, req toolexec.CallRequest) (res *toolexec.CallToolResult, e *toolexec.Error) {
	defer func() {
		if p := recover(); p != nil {
			h.x.Logger().ErrorContext(ctx, "mcp: tool call panicked outside the handler",
				"tool", req.Name, "surface", req.Surface, "panic", fmt.Sprint(p), "stack", string(debug.Stack()))
			res, e = nil, &toolexec.Error{Stage: toolexec.StageIntercept, Code: toolexec.CodePanic, Message: fmt.Sprint(p)}
		}
	}()
	res, err := h.x.Call(ctx, req)
	if err == nil {
		return res, nil
	}
	e, ok := toolexec.AsError(err)
	if !ok {
		e = &toolexec.Error{Stage: toolexec.StageIntercept, Code: toolexec.CodeInternal, Message: err.Error(), Err: err}
	}
	return nil, e
}

// newBody returns a fresh reader over a request body already read, so that
// an auth hook that reads the body (to check a signature, say) sees it whole
// on every call of a batch.
func newBody(b []byte) io.ReadCloser {
	return io.NopCloser(bytes.NewReader(b))
}
