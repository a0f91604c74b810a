package httptool

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolexec/toolexec/cmd/toolexec/internal/config"
)

// bindWait binds the tool wait of a file whose source is baseURL (with
// taskSupport tasks unless empty): GET /wait.
func bindWait(t *testing.T, baseURL, tasks string) *Tool {
	t.Helper()
	file := "sources:\n  up: {kind: http, baseUrl: '" + baseURL + "'}\n" +
		"tools:\n  wait: {kind: http, source: up, method: GET, path: /wait, description: Waits.}\n"
	if tasks != "" {
		file = file[:len(file)-2] + ", taskSupport: " + tasks + "}\n"
	}
	cfg, err := config.Parse([]byte(file), "tools.yaml", t.TempDir(), func(string) (string, bool) { return "", false })
	require.NoError(t, err)
	src, err := NewSource(cfg.Sources["up"])
	require.NoError(t, err)
	t.Cleanup(func() { _ = src.Close() })
	tl, err := New(cfg.Tools[0], src, nil)
	require.NoError(t, err)
	return tl
}

// A call whose context ends (a cancelled task, a timeout) cancels its
// request: the upstream sees it go.
func TestHandle_ACancelledCallCancelsItsRequest(t *testing.T) {
	arrived, gone := make(chan struct{}), make(chan struct{})
	up := httptest.NewServer(http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) {
		close(arrived)
		<-r.Context().Done()
		close(gone)
	}))
	defer up.Close()
	tl := bindWait(t, up.URL, "optional")

	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := tl.Handle(ctx, map[string]any{})
		done <- err
	}()
	<-arrived
	cancel()
	select {
	case <-gone:
	case <-time.After(30 * time.Second):
		t.Fatal("the upstream's request was not cancelled")
	}
	assert.ErrorIs(t, <-done, context.Canceled)
}
