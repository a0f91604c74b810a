// Package ssetest reads the server-sent events of a response body, for
// tests of the MCP streams: each event's id and its data, a JSON-RPC
// message.
package ssetest

import (
	"bufio"
	"encoding/json"
	"io"
	"strings"
	"testing"
)

// Event is one event of a stream.
type Event struct {
	// ID is the event's id ("" when it has none).
	ID string
	// Msg is its data, decoded as a JSON object.
	Msg map[string]any
}

// Reader reads the events of one stream.
type Reader struct {
	t  testing.TB
	sc *bufio.Scanner
}

// NewReader reads the events of body, in lines of up to 1 MiB; t fails
// when an event's data is not a JSON object.
func NewReader(t testing.TB, body io.Reader) *Reader {
	sc := bufio.NewScanner(body)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	return &Reader{t: t, sc: sc}
}

// Next returns the next event that carries data, or the zero Event once
// the stream ends first.
func (r *Reader) Next() Event {
	r.t.Helper()
	var ev Event
	var data string
	for r.sc.Scan() {
		line := r.sc.Text()
		switch {
		case strings.HasPrefix(line, "id: "):
			ev.ID = strings.TrimPrefix(line, "id: ")
		case strings.HasPrefix(line, "data: "):
			data += strings.TrimPrefix(line, "data: ")
		case line == "" && data != "":
			if err := json.Unmarshal([]byte(data), &ev.Msg); err != nil {
				r.t.Fatalf("ssetest: an event's data is not a JSON object: %v: %s", err, data)
			}
			return ev
		}
	}
	return Event{}
}
