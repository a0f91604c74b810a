package ssetest_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/toolexec/toolexec/internal/ssetest"
)

func TestNextReadsEachEventThenTheZeroEvent(t *testing.T) {
	body := ": a comment\n\nid: 1\nevent: message\ndata: {\"a\":\ndata: 1}\n\nid: 2\n\ndata: {\"b\":2}\n\nid: 3\ndata: {\"c\":"
	rd := ssetest.NewReader(t, strings.NewReader(body))
	assert.Equal(t, ssetest.Event{ID: "1", Msg: map[string]any{"a": 1.0}}, rd.Next(), "data lines joined")
	assert.Equal(t, ssetest.Event{ID: "2", Msg: map[string]any{"b": 2.0}}, rd.Next(), "an event without data is passed over")
	assert.Equal(t, ssetest.Event{}, rd.Next(), "an event the stream cut short is not one")
	assert.Equal(t, ssetest.Event{}, rd.Next())
}
