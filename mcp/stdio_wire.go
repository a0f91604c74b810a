package mcp

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"

	"github.com/toolexec/toolexec/internal/jsonwalk"
)

// The stdio transport's wire: reading lines and messages, and writing what
// the handler answers as lines (see ServeStdio).

// stdioEnvelope is what the stdio transport reads of a message.
type stdioEnvelope struct {
	id        []byte // as sent; nil when absent
	method    string
	params    []byte
	name      string // tools/call's params.name
	arguments []byte // tools/call's params.arguments
	// metaVersion is the protocol version params._meta declares.
	metaVersion string
}

// readStdioEnvelope reads a message, a JSON object from a valid line.
func readStdioEnvelope(line []byte) stdioEnvelope {
	var env stdioEnvelope
	for it := jsonwalk.Members(line); it.Next(); {
		switch {
		case it.Is("id"):
			if string(it.Val) != "null" {
				env.id = it.Val
			}
		case it.Is("method"):
			env.method, _ = jsonString(it.Val)
		case it.Is("params"):
			env.params = it.Val
		}
	}
	if len(env.params) == 0 || env.params[0] != '{' {
		return env
	}
	env.metaVersion = metaProtocolVersionOf(env.params)
	if env.method == "tools/call" {
		for it := jsonwalk.Members(env.params); it.Next(); {
			switch {
			case it.Is("name"):
				env.name, _ = jsonString(it.Val)
			case it.Is("arguments"):
				env.arguments = it.Val
			}
		}
	}
	return env
}

// stdioResponse is the http.ResponseWriter one message is answered on: a
// JSON answer is written as one line when the handler is done, each event
// of an event stream as one line as it completes.
type stdioResponse struct {
	s          *stdioServer
	call       *stdioCall // nil: a message that is not a request
	header     http.Header
	status     int
	stream     bool // the answer is an event stream
	body       bytes.Buffer
	initialize bool // the message is an initialize request
}

func (w *stdioResponse) Header() http.Header { return w.header }

func (w *stdioResponse) WriteHeader(status int) {
	if w.status != 0 {
		return
	}
	w.status = status
	ct := w.header.Get("Content-Type")
	w.stream = strings.HasPrefix(ct, "text/event-stream")
}

func (w *stdioResponse) Write(p []byte) (int, error) {
	if w.status == 0 {
		w.WriteHeader(http.StatusOK)
	}
	w.body.Write(p)
	if w.stream {
		w.events()
	}
	return len(p), nil
}

// Flush implements http.Flusher: the events are written as they complete.
func (w *stdioResponse) Flush() {}

// events writes every complete event of the stream received so far.
func (w *stdioResponse) events() {
	for {
		buf := w.body.Bytes()
		end := bytes.Index(buf, []byte("\n\n"))
		if end < 0 {
			return
		}
		w.event(buf[:end])
		w.body.Next(end + 2)
	}
}

// event writes the message one SSE event carries: its data lines, joined
// (a line break inside the message is white space between JSON tokens).
func (w *stdioResponse) event(ev []byte) {
	var data []byte
	for _, line := range bytes.Split(ev, []byte("\n")) {
		rest, ok := bytes.CutPrefix(line, []byte("data:"))
		if !ok {
			continue // event:, id:, retry: and comments
		}
		rest, _ = bytes.CutPrefix(rest, []byte(" "))
		data = append(append(data, rest...), ' ')
	}
	if len(bytes.TrimSpace(data)) > 0 {
		w.emit(data)
	}
}

// finish writes a JSON answer once the handler is done: the message it
// answered is line.
func (w *stdioResponse) finish(line []byte) {
	if w.stream {
		if rest := bytes.TrimSpace(w.body.Bytes()); len(rest) > 0 {
			w.event(rest)
		}
		return
	}
	body := bytes.TrimSpace(w.body.Bytes())
	if len(body) == 0 {
		return // 202: nothing to answer
	}
	if !jsonwalk.Valid(body) {
		// Not the handler's own JSON (an auth hook's plain-text refusal,
		// say): the request still gets an answer.
		w.emit(w.fallback(line, body))
		return
	}
	if w.initialize && w.status == http.StatusOK {
		body = w.s.initialized(body, w.header.Get(sessionHeaderKey))
	}
	w.emit(body)
}

