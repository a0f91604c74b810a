package mcp

import (
	"bytes"
	"context"
	"io"

	"github.com/toolexec/toolexec"
)

// call runs req through the pipeline, which recovers panics at every
// stage, and returns its failure as an *toolexec.Error.
func (h *handler) call(ctx context.Context, req toolexec.CallRequest) (*toolexec.CallToolResult, *toolexec.Error) {
	res, err := h.x.Call(ctx, req)
	if err == nil {
		return res, nil
	}
	return nil, asError(err)
}

// asError is err, a failure of toolexec.Executor.Call, as the
// *toolexec.Error Call's contract says it is.
func asError(err error) *toolexec.Error {
	e, ok := toolexec.AsError(err)
	if !ok { // Call's contract says this cannot happen; keep the surface safe anyway
		e = &toolexec.Error{Stage: toolexec.StageIntercept, Code: toolexec.CodeInternal, Message: err.Error(), Err: err}
	}
	return e
}

// newBody returns a fresh reader over a request body already read, so that
// an auth hook that reads the body (to check a signature, say) sees it whole
// on every call of a batch.
func newBody(b []byte) io.ReadCloser {
	return io.NopCloser(bytes.NewReader(b))
}
