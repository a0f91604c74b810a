package bench

import (
	"bytes"
	"context"
	"io"
	"net/http"
)

// Caller sends one Request to one handler in-process, over and over, at the
// least cost a faithful exchange allows, so that what a benchmark measures
// is the handler rather than the harness around it.
//
// Every call gets what net/http gives a handler: a *http.Request of its own
// (a shallow copy of one built in advance, sharing its URL and header map)
// carrying a context that is canceled when ServeHTTP returns, and a body
// that reads the request's bytes from the start. The body reader and the
// ResponseWriter are reused from call to call: the reader is reset, the
// writer's header map is cleared (keeping its storage) and its body buffer
// truncated. What remains, about three allocations and a few hundred
// nanoseconds, is the same for every handler; Null measures it so that
// cmd/benchtable can subtract it.
//
// A handler must leave the request's header map as it found it (the tests
// check every contender does) and must not use the request or the writer
// after ServeHTTP returns, as net/http requires. A Caller is not safe for
// concurrent use.
type Caller struct {
	h    http.Handler
	data []byte
	tmpl *http.Request
	body body
	w    Writer
}

// NewCaller returns a Caller sending r to h. r's header map is built once
// and shared by every call.
func NewCaller(h http.Handler, r Request) *Caller {
	c := &Caller{h: h, data: r.Body}
	req, err := http.NewRequest(r.Method, "http://example.com"+r.Path, nil)
	if err != nil {
		// Request's methods and paths are constants of this package.
		panic("bench: bad request: " + err.Error())
	}
	req.RequestURI = r.Path
	req.RemoteAddr = "192.0.2.1:1234"
	req.Host = "example.com"
	req.Header = r.Header.Clone()
	if req.Header == nil {
		req.Header = http.Header{}
	}
	req.Body = http.NoBody
	if r.Body != nil {
		req.Body = &c.body
		req.ContentLength = int64(len(r.Body))
	}
	c.tmpl = req
	c.w.header = make(http.Header, 8)
	return c
}

// Call sends the request once and records the response in Writer.
func (c *Caller) Call() {
	c.w.reset()
	c.body.Reset(c.data)
	ctx, cancel := context.WithCancel(context.Background())
	c.h.ServeHTTP(&c.w, c.tmpl.WithContext(ctx))
	cancel()
}

// Header is the request header every call carries. Handlers must not
// change it.
func (c *Caller) Header() http.Header { return c.tmpl.Header }

// Response is the last call's response.
func (c *Caller) Response() *Writer { return &c.w }

// body is a request body over bytes the Caller resets before each call.
type body struct{ bytes.Reader }

func (*body) Close() error { return nil }

// Writer is the http.ResponseWriter (and http.Flusher) a Caller records
// responses in. Its zero value is not usable; a Caller builds one.
type Writer struct {
	header http.Header
	status int
	wrote  bool
	body   []byte
}

// Header returns the response header map.
func (w *Writer) Header() http.Header { return w.header }

// WriteHeader records the status code of the first call.
func (w *Writer) WriteHeader(code int) {
	if !w.wrote {
		w.status, w.wrote = code, true
	}
}

// Write appends p to the recorded body, writing a 200 header first if none
// was written.
func (w *Writer) Write(p []byte) (int, error) {
	w.WriteHeader(http.StatusOK)
	w.body = append(w.body, p...)
	return len(p), nil
}

// Flush writes a 200 header if none was written; there is nothing to send.
func (w *Writer) Flush() { w.WriteHeader(http.StatusOK) }

// Status is the recorded status code (200 if the handler wrote nothing).
func (w *Writer) Status() int {
	if !w.wrote {
		return http.StatusOK
	}
	return w.status
}

// Body is the recorded body, valid until the next call.
func (w *Writer) Body() []byte { return w.body }

func (w *Writer) reset() {
	clear(w.header)
	w.status, w.wrote = 0, false
	w.body = w.body[:0]
}

// Null is a handler that does nothing a server would have to do: it drains
// the request body and answers a fixed JSON body under
// a header value built in advance, allocating nothing. In-process it
// measures the Caller alone; over loopback, the Go client, the kernel and
// net/http's server; waiting on a non-nil gate, the memory a waiting call
// holds in the harness. cmd/benchtable subtracts its figures from every
// contender's.
func Null(g *Gate) http.Handler { return &nullHandler{gate: g} }

type nullHandler struct{ gate *Gate }

var (
	nullAnswer      = []byte(`{"jsonrpc":"2.0","id":1,"result":{}}`)
	jsonContentType = []string{"application/json"}
)

func (h *nullHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	// io.Discard reads through a pooled buffer, or not at all when the
	// body can write itself out (the Caller's can): no allocation.
	_, _ = io.Copy(io.Discard, r.Body)
	if h.gate != nil {
		_ = h.gate.wait(r.Context())
	}
	w.Header()["Content-Type"] = jsonContentType
	_, _ = w.Write(nullAnswer)
}