// fallback is the JSON-RPC error answering line when the handler's answer
// is not JSON: its HTTP status and the first line of its text, bounded.
func (w *stdioResponse) fallback(line, body []byte) []byte {
	var id []byte
	if jsonwalk.Valid(line) && line[0] == '{' {
		id = readStdioEnvelope(line).id
	}
	text, _, _ := strings.Cut(string(body), "\n")
	if len(text) > 200 {
		text = text[:200]
	}
	msg := http.StatusText(w.status)
	if text != "" {
		msg += ": " + strings.ToValidUTF8(text, "")
	}
	code := CodeRequestRejected
	if w.status == http.StatusUnauthorized {
		code = CodeUnauthorized
	}
	return encodeError(id, newError(code, "%s", msg))
}

// emit writes one message, unless the client cancelled its request.
func (w *stdioResponse) emit(msg []byte) {
	if c := w.call; c != nil {
		c.mu.Lock()
		cancelled := c.cancelled
		c.mu.Unlock()
		if cancelled {
			return
		}
	}
	w.s.out.writeMessage(msg)
}

// lineWriter writes messages to the output, one a line, one at a time. The
// first failed write ends the run.
type lineWriter struct {
	mu   sync.Mutex
	w    io.Writer
	buf  bytes.Buffer
	err  error
	fail context.CancelCauseFunc
}

// writeMessage writes msg, a JSON-RPC message, as one line of compact JSON
// (valid UTF-8, no line break inside). A message that is not valid JSON is
// not written.
func (lw *lineWriter) writeMessage(msg []byte) {
	lw.mu.Lock()
	defer lw.mu.Unlock()
	if lw.err != nil {
		return
	}
	lw.buf.Reset()
	if json.Compact(&lw.buf, bytes.ToValidUTF8(msg, []byte("\uFFFD"))) != nil {
		return
	}
	lw.buf.WriteByte('\n')
	if _, err := lw.w.Write(lw.buf.Bytes()); err != nil {
		lw.err = fmt.Errorf("mcp: writing stdio: %w", err)
		lw.fail(lw.err)
	}
	if lw.buf.Cap() > 64<<10 {
		lw.buf = bytes.Buffer{} // a rare large message does not stay
	}
}

// failed returns the error of the write that failed, if one did.
func (lw *lineWriter) failed() error {
	lw.mu.Lock()
	defer lw.mu.Unlock()
	return lw.err
}

// stdioLine is one line of input, or how reading ended.
type stdioLine struct {
	data    []byte
	tooLong bool
	err     error // io.EOF at the end of the input
}

// readLines reads newline-delimited messages from in and sends each,
// without its line ending and surrounding white space, to lines; blank
// lines are skipped. A line longer than max is discarded as it is read and
// sent as tooLong. The last line need not end with a newline. It stops at
// the first error (io.EOF at the end), which it sends last, or when ctx is
// done.
func readLines(ctx context.Context, in io.Reader, max int, lines chan<- stdioLine) {
	send := func(l stdioLine) bool {
		select {
		case lines <- l:
			return true
		case <-ctx.Done():
			return false
		}
	}
	r := bufio.NewReaderSize(in, 64<<10)
	var line []byte
	tooLong := false
	for {
		chunk, err := r.ReadSlice('\n')
		if !tooLong {
			if len(line)+len(chunk) > max+2 { // room for "\r\n"
				tooLong, line = true, nil
			} else {
				line = append(line, chunk...)
			}
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if len(chunk) > 0 && (err == nil || err == io.EOF) {
			l := stdioLine{tooLong: tooLong}
			if !tooLong {
				l.data = bytes.TrimSpace(line)
			}
			if (l.tooLong || len(l.data) > 0) && !send(l) {
				return
			}
			line, tooLong = nil, false
		}
		if err != nil {
			send(stdioLine{err: err})
			return
		}
	}
}
