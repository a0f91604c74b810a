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
	body, err := readAll(http.MaxBytesReader(w, r.Body, limit), r.ContentLength)
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

// readAll is io.ReadAll with the buffer sized from a declared length, so a
// body of known size is read into one allocation.
func readAll(rd io.Reader, declared int64) ([]byte, error) {
	if declared <= 0 {
		return io.ReadAll(rd)
	}
	buf := make([]byte, 0, declared+1) // +1: room to see io.EOF without growing
	for {
		n, err := rd.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if err == io.EOF {
			return buf, nil
		}
		if err != nil {
			return buf, err
		}
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)] // the body is longer than declared: grow
		}
	}
}
