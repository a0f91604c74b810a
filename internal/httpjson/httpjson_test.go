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

func TestLogPanicLogsTheStackAndPassesAbortOn(t *testing.T) {
	var logs bytes.Buffer
	logger := slog.New(slog.NewTextHandler(&logs, nil))
	LogPanic(t.Context(), logger, "work", "bug")
	assert.Contains(t, logs.String(), "work panicked")
	assert.Contains(t, logs.String(), "level=ERROR")
	assert.Contains(t, logs.String(), "bug")
	assert.Contains(t, logs.String(), "goroutine", "the stack is logged")

	assert.PanicsWithValue(t, http.ErrAbortHandler, func() { LogPanic(t.Context(), logger, "work", http.ErrAbortHandler) })
}

func TestTrackingWriterReportsWhetherTheResponseStarted(t *testing.T) {
	for name, write := range map[string]func(w http.ResponseWriter){
		"WriteHeader": func(w http.ResponseWriter) { w.WriteHeader(http.StatusAccepted) },
		"Write":       func(w http.ResponseWriter) { _, _ = w.Write([]byte("x")) },
	} {
		t.Run(name, func(t *testing.T) {
			rec := httptest.NewRecorder()
			tw := &TrackingWriter{ResponseWriter: rec}
			assert.False(t, tw.Started())
			write(tw)
			assert.True(t, tw.Started())
			assert.Same(t, rec, http.ResponseWriter(tw).(interface{ Unwrap() http.ResponseWriter }).Unwrap())
		})
	}
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
