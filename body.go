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
//
// It costs two allocations for a body of known length: the buffer and the
// restored body. It limits the read itself rather than through
// http.MaxBytesReader (one allocation more); a body over the limit is still
// reported to the server as MaxBytesReader reports it (tellTooLarge).
func readBody(w http.ResponseWriter, r *http.Request, limit int64) ([]byte, error) {
	if r.Body == nil || r.Body == http.NoBody {
		return nil, nil
	}
	if r.ContentLength > limit {
		// Refused unread: close the connection rather than drain the body.
		w.Header().Set("Connection", "close")
		return nil, tooLarge(limit)
	}
	body, err := readAll(r.Body, r.ContentLength, limit)
	if err != nil {
		var mbe *http.MaxBytesError
		if errors.Is(err, errOverLimit) {
			tellTooLarge(w, body[limit:])
			return nil, tooLarge(limit)
		}
		if errors.As(err, &mbe) { // a limit the host set on the body itself
			return nil, tooLarge(limit)
		}
		return nil, &Error{Stage: StageDecode, Code: CodeInvalidArguments, Message: "could not read request body", Err: err}
	}
	rb := &replayBody{}
	rb.Reset(body)
	r.Body = rb
	return body, nil
}

// replayBody is the request body readBody leaves behind: the bytes it read,
// readable again (by an auth hook that checks a signature, say), in one
// allocation.
type replayBody struct{ bytes.Reader }

// Close does nothing: the bytes need no release.
func (*replayBody) Close() error { return nil }

// tellTooLarge tells the server that the request body was over its limit,
// as http.MaxBytesReader does when a read goes past the limit (the server
// then closes the connection after the response rather than reading on).
// past is what was read beyond the limit, at least one byte.
func tellTooLarge(w http.ResponseWriter, past []byte) {
	var one [1]byte
	_, _ = http.MaxBytesReader(w, io.NopCloser(bytes.NewReader(past)), 0).Read(one[:])
}

func tooLarge(limit int64) *Error {
	return &Error{Stage: StageDecode, Code: CodeTooLarge,
		Message: fmt.Sprintf("Request body too large: the limit is %d bytes", limit)}
}

// errOverLimit is readAll's report of a body longer than its limit.
var errOverLimit = errors.New("toolexec: body over the limit")

// readAll is io.ReadAll with the buffer sized from a declared length, so a
// body of known size is read into one allocation, and a limit: it reads at
// most limit+1 bytes, and returns errOverLimit with the bytes it read when
// there are more than limit.
func readAll(rd io.Reader, declared, limit int64) ([]byte, error) {
	size := int64(512) // as io.ReadAll starts
	if declared > 0 {
		size = declared + 1 // +1: room to see io.EOF without growing
	}
	stop := limit + 1
	if stop < limit {
		stop = limit // limit is math.MaxInt64
	}
	buf := make([]byte, 0, min(size, stop))
	for {
		n, err := rd.Read(buf[len(buf):min(int64(cap(buf)), stop)])
		buf = buf[:len(buf)+n]
		if int64(len(buf)) > limit {
			return buf, errOverLimit
		}
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
