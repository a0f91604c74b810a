package mcp

import (
	"bytes"
	"io"
)

// newBody returns a fresh reader over a request body already read, so that
// an auth hook that reads the body (to check a signature, say) sees it whole
// on every call of a batch.
func newBody(b []byte) io.ReadCloser {
	return io.NopCloser(bytes.NewReader(b))
}
