package mcp

import (
	"encoding/json"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestAnEventKeepsOneMessagePerEvent: a message holding line breaks
// between tokens (raw JSON a tool returned) and invalid UTF-8 still arrives
// as one event whose data lines join back into valid UTF-8 JSON.
func TestAnEventKeepsOneMessagePerEvent(t *testing.T) {
	msg := []byte("{\"jsonrpc\":\"2.0\",\r\n \"id\":1,\n\"result\":{\"text\":\"a\xffb\"}}")
	rec := httptest.NewRecorder()
	sw := sseWriter{w: rec, timeout: time.Minute}
	require.NoError(t, sw.event(msg, sw.ceiling()))
	out := rec.Body.String()
	require.True(t, utf8.ValidString(out))
	require.True(t, strings.HasSuffix(out, "\n\n"))
	events := strings.Split(strings.TrimSuffix(out, "\n\n"), "\n\n")
	require.Len(t, events, 1, "one event")
	var data []string
	for _, line := range strings.Split(events[0], "\n") {
		if v, ok := strings.CutPrefix(line, "data: "); ok {
			data = append(data, v)
		} else {
			assert.Equal(t, "event: message", line)
		}
	}
	var got map[string]any
	require.NoError(t, json.Unmarshal([]byte(strings.Join(data, "\n")), &got))
	assert.Equal(t, "a\uFFFDb", got["result"].(map[string]any)["text"])
}
