package toolexec_test

import (
	"context"
	"log/slog"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolexec/toolexec"
)

func TestLogsADebugLinePerCallWithoutArguments(t *testing.T) {
	logger, logs := newLogger(slog.LevelDebug)
	x := multiExec(t, echoArgs, []toolexec.Tool{{Name: "ok", Version: "1.0.0"}}, toolexec.WithLogger(logger))

	_, err := call(x, "ok", `{"secret-city":"Atlantis-unique-value"}`)
	require.NoError(t, err)
	_, err = call(x, "missing", `{"secret-city":"Atlantis-unique-value"}`)
	require.Error(t, err)

	lines := findLogs(t, logs, "toolexec: call")
	require.Len(t, lines, 2)
	assert.Equal(t, "DEBUG", lines[0]["level"])
	assert.Equal(t, "ok", lines[0]["tool"])
	assert.Equal(t, "1.0.0", lines[0]["version"])
	assert.Equal(t, "go", lines[0]["surface"])
	assert.Equal(t, "success", lines[0]["outcome"])
	assert.Contains(t, lines[0], "duration")
	assert.Equal(t, "missing", lines[1]["tool"])
	assert.Equal(t, "error", lines[1]["outcome"])
	assert.Equal(t, "resolve", lines[1]["stage"])
	assert.Equal(t, "not_found", lines[1]["code"])
	assert.NotContains(t, logs.String(), "Atlantis-unique-value", "argument values are never logged")
}

func TestNoDebugLineAboveDebugLevel(t *testing.T) {
	logger, logs := newLogger(slog.LevelInfo)
	x := newExec(t, toolexec.Tool{Name: "ok"}, textHandler("x"), toolexec.WithLogger(logger))

	_, err := call(x, "ok", `{}`)

	require.NoError(t, err)
	assert.Empty(t, logs.String())
}

func TestLogsAuthRejectionAsWarning(t *testing.T) {
	logger, logs := newLogger(slog.LevelDebug)
	deny := func(http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { http.Error(w, "bad token", http.StatusForbidden) })
	}
	x := newExec(t, toolexec.Tool{Name: "t"}, textHandler("x"), toolexec.WithAuthHook(deny), toolexec.WithLogger(logger))

	r := restCall(t, x, "t", `{"token":"hunter2"}`)

	assert.Equal(t, http.StatusUnauthorized, r.status)
	warned := findLogs(t, logs, "refused by auth hook")
	require.Len(t, warned, 1)
	assert.Equal(t, "WARN", warned[0]["level"])
	assert.Contains(t, warned[0]["reason"], "bad token")
	assert.NotContains(t, logs.String(), "hunter2")
}

func TestLogsPanicWithStackAsError(t *testing.T) {
	logger, logs := newLogger(slog.LevelDebug)
	h := func(context.Context, string, map[string]any) ([]toolexec.Content, bool, string, error) {
		panic("kaput")
	}
	x := newExec(t, toolexec.Tool{Name: "t"}, h, toolexec.WithLogger(logger))

	_, err := call(x, "t", `{"password":"p"}`)

	requireError(t, err, toolexec.StageExecute, toolexec.CodePanic)
	logged := findLogs(t, logs, "tool panicked")
	require.Len(t, logged, 1)
	assert.Equal(t, "ERROR", logged[0]["level"])
	assert.Equal(t, "kaput", logged[0]["panic"])
	assert.Contains(t, logged[0]["stack"], "goroutine")
	assert.NotContains(t, logs.String(), `"p"`)
}
