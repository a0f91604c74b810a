package httpjson

import (
	"bytes"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

func TestRetryAfterRoundsUpToWholeSeconds(t *testing.T) {
	for d, want := range map[time.Duration]string{0: "1", time.Millisecond: "1", time.Second: "1", 1500 * time.Millisecond: "2", 2 * time.Second: "2"} {
		assert.Equal(t, want, RetryAfter(d), d.String())
	}
}

func TestWriteUnauthorizedIsTheFixedBody(t *testing.T) {
	w := httptest.NewRecorder()
	WriteUnauthorized(w, "Bearer")
	assert.Equal(t, http.StatusUnauthorized, w.Code)
	assert.Equal(t, "{\"error\":\"Unauthorized\"}\n", w.Body.String())
	assert.Equal(t, "Bearer", w.Header().Get("WWW-Authenticate"))
	assert.Equal(t, "nosniff", w.Header().Get("X-Content-Type-Options"))
}

func TestWriteFallsBackToJSONErrorOnUnencodableValue(t *testing.T) {
	w := httptest.NewRecorder()
	Write(w, http.StatusOK, map[string]any{"ch": make(chan int)})
	assert.Equal(t, http.StatusInternalServerError, w.Code)
	assert.JSONEq(t, `{"error":"Internal server error"}`, w.Body.String())
}

func TestRecovererLogsTheStackAndAnswersOnce(t *testing.T) {
	var logs bytes.Buffer
	mw := Recoverer(slog.New(slog.NewTextHandler(&logs, nil)), "surface", func(w http.ResponseWriter) {
		Write(w, http.StatusInternalServerError, map[string]string{"error": "Internal server error"})
	})

	w := httptest.NewRecorder()
	mw(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { panic("bug") })).ServeHTTP(w, httptest.NewRequest("GET", "/", nil))
	assert.Equal(t, http.StatusInternalServerError, w.Code)
	assert.Contains(t, logs.String(), "goroutine", "the stack is logged")
	assert.NotContains(t, w.Body.String(), "goroutine")

	w = httptest.NewRecorder()
	mw(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.WriteHeader(http.StatusAccepted)
		panic("late bug")
	})).ServeHTTP(w, httptest.NewRequest("GET", "/", nil))
	assert.Equal(t, http.StatusAccepted, w.Code, "no second status once the answer has started")
	assert.Empty(t, w.Body.String())

	assert.Panics(t, func() {
		mw(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { panic(http.ErrAbortHandler) })).ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("GET", "/", nil))
	})
}

func TestGuardReportsAndLogsAPanic(t *testing.T) {
	var logs bytes.Buffer
	logger := slog.New(slog.NewTextHandler(&logs, nil))
	ran := false
	assert.False(t, Guard(t.Context(), logger, "work", func() { ran = true }))
	assert.True(t, ran)
	assert.Empty(t, logs.String())

	assert.True(t, Guard(t.Context(), logger, "work", func() { panic("bug") }))
	assert.Contains(t, logs.String(), "work panicked")
	assert.Contains(t, logs.String(), "goroutine", "the stack is logged")

	assert.Panics(t, func() { Guard(t.Context(), logger, "work", func() { panic(http.ErrAbortHandler) }) })
}

func TestSetHeadersReplacesBothAndKeepsThemApart(t *testing.T) {
	h := http.Header{}
	h.Set("Content-Type", "text/plain")
	SetHeaders(h)
	assert.Equal(t, []string{"application/json"}, h.Values("Content-Type"))
	assert.Equal(t, []string{"nosniff"}, h.Values("X-Content-Type-Options"))
	h.Add("Content-Type", "x")
	assert.Equal(t, []string{"nosniff"}, h.Values("X-Content-Type-Options"), "appending to one leaves the other alone")
}
