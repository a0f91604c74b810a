package toolexec

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net/http"
)

// readBody reads at most limit bytes of r.Body and restores r.Body as a
// reader over them. Reading stops at limit+1 bytes, so an oversized body is
// never held in memory whole.
func readBody(w http.ResponseWriter, r *http.Request, limit int64) ([]byte, error) {
	if r.Body == nil || r.Body == http.NoBody {
		return nil, nil
	}
	if r.ContentLength > limit {
		// Refused unread: close the connection rather than drain the body.
		w.Header().Set("Connection", "close")
		return nil, tooLarge(limit)
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, limit))
	if err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			return nil, tooLarge(limit)
		}
		return nil, &Error{Stage: StageDecode, Code: CodeInvalidArguments, Message: "could not read request body", Err: err}
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	return body, nil
}

func tooLarge(limit int64) *Error {
	return &Error{Stage: StageDecode, Code: CodeTooLarge,
		Message: fmt.Sprintf("Request body too large: the limit is %d bytes", limit)}
}
